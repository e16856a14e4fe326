/*
 * boot_trivial: the smallest driver program: cuInit and cuDeviceGet, linked against libcuda.so.1 (found through
 * LD_LIBRARY_PATH: bench_boot sets it to dist/lib). Exit status 0 when both return CUDA_SUCCESS.
 */
#include <stdio.h>

typedef int CUdevice;
int cuInit(unsigned int flags);
int cuDeviceGet(CUdevice *device, int ordinal);

int main(void) {
    CUdevice d = -1;
    int r = cuInit(0);
    int r2 = r == 0 ? cuDeviceGet(&d, 0) : r;
    if (r != 0 || r2 != 0) {
        fprintf(stderr, "boot_trivial: cuInit -> %d, cuDeviceGet -> %d\n", r, r2);
        return 1;
    }
    return 0;
}

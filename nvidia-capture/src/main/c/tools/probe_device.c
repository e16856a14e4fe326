/*
 * probe_device: prints what NVIDIA's driver reports about device 0, as ground truth for the
 * emulator's device model: name, total memory, UUID, compute capability and every
 * cuDeviceGetAttribute value of cuda.h's CUdevice_attribute enum.
 *
 * Usage: probe_device [LIBCUDA] > device.tsv
 * Output rows: key <TAB> CUresult <TAB> value. Semantics: CUDA Driver API, Device Management.
 */
#define _GNU_SOURCE
#include <cuda.h>
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv) {
    const char *lib = argc > 1 ? argv[1] : "libcuda.so.1";
    void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    if (!h) { fprintf(stderr, "probe_device: cannot load %s: %s\n", lib, dlerror()); return 1; }
    CUresult (*init)(unsigned) = dlsym(h, "cuInit");
    CUresult (*ver)(int *) = dlsym(h, "cuDriverGetVersion");
    CUresult (*get)(CUdevice *, int) = dlsym(h, "cuDeviceGet");
    CUresult (*name)(char *, int, CUdevice) = dlsym(h, "cuDeviceGetName");
    CUresult (*mem)(size_t *, CUdevice) = dlsym(h, "cuDeviceTotalMem_v2");
    CUresult (*uuid)(CUuuid *, CUdevice) = dlsym(h, "cuDeviceGetUuid_v2");
    CUresult (*attr)(int *, CUdevice_attribute, CUdevice) = dlsym(h, "cuDeviceGetAttribute");
    if (!init || !ver || !get || !name || !mem || !uuid || !attr) { fprintf(stderr, "probe_device: missing exports\n"); return 1; }
    /* each call is made before its printf: argument evaluation order is unspecified */
    int drv = 0;
    CUresult r = init(0);
    printf("cuInit\t%d\t0\n", r);
    r = ver(&drv);
    printf("cuDriverGetVersion\t%d\t%d\n", r, drv);
    CUdevice dev = 0;
    r = get(&dev, 0);
    printf("cuDeviceGet\t%d\t%d\n", r, dev);
    char buf[256] = {0};
    r = name(buf, sizeof buf, dev);
    printf("cuDeviceGetName\t%d\t%s\n", r, buf);
    size_t total = 0;
    r = mem(&total, dev);
    printf("cuDeviceTotalMem_v2\t%d\t%zu\n", r, total);
    CUuuid u;
    r = uuid(&u, dev);
    printf("cuDeviceGetUuid_v2\t%d\t", r);
    for (int i = 0; i < 16; i++) printf("%02x", (unsigned char)u.bytes[i]);
    printf("\n");
    for (int a = 1; a < CU_DEVICE_ATTRIBUTE_MAX; a++) {
        int v = 0;
        CUresult ar = attr(&v, (CUdevice_attribute)a, dev);
        printf("attribute.%d\t%d\t%d\n", a, ar, v);
    }
    return 0;
}

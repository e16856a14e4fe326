/*
 * vmm: the virtual memory management API as PyTorch's expandable segments use it. A reservation of
 * four granules holds two physical allocations (cuMemCreate) mapped side by side (cuMemMap) and made
 * accessible together (cuMemSetAccess): one buffer that a kernel fills and a copy reads across the
 * seam. The first allocation is mapped a second time at another reservation: a kernel reading
 * through the second address sees what was written through the first. The allocation is then
 * exported as a POSIX file descriptor, imported back (as another process would) and read again.
 * Unmapped, released and freed at the end. Every value is checked against the CPU.
 *
 * usage: vmm
 * Kernels: fill, addOne (src/main/cuda/vmm.cu). Context: the primary one.
 */
#include "common.h"
#include <unistd.h>

static int expect(const char *what, const unsigned *h, size_t n, unsigned salt, unsigned plus)
{
    for (size_t i = 0; i < n; i++) {
        unsigned want = (unsigned)i * 2654435761u + salt + plus;
        if (h[i] != want) {
            printf("FAIL: %s: element %zu is %u, expected %u\n", what, i, h[i], want);
            return 1;
        }
    }
    return 0;
}

int main(void)
{
    sample_start();
    const char *origin;
    const char *ptx = sample_ptx_image(&origin);
    CUdevice dev = sample_device();
    CUcontext ctx;
    CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CHECK(cuCtxSetCurrent(ctx));
    int vmm = 0, fdOk = 0;
    CHECK(cuDeviceGetAttribute(&vmm, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, dev));
    CHECK(cuDeviceGetAttribute(&fdOk, CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED, dev));
    if (vmm != 1) {
        printf("ERROR: CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED is %d\n", vmm);
        return EXIT_ERROR;
    }
    CUmodule module;
    CUfunction fill, addOne;
    CHECK(cuModuleLoadData(&module, ptx));
    CHECK(cuModuleGetFunction(&fill, module, "fill"));
    CHECK(cuModuleGetFunction(&addOne, module, "addOne"));

    CUmemAllocationProp prop;
    memset(&prop, 0, sizeof prop);
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = dev;
    prop.requestedHandleTypes = fdOk ? CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR : CU_MEM_HANDLE_TYPE_NONE;
    size_t g = 0;
    CHECK(cuMemGetAllocationGranularity(&g, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    size_t n = 2 * g / sizeof(unsigned); /* elements of the whole buffer: two granules */
    printf("vmm: granularity %zu bytes; a buffer of two allocations of %zu bytes; fill grid=(64,1,1) block=(256,1,1) ptx=%s\n",
           g, g, origin);

    CUmemGenericAllocationHandle a, b;
    CHECK(cuMemCreate(&a, g, &prop, 0));
    CHECK(cuMemCreate(&b, g, &prop, 0));
    CUdeviceptr va, alias;
    CHECK(cuMemAddressReserve(&va, 4 * g, 0, 0, 0));
    CHECK(cuMemAddressReserve(&alias, g, 0, 0, 0));
    CHECK(cuMemMap(va, g, 0, a, 0));
    CHECK(cuMemMap(va + g, g, 0, b, 0));
    CHECK(cuMemMap(alias, g, 0, a, 0));
    CUmemAccessDesc access;
    memset(&access, 0, sizeof access);
    access.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    access.location.id = dev;
    access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    CHECK(cuMemSetAccess(va, 2 * g, &access, 1));
    CHECK(cuMemSetAccess(alias, g, &access, 1));
    unsigned long long flags = 0;
    CUmemLocation loc = { CU_MEM_LOCATION_TYPE_DEVICE, dev };
    CHECK(cuMemGetAccess(&flags, &loc, va + g + 4096));
    int failed = 0;
    if (flags != CU_MEM_ACCESS_FLAGS_PROT_READWRITE) {
        printf("FAIL: cuMemGetAccess: %llu, expected CU_MEM_ACCESS_FLAGS_PROT_READWRITE\n", flags);
        failed = 1;
    }

    /* a kernel fills the whole buffer, across both allocations; a copy reads it back */
    unsigned salt = 17;
    unsigned long long count = n;
    void *pf[] = { &va, &count, &salt };
    CHECK(cuLaunchKernel(fill, 64, 1, 1, 256, 1, 1, 0, NULL, pf, NULL));
    CHECK(cuCtxSynchronize());
    unsigned *h = malloc(2 * g);
    CHECK(cuMemcpyDtoH(h, va, 2 * g));
    failed |= expect("the buffer of two allocations", h, n, salt, 0);

    /* the first allocation through its second address: a kernel reads it into the second allocation */
    unsigned long long half = n / 2;
    CUdeviceptr second = va + g;
    void *pa[] = { &second, &alias, &half };
    CHECK(cuLaunchKernel(addOne, 64, 1, 1, 256, 1, 1, 0, NULL, pa, NULL));
    CHECK(cuCtxSynchronize());
    CHECK(cuMemcpyDtoH(h, va + g, g));
    if (!failed) failed |= expect("read through the second mapping of the first allocation", h, half, salt, 1);

    /* the handle behind an address */
    CUmemGenericAllocationHandle r;
    CHECK(cuMemRetainAllocationHandle(&r, (void *)(uintptr_t)(va + g + 100)));
    if (r != b) {
        printf("FAIL: cuMemRetainAllocationHandle of the second allocation's address gave another handle\n");
        failed = 1;
    }
    CHECK(cuMemRelease(r));

    /* shared through a file descriptor, imported, mapped and read */
    if (fdOk) {
        int fd = -1;
        CUmemGenericAllocationHandle imported;
        CHECK(cuMemExportToShareableHandle(&fd, a, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
        CHECK(cuMemImportFromShareableHandle(&imported, (void *)(uintptr_t)fd, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
        CUdeviceptr vi;
        CHECK(cuMemAddressReserve(&vi, g, 0, 0, 0));
        CHECK(cuMemMap(vi, g, 0, imported, 0));
        CHECK(cuMemSetAccess(vi, g, &access, 1));
        CHECK(cuMemcpyDtoH(h, vi, g));
        if (!failed) failed |= expect("the imported allocation", h, half, salt, 0);
        CHECK(cuMemUnmap(vi, g));
        CHECK(cuMemRelease(imported));
        CHECK(cuMemAddressFree(vi, g));
        close(fd);
        printf("exported and imported through file descriptor %d\n", fd);
    }

    CHECK(cuMemUnmap(va, 2 * g));
    CHECK(cuMemUnmap(alias, g));
    CHECK(cuMemRelease(a));
    CHECK(cuMemRelease(b));
    CHECK(cuMemAddressFree(va, 4 * g));
    CHECK(cuMemAddressFree(alias, g));
    CHECK(cuModuleUnload(module));
    CHECK(cuDevicePrimaryCtxRelease(dev));
    free(h);
    if (failed) return EXIT_FAIL;
    printf("PASS\n");
    return EXIT_PASS;
}

/*
 * misuse: driver API misuse, one case at a time, and the CUresult the driver answers each with.
 *
 *   misuse [-j N] [--isolate] [--timeout S] [--deadline S] [--list] [case...]
 *
 * Every case calls the driver the wrong way once (a NULL out-parameter, a destroyed context, a
 * freed pointer, a double free, a huge size, a bad or stale handle, a short kernelParams array, a
 * garbage or truncated module image, a pointer into memory that is not mapped, wrong flags) and
 * reports what the call returned. It prints one line per case, in the order of the table below:
 *
 *   <case> <result> <code>
 *
 * where <result> is cuGetErrorName's name of the CUresult and <code> its value, or `crashed
 * <SIGNAME> <signo>` when the process died in the call (the driver itself faulted), or `hung - <s>`
 * when the case did not end within the timeout, or `setup-failed <name> <code>` when a call the
 * case needs before its misuse failed. The first lines, starting with '#', give the driver version
 * and the device.
 *
 * Cases run in child processes (fork before any CUDA call; the parent never calls the driver), so a
 * case that crashes the driver is recorded and the suite goes on. By default one child runs the
 * cases one after another (after a crash, a hang or a context a case left unusable, a new child
 * goes on with the next case); --isolate gives every case a fresh process, -j N runs N of those at
 * once. Each case cleans up what it made. Memory "not mapped" is a guard page (PROT_NONE) right
 * after readable memory, so that a read running past the end faults deterministically.
 *
 * --timeout: seconds a case may take (default 20); --deadline: seconds the whole suite may take (default
 * none), after which running cases are killed and the cases not begun print `not-run - 0`.
 *
 * Exit status 0 when every case produced a result, 1 when some did not run, 2 on bad usage.
 * The kernel: store3 (src/main/cuda/misuse.cu); the module images: its PTX (src/main/ptx) and its
 * fatbin (src/main/fatbin/misuse.fatbin, nvcc -fatbin, PTX only, uncompressed), embedded.
 */
#define _GNU_SOURCE
#include <cuda.h>

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef CU_LAUNCH_PARAM_END
#define CU_LAUNCH_PARAM_END ((void *)0x00)
#define CU_LAUNCH_PARAM_BUFFER_POINTER ((void *)0x01)
#define CU_LAUNCH_PARAM_BUFFER_SIZE ((void *)0x02)
#endif

extern const char sample_ptx[];
extern const unsigned char misuse_fatbin[];
extern const unsigned int misuse_fatbin_size;

/* What the worker made once: device 0, its primary context (current), the module and kernel. */
static CUdevice dev;
static CUcontext primary;
static CUmodule module;
static CUfunction store3;
static CUdeviceptr dbuf; /* 4096 bytes of device memory */
static size_t page;
static unsigned char *guard; /* a PROT_NONE page; the page before it is readable and writable */
/* A block of zeroes that stands in for a handle nobody made (a pointer to memory that is not the driver's object). */
static uint64_t junk[64];

/* The case result when a set-up call failed: reported as setup-failed with the CUresult. */
#define SETUP_FAILED 0x7fff0000
static CUresult setup_result;

#define SETUP(call)                            \
    do {                                       \
        CUresult setup_r_ = (call);            \
        if (setup_r_ != CUDA_SUCCESS) {        \
            setup_result = setup_r_;           \
            return (CUresult)SETUP_FAILED;     \
        }                                      \
    } while (0)

/* n bytes that end exactly where the guard page begins. */
static unsigned char *before_guard(size_t n)
{
    return guard - n;
}

/* A device allocation of n bytes, for cases that need their own. */
static CUresult alloc(CUdeviceptr *p, size_t n)
{
    return cuMemAlloc(p, n);
}

/* ------------------------------------------------------------------------------------------------
 * The cases. Each returns the CUresult of the call under test and undoes what it made.
 */

/* null out-parameters */
static CUresult null_out_cuDeviceGet(void) { return cuDeviceGet(NULL, 0); }
static CUresult null_out_cuDeviceGetName(void) { return cuDeviceGetName(NULL, 64, dev); }
static CUresult null_out_cuCtxCreate(void) { return cuCtxCreate(NULL, NULL, 0, dev); }
static CUresult null_out_cuCtxGetCurrent(void) { return cuCtxGetCurrent(NULL); }
static CUresult null_out_cuMemAlloc(void) { return cuMemAlloc(NULL, 256); }
static CUresult null_out_cuMemGetInfo(void) { return cuMemGetInfo(NULL, NULL); }
static CUresult null_out_cuModuleLoadData(void) { return cuModuleLoadData(NULL, sample_ptx); }
static CUresult null_out_cuModuleGetFunction(void) { return cuModuleGetFunction(NULL, module, "store3"); }
static CUresult null_out_cuStreamCreate(void) { return cuStreamCreate(NULL, 0); }
static CUresult null_out_cuEventCreate(void) { return cuEventCreate(NULL, 0); }
static CUresult null_out_cuPointerGetAttribute(void) { return cuPointerGetAttribute(NULL, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, dbuf); }

/* destroyed contexts */
static CUresult destroyed_ctx_set_current(void)
{
    CUcontext c;
    SETUP(cuCtxCreate(&c, NULL, 0, dev));
    SETUP(cuCtxDestroy(c));
    CUresult r = cuCtxSetCurrent(c);
    cuCtxSetCurrent(primary);
    return r;
}

static CUresult destroyed_ctx_mem_alloc(void)
{
    CUcontext c;
    CUdeviceptr p = 0;
    SETUP(cuCtxCreate(&c, NULL, 0, dev)); /* current now */
    SETUP(cuCtxDestroy(c));               /* was current: none is now */
    CUresult r = cuMemAlloc(&p, 256);
    if (r == CUDA_SUCCESS) cuMemFree(p);
    cuCtxSetCurrent(primary);
    return r;
}

static CUresult destroyed_ctx_destroy_again(void)
{
    CUcontext c;
    SETUP(cuCtxCreate(&c, NULL, 0, dev));
    SETUP(cuCtxDestroy(c));
    CUresult r = cuCtxDestroy(c);
    cuCtxSetCurrent(primary);
    return r;
}

static CUresult destroyed_ctx_push(void)
{
    CUcontext c, popped;
    SETUP(cuCtxCreate(&c, NULL, 0, dev));
    SETUP(cuCtxDestroy(c));
    CUresult r = cuCtxPushCurrent(c);
    if (r == CUDA_SUCCESS) cuCtxPopCurrent(&popped);
    cuCtxSetCurrent(primary);
    return r;
}

static CUresult destroyed_ctx_get_api_version(void)
{
    CUcontext c;
    unsigned int v;
    SETUP(cuCtxCreate(&c, NULL, 0, dev));
    SETUP(cuCtxDestroy(c));
    CUresult r = cuCtxGetApiVersion(c, &v);
    cuCtxSetCurrent(primary);
    return r;
}

/* freed pointers, double frees */
static CUresult double_free_mem(void)
{
    CUdeviceptr p;
    SETUP(alloc(&p, 4096));
    SETUP(cuMemFree(p));
    return cuMemFree(p);
}

static CUresult freed_ptr_memcpy_htod(void)
{
    static unsigned char host[256];
    CUdeviceptr p;
    SETUP(alloc(&p, 4096));
    SETUP(cuMemFree(p));
    return cuMemcpyHtoD(p, host, sizeof host);
}

static CUresult freed_ptr_memset(void)
{
    CUdeviceptr p;
    SETUP(alloc(&p, 4096));
    SETUP(cuMemFree(p));
    return cuMemsetD8(p, 0, 256);
}

static CUresult freed_ptr_get_attribute(void)
{
    CUdeviceptr p;
    unsigned int type;
    SETUP(alloc(&p, 4096));
    SETUP(cuMemFree(p));
    return cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, p);
}

static CUresult interior_ptr_free(void)
{
    CUdeviceptr p;
    SETUP(alloc(&p, 4096));
    CUresult r = cuMemFree(p + 256);
    cuMemFree(p);
    return r;
}

static CUresult double_free_host(void)
{
    void *p;
    SETUP(cuMemAllocHost(&p, 4096));
    SETUP(cuMemFreeHost(p));
    return cuMemFreeHost(p);
}

static CUresult free_unknown_ptr(void) { return cuMemFree((CUdeviceptr)(uintptr_t)junk); }

/* huge sizes */
static CUresult huge_mem_alloc(void)
{
    CUdeviceptr p = 0;
    CUresult r = cuMemAlloc(&p, (size_t)1 << 50);
    if (r == CUDA_SUCCESS) cuMemFree(p);
    return r;
}

static CUresult huge_mem_alloc_size_max(void)
{
    CUdeviceptr p = 0;
    CUresult r = cuMemAlloc(&p, SIZE_MAX);
    if (r == CUDA_SUCCESS) cuMemFree(p);
    return r;
}

static CUresult zero_mem_alloc(void)
{
    CUdeviceptr p = 0;
    CUresult r = cuMemAlloc(&p, 0);
    if (r == CUDA_SUCCESS && p != 0) cuMemFree(p);
    return r;
}

static CUresult huge_mem_alloc_pitch(void)
{
    CUdeviceptr p = 0;
    size_t pitch;
    CUresult r = cuMemAllocPitch(&p, &pitch, (size_t)1 << 40, (size_t)1 << 40, 4); /* 2^80 bytes */
    if (r == CUDA_SUCCESS) cuMemFree(p);
    return r;
}

static CUresult huge_mem_alloc_pitch_width(void)
{
    CUdeviceptr p = 0;
    size_t pitch;
    CUresult r = cuMemAllocPitch(&p, &pitch, SIZE_MAX - 8, 1, 4); /* rounding the row up overflows */
    if (r == CUDA_SUCCESS) cuMemFree(p);
    return r;
}

static CUresult huge_mem_alloc_host(void)
{
    void *p = NULL;
    CUresult r = cuMemAllocHost(&p, (size_t)1 << 50);
    if (r == CUDA_SUCCESS) cuMemFreeHost(p);
    return r;
}

static CUresult huge_memset_d32(void) { return cuMemsetD32(dbuf, 0, (size_t)1 << 62); /* 4·N wraps to 0 */ }

static CUresult huge_memset_d2d8(void) { return cuMemsetD2D8(dbuf, (size_t)1 << 62, 0, 16, 8); /* pitch·height wraps */ }

static CUresult huge_memcpy_htod(void)
{
    static unsigned char host[256];
    return cuMemcpyHtoD(dbuf, host, SIZE_MAX);
}

static CUresult huge_memcpy2d_pitch(void)
{
    static unsigned char host[256];
    CUDA_MEMCPY2D c;
    memset(&c, 0, sizeof c);
    c.srcMemoryType = CU_MEMORYTYPE_HOST;
    c.srcHost = host;
    c.srcPitch = 16;
    c.dstMemoryType = CU_MEMORYTYPE_DEVICE;
    c.dstDevice = dbuf;
    c.dstPitch = (size_t)1 << 62; /* dstPitch·(Height-1) wraps to 0 */
    c.WidthInBytes = 16;
    c.Height = 5;
    return cuMemcpy2D(&c);
}

static CUresult huge_array_create(void)
{
    CUarray a = NULL;
    CUDA_ARRAY_DESCRIPTOR d;
    memset(&d, 0, sizeof d);
    d.Width = (size_t)1 << 40;
    d.Height = (size_t)1 << 40;
    d.Format = CU_AD_FORMAT_FLOAT;
    d.NumChannels = 4;
    CUresult r = cuArrayCreate(&a, &d);
    if (r == CUDA_SUCCESS) cuArrayDestroy(a);
    return r;
}

static CUresult huge_launch_shared(void)
{
    CUdeviceptr out = 0;
    int a = 1, b = 2;
    void *args[] = {&out, &a, &b};
    return cuLaunchKernel(store3, 1, 1, 1, 1, 1, 1, 0xFFFFFFFFu, NULL, args, NULL);
}

static CUresult huge_host_register(void)
{
    unsigned char *p = before_guard(page);
    CUresult r = cuMemHostRegister(p, (size_t)1 << 62, 0);
    if (r == CUDA_SUCCESS) cuMemHostUnregister(p);
    return r;
}

/* bad handles: module, function, stream, event */
static CUresult bad_module_handle(void)
{
    CUfunction f;
    return cuModuleGetFunction(&f, (CUmodule)(void *)junk, "store3");
}

static CUresult unloaded_module_get_function(void)
{
    CUmodule m;
    CUfunction f;
    SETUP(cuModuleLoadData(&m, sample_ptx));
    SETUP(cuModuleUnload(m));
    return cuModuleGetFunction(&f, m, "store3");
}

static CUresult unloaded_module_unload_again(void)
{
    CUmodule m;
    SETUP(cuModuleLoadData(&m, sample_ptx));
    SETUP(cuModuleUnload(m));
    return cuModuleUnload(m);
}

static CUresult unknown_function_name(void)
{
    CUfunction f;
    return cuModuleGetFunction(&f, module, "no_such_kernel");
}

static CUresult bad_function_launch(void)
{
    CUdeviceptr out = 0;
    int a = 1, b = 2;
    void *args[] = {&out, &a, &b};
    return cuLaunchKernel((CUfunction)(void *)junk, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL);
}

static CUresult null_function_launch(void)
{
    CUdeviceptr out = 0;
    int a = 1, b = 2;
    void *args[] = {&out, &a, &b};
    return cuLaunchKernel(NULL, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL);
}

static CUresult unloaded_function_launch(void)
{
    CUmodule m;
    CUfunction f;
    CUdeviceptr out = 0;
    int a = 1, b = 2;
    void *args[] = {&out, &a, &b};
    SETUP(cuModuleLoadData(&m, sample_ptx));
    SETUP(cuModuleGetFunction(&f, m, "store3"));
    SETUP(cuModuleUnload(m));
    return cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL);
}

static CUresult bad_function_get_attribute(void)
{
    int v;
    return cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, (CUfunction)(void *)junk);
}

static CUresult bad_stream_synchronize(void) { return cuStreamSynchronize((CUstream)(void *)junk); }

static CUresult destroyed_stream_query(void)
{
    CUstream s;
    SETUP(cuStreamCreate(&s, 0));
    SETUP(cuStreamDestroy(s));
    return cuStreamQuery(s);
}

static CUresult bad_stream_launch(void)
{
    CUdeviceptr out = 0;
    int a = 1, b = 2;
    void *args[] = {&out, &a, &b};
    return cuLaunchKernel(store3, 1, 1, 1, 1, 1, 1, 0, (CUstream)(void *)junk, args, NULL);
}

static CUresult bad_event_record(void) { return cuEventRecord((CUevent)(void *)junk, NULL); }

static CUresult null_event_record(void) { return cuEventRecord(NULL, NULL); }

static CUresult destroyed_event_synchronize(void)
{
    CUevent e;
    SETUP(cuEventCreate(&e, 0));
    SETUP(cuEventDestroy(e));
    return cuEventSynchronize(e);
}

static CUresult destroyed_event_elapsed(void)
{
    CUevent e, f;
    float ms;
    SETUP(cuEventCreate(&e, 0));
    SETUP(cuEventCreate(&f, 0));
    SETUP(cuEventRecord(e, NULL));
    SETUP(cuEventRecord(f, NULL));
    SETUP(cuEventSynchronize(f));
    SETUP(cuEventDestroy(e));
    CUresult r = cuEventElapsedTime(&ms, e, f);
    cuEventDestroy(f);
    return r;
}

/* kernel parameters: missing, NULL, short, unmapped */
static CUresult params_missing(void) { return cuLaunchKernel(store3, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL); }

static CUresult params_null_element(void)
{
    CUdeviceptr out = 0;
    int b = 2;
    void *args[] = {&out, NULL, &b};
    return cuLaunchKernel(store3, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL);
}

static CUresult params_short_array_guarded(void)
{
    static CUdeviceptr out = 0;
    void **args = (void **)before_guard(sizeof(void *)); /* one element; the second would be in the guard page */
    args[0] = &out;
    return cuLaunchKernel(store3, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL);
}

static CUresult params_element_unmapped(void)
{
    CUdeviceptr out = 0;
    int b = 2;
    void *args[] = {&out, guard, &b};
    return cuLaunchKernel(store3, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL);
}

static CUresult params_array_unmapped(void) { return cuLaunchKernel(store3, 1, 1, 1, 1, 1, 1, 0, NULL, (void **)guard, NULL); }

static CUresult params_and_extra(void)
{
    CUdeviceptr out = 0;
    int a = 1, b = 2;
    void *args[] = {&out, &a, &b};
    unsigned char buf[16] = {0};
    size_t size = sizeof buf;
    void *extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, buf, CU_LAUNCH_PARAM_BUFFER_SIZE, &size, CU_LAUNCH_PARAM_END};
    return cuLaunchKernel(store3, 1, 1, 1, 1, 1, 1, 0, NULL, args, extra);
}

static CUresult extra_buffer_too_small(void)
{
    unsigned char buf[16] = {0};
    size_t size = 4; /* the kernel's parameters take 16 bytes */
    void *extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, buf, CU_LAUNCH_PARAM_BUFFER_SIZE, &size, CU_LAUNCH_PARAM_END};
    return cuLaunchKernel(store3, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, extra);
}

static CUresult launch_block_too_large(void)
{
    CUdeviceptr out = 0;
    int a = 1, b = 2;
    void *args[] = {&out, &a, &b};
    return cuLaunchKernel(store3, 1, 1, 1, 2048, 1, 1, 0, NULL, args, NULL);
}

static CUresult launch_grid_zero(void)
{
    CUdeviceptr out = 0;
    int a = 1, b = 2;
    void *args[] = {&out, &a, &b};
    return cuLaunchKernel(store3, 0, 1, 1, 1, 1, 1, 0, NULL, args, NULL);
}

/* module images: garbage, truncated, sizes past their mapping, unmapped wrapper pointers */
struct fatbin_wrapper {
    int magic;
    int version;
    const void *data;
    void *filename_or_fatbins;
};

static CUresult load_image(const void *image)
{
    CUmodule m;
    CUresult r = cuModuleLoadData(&m, image);
    if (r == CUDA_SUCCESS) cuModuleUnload(m);
    return r;
}

static CUresult image_null(void) { return load_image(NULL); }

static CUresult image_empty(void) { return load_image(""); }

static CUresult image_garbage(void)
{
    static unsigned char g[257];
    uint32_t x = 12345;
    for (int i = 0; i < 256; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        g[i] = (unsigned char)(0x80 | (x & 0x7f)); /* never NUL, never text */
    }
    g[256] = 0;
    return load_image(g);
}

static CUresult image_ptx_truncated(void)
{
    size_t n = strlen(sample_ptx) / 2;
    char *t = malloc(n + 1);
    memcpy(t, sample_ptx, n);
    t[n] = 0;
    CUresult r = load_image(t);
    free(t);
    return r;
}

static CUresult image_ptx_unterminated_guarded(void)
{
    size_t n = strlen(sample_ptx) < page ? strlen(sample_ptx) : page;
    unsigned char *t = before_guard(n); /* the text, no NUL: the guard page follows */
    memcpy(t, sample_ptx, n);
    return load_image(t);
}

static CUresult image_fatbin_ok(void) { return load_image(misuse_fatbin); }

static CUresult image_fatbin_truncated_guarded(void)
{
    size_t n = misuse_fatbin_size / 2; /* the header declares all of it; half is mapped */
    unsigned char *t = before_guard(n);
    memcpy(t, misuse_fatbin, n);
    return load_image(t);
}

static unsigned char *fatbin_copy(void)
{
    unsigned char *t = aligned_alloc(16, (misuse_fatbin_size + 15) & ~(size_t)15);
    memcpy(t, misuse_fatbin, misuse_fatbin_size);
    return t;
}

static CUresult image_fatbin_entry_past_end(void)
{
    unsigned char *t = fatbin_copy();
    uint64_t payload = 0x100000; /* the first entry's payload size (u64 at entry+8) runs past the fatbin */
    memcpy(t + 16 + 8, &payload, 8);
    CUresult r = load_image(t);
    free(t);
    return r;
}

static CUresult image_fatbin_size_huge(void)
{
    unsigned char *t = fatbin_copy();
    uint64_t size = (uint64_t)1 << 62; /* the fatbin header's size of its entries */
    memcpy(t + 8, &size, 8);
    CUresult r = load_image(t);
    free(t);
    return r;
}

static CUresult image_fatbin_bad_version(void)
{
    unsigned char *t = fatbin_copy();
    uint16_t version = 7;
    memcpy(t + 4, &version, 2);
    CUresult r = load_image(t);
    free(t);
    return r;
}

static CUresult image_wrapper_ok(void)
{
    static struct fatbin_wrapper w;
    w.magic = 0x466243B1;
    w.version = 1;
    w.data = misuse_fatbin;
    w.filename_or_fatbins = NULL;
    return load_image(&w);
}

static CUresult image_wrapper_unmapped_data(void)
{
    static struct fatbin_wrapper w;
    w.magic = 0x466243B1;
    w.version = 1;
    w.data = guard;
    w.filename_or_fatbins = NULL;
    return load_image(&w);
}

static CUresult image_wrapper_null_data(void)
{
    static struct fatbin_wrapper w;
    w.magic = 0x466243B1;
    w.version = 1;
    w.data = NULL;
    w.filename_or_fatbins = NULL;
    return load_image(&w);
}

static CUresult image_wrapper_bad_version(void)
{
    static struct fatbin_wrapper w;
    w.magic = 0x466243B1;
    w.version = 9;
    w.data = misuse_fatbin;
    w.filename_or_fatbins = NULL;
    return load_image(&w);
}

static CUresult image_elf_truncated_guarded(void)
{
    /* a 64-bit EM_CUDA ELF header whose section header table (at offset 64) lies in the guard page */
    unsigned char *t = before_guard(64);
    memset(t, 0, 64);
    memcpy(t, "\177ELF", 4);
    t[4] = 2;    /* ELFCLASS64 */
    t[5] = 1;    /* little-endian */
    t[6] = 1;    /* EV_CURRENT */
    t[7] = 0x41; /* ELFOSABI of nvcc 13's cubins */
    uint16_t type = 2, machine = 190, ehsize = 64, shentsize = 64, shnum = 8, shstrndx = 1;
    uint32_t version = 1, flags = 90u << 8;
    uint64_t shoff = 64;
    memcpy(t + 0x10, &type, 2);
    memcpy(t + 0x12, &machine, 2);
    memcpy(t + 0x14, &version, 4);
    memcpy(t + 0x28, &shoff, 8);
    memcpy(t + 0x30, &flags, 4);
    memcpy(t + 0x34, &ehsize, 2);
    memcpy(t + 0x3A, &shentsize, 2);
    memcpy(t + 0x3C, &shnum, 2);
    memcpy(t + 0x3E, &shstrndx, 2);
    return load_image(t);
}

static CUresult image_load_ex_null_options(void)
{
    CUmodule m;
    CUresult r = cuModuleLoadDataEx(&m, sample_ptx, 2, NULL, NULL);
    if (r == CUDA_SUCCESS) cuModuleUnload(m);
    return r;
}

/* host pointers the program does not own */
static CUresult wild_memcpy_htod(void) { return cuMemcpyHtoD(dbuf, guard, 256); }

static CUresult wild_memcpy_htod_partial(void) { return cuMemcpyHtoD(dbuf, before_guard(128), 256); }

static CUresult wild_memcpy_dtoh(void) { return cuMemcpyDtoH(guard, dbuf, 256); }

static CUresult null_memcpy_htod(void) { return cuMemcpyHtoD(dbuf, NULL, 256); }

/* wrong flags and values */
static CUresult flags_cuInit(void) { return cuInit(1); }

static CUresult flags_ctx_create(void)
{
    CUcontext c = NULL;
    CUresult r = cuCtxCreate(&c, NULL, 0x7fff0000u, dev);
    if (r == CUDA_SUCCESS) cuCtxDestroy(c);
    cuCtxSetCurrent(primary);
    return r;
}

static CUresult flags_stream_create(void)
{
    CUstream s = NULL;
    CUresult r = cuStreamCreate(&s, 0x80);
    if (r == CUDA_SUCCESS) cuStreamDestroy(s);
    return r;
}

static CUresult flags_event_create(void)
{
    CUevent e = NULL;
    CUresult r = cuEventCreate(&e, 0x100);
    if (r == CUDA_SUCCESS) cuEventDestroy(e);
    return r;
}

static CUresult flags_mem_host_alloc(void)
{
    void *p = NULL;
    CUresult r = cuMemHostAlloc(&p, 4096, 0x100);
    if (r == CUDA_SUCCESS) cuMemFreeHost(p);
    return r;
}

static CUresult flags_mem_alloc_managed(void)
{
    CUdeviceptr p = 0;
    CUresult r = cuMemAllocManaged(&p, 4096, 0);
    if (r == CUDA_SUCCESS) cuMemFree(p);
    return r;
}

static CUresult flags_mem_host_register(void)
{
    unsigned char *p = before_guard(page);
    CUresult r = cuMemHostRegister(p, page, 0x100);
    if (r == CUDA_SUCCESS) cuMemHostUnregister(p);
    return r;
}

static CUresult bad_pointer_attribute(void)
{
    uint64_t v;
    return cuPointerGetAttribute(&v, (CUpointer_attribute)9999, dbuf);
}

static CUresult bad_device_ordinal(void)
{
    CUdevice d;
    return cuDeviceGet(&d, 99);
}

static CUresult bad_device_attribute(void)
{
    int v;
    return cuDeviceGetAttribute(&v, (CUdevice_attribute)99999, dev);
}

static CUresult bad_function_attribute(void)
{
    int v;
    return cuFuncGetAttribute(&v, (CUfunction_attribute)999, store3);
}

static CUresult bad_ctx_limit(void) { return cuCtxSetLimit((CUlimit)999, 0); }

/* structures and arrays passed by pointer into memory that is not mapped; out-parameters there */
static CUresult struct_memcpy2d_unmapped(void) { return cuMemcpy2D((const CUDA_MEMCPY2D *)guard); }

static CUresult struct_memcpy3d_unmapped(void) { return cuMemcpy3D((const CUDA_MEMCPY3D *)guard); }

static CUresult struct_launch_config_unmapped(void)
{
    CUdeviceptr out = 0;
    int a = 1, b = 2;
    void *args[] = {&out, &a, &b};
    return cuLaunchKernelEx((const CUlaunchConfig *)guard, store3, args, NULL);
}

static CUresult struct_array_descriptor_unmapped(void)
{
    CUarray a = NULL;
    CUresult r = cuArrayCreate(&a, (const CUDA_ARRAY_DESCRIPTOR *)guard);
    if (r == CUDA_SUCCESS) cuArrayDestroy(a);
    return r;
}

static CUresult jit_options_unmapped(void)
{
    CUmodule m;
    CUresult r = cuModuleLoadDataEx(&m, sample_ptx, 2, (CUjit_option *)guard, (void **)guard);
    if (r == CUDA_SUCCESS) cuModuleUnload(m);
    return r;
}

static CUresult extra_array_unmapped(void) { return cuLaunchKernel(store3, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, (void **)guard); }

static CUresult params_element_straddles_guard(void)
{
    CUdeviceptr out = 0;
    int b = 2;
    void *args[] = {&out, before_guard(2), &b}; /* a 4-byte parameter whose last 2 bytes are in the guard page */
    return cuLaunchKernel(store3, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL);
}

static CUresult pointer_get_attributes_unmapped(void)
{
    return cuPointerGetAttributes(2, (CUpointer_attribute *)guard, (void **)guard, dbuf);
}

static CUresult out_param_unmapped_cuMemAlloc(void) { return cuMemAlloc((CUdeviceptr *)guard, 256); }

static CUresult out_param_unmapped_cuCtxGetCurrent(void) { return cuCtxGetCurrent((CUcontext *)guard); }

static CUresult out_param_unmapped_cuDeviceGetName(void) { return cuDeviceGetName((char *)guard, 64, dev); }

static CUresult host_register_unmapped(void)
{
    CUresult r = cuMemHostRegister(guard, page, 0);
    if (r == CUDA_SUCCESS) cuMemHostUnregister(guard);
    return r;
}

static CUresult wild_memcpy_dtoh_partial(void) { return cuMemcpyDtoH(before_guard(128), dbuf, 256); }

/* more frees and destroys of the wrong kind or twice */
static CUresult free_host_as_device(void)
{
    void *p;
    SETUP(cuMemAllocHost(&p, 4096));
    CUresult r = cuMemFree((CUdeviceptr)(uintptr_t)p);
    cuMemFreeHost(p);
    return r;
}

static CUresult free_device_as_host(void) { return cuMemFreeHost((void *)(uintptr_t)dbuf); }

static CUresult stream_destroy_twice(void)
{
    CUstream s;
    SETUP(cuStreamCreate(&s, 0));
    SETUP(cuStreamDestroy(s));
    return cuStreamDestroy(s);
}

static CUresult event_destroy_twice(void)
{
    CUevent e;
    SETUP(cuEventCreate(&e, 0));
    SETUP(cuEventDestroy(e));
    return cuEventDestroy(e);
}

static CUresult ctx_pop_empty(void)
{
    CUcontext c;
    SETUP(cuCtxSetCurrent(NULL));
    CUresult r = cuCtxPopCurrent(&c);
    cuCtxSetCurrent(primary);
    return r;
}

static CUresult memcpy_dtod_past_end(void) { return cuMemcpyDtoD(dbuf + 4000, dbuf, 256); }

static CUresult launch_grid_huge(void)
{
    CUdeviceptr out = 0;
    int a = 1, b = 2;
    void *args[] = {&out, &a, &b};
    return cuLaunchKernel(store3, 1, 0xFFFFFFFFu, 1, 1, 1, 1, 0, NULL, args, NULL);
}

static CUresult module_load_missing_file(void)
{
    CUmodule m;
    CUresult r = cuModuleLoad(&m, "/nonexistent/misuse.ptx");
    if (r == CUDA_SUCCESS) cuModuleUnload(m);
    return r;
}

static CUresult module_get_global_null_name(void)
{
    CUdeviceptr p;
    size_t n;
    return cuModuleGetGlobal(&p, &n, module, NULL);
}

/* wrong contexts: handles made in one context used while another is current, or after it is destroyed */
static CUresult wrong_ctx_launch(void)
{
    CUcontext c;
    CUdeviceptr out = 0;
    int a = 1, b = 2;
    void *args[] = {&out, &a, &b};
    SETUP(cuCtxCreate(&c, NULL, 0, dev)); /* current now; store3 belongs to the primary context */
    CUresult r = cuLaunchKernel(store3, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL);
    if (r == CUDA_SUCCESS) cuCtxSynchronize();
    cuCtxDestroy(c);
    cuCtxSetCurrent(primary);
    return r;
}

static CUresult wrong_ctx_stream_launch(void)
{
    CUcontext c;
    CUstream s;
    CUdeviceptr out = 0;
    int a = 1, b = 2;
    void *args[] = {&out, &a, &b};
    SETUP(cuCtxCreate(&c, NULL, 0, dev));
    SETUP(cuStreamCreate(&s, 0)); /* a stream of c */
    SETUP(cuCtxSetCurrent(primary));
    CUresult r = cuLaunchKernel(store3, 1, 1, 1, 1, 1, 1, 0, s, args, NULL);
    if (r == CUDA_SUCCESS) cuStreamSynchronize(s);
    cuCtxSetCurrent(c);
    cuStreamDestroy(s);
    cuCtxDestroy(c);
    cuCtxSetCurrent(primary);
    return r;
}

static CUresult wrong_ctx_event_record(void)
{
    CUcontext c;
    CUevent e;
    SETUP(cuCtxCreate(&c, NULL, 0, dev));
    SETUP(cuEventCreate(&e, 0)); /* an event of c */
    SETUP(cuCtxSetCurrent(primary));
    CUresult r = cuEventRecord(e, NULL); /* on the primary context's NULL stream */
    if (r == CUDA_SUCCESS) cuEventSynchronize(e);
    cuCtxSetCurrent(c);
    cuEventDestroy(e);
    cuCtxDestroy(c);
    cuCtxSetCurrent(primary);
    return r;
}

static CUresult wrong_ctx_mem_free(void)
{
    CUcontext c;
    CUdeviceptr p;
    SETUP(cuCtxCreate(&c, NULL, 0, dev));
    SETUP(alloc(&p, 4096)); /* memory of c */
    SETUP(cuCtxSetCurrent(primary));
    CUresult r = cuMemFree(p);
    cuCtxDestroy(c);
    cuCtxSetCurrent(primary);
    return r;
}

static CUresult wrong_ctx_memcpy_dtod(void)
{
    CUcontext c;
    CUdeviceptr p;
    SETUP(cuCtxCreate(&c, NULL, 0, dev));
    SETUP(alloc(&p, 4096)); /* memory of c */
    SETUP(cuCtxSetCurrent(primary));
    CUresult r = cuMemcpyDtoD(dbuf, p, 256);
    cuCtxDestroy(c);
    cuCtxSetCurrent(primary);
    return r;
}

static CUresult wrong_ctx_module_unload(void)
{
    CUcontext c;
    CUmodule m;
    SETUP(cuCtxCreate(&c, NULL, 0, dev));
    SETUP(cuModuleLoadData(&m, sample_ptx)); /* a module of c */
    SETUP(cuCtxSetCurrent(primary));
    CUresult r = cuModuleUnload(m);
    cuCtxDestroy(c);
    cuCtxSetCurrent(primary);
    return r;
}

static CUresult destroyed_ctx_stream_synchronize(void)
{
    CUcontext c;
    CUstream s;
    SETUP(cuCtxCreate(&c, NULL, 0, dev));
    SETUP(cuStreamCreate(&s, 0));
    SETUP(cuCtxDestroy(c));
    SETUP(cuCtxSetCurrent(primary));
    return cuStreamSynchronize(s);
}

static CUresult destroyed_ctx_memcpy_htod(void)
{
    static unsigned char host[256];
    CUcontext c;
    CUdeviceptr p;
    SETUP(cuCtxCreate(&c, NULL, 0, dev));
    SETUP(alloc(&p, 4096)); /* freed with c */
    SETUP(cuCtxDestroy(c));
    SETUP(cuCtxSetCurrent(primary));
    return cuMemcpyHtoD(p, host, sizeof host);
}

static CUresult destroyed_ctx_module_get_function(void)
{
    CUcontext c;
    CUmodule m;
    CUfunction f;
    SETUP(cuCtxCreate(&c, NULL, 0, dev));
    SETUP(cuModuleLoadData(&m, sample_ptx)); /* unloaded with c */
    SETUP(cuCtxDestroy(c));
    SETUP(cuCtxSetCurrent(primary));
    return cuModuleGetFunction(&f, m, "store3");
}

/* cuPointerGetAttribute on host pointers the driver does not know, and on the edges of device memory */
static CUresult ptr_attr_host_malloc(void)
{
    unsigned int type = 0;
    void *p = malloc(256);
    CUresult r = cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, (CUdeviceptr)(uintptr_t)p);
    free(p);
    return r;
}

static CUresult ptr_attr_host_stack(void)
{
    unsigned int type = 0;
    volatile unsigned char local[64] = {0};
    return cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, (CUdeviceptr)(uintptr_t)local);
}

static CUresult ptr_attr_unmapped(void)
{
    unsigned int type = 0;
    return cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, (CUdeviceptr)(uintptr_t)guard);
}

static CUresult ptr_attr_null(void)
{
    unsigned int type = 0;
    return cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, 0);
}

static CUresult ptr_attr_host_malloc_context(void)
{
    CUcontext c = NULL;
    void *p = malloc(256);
    CUresult r = cuPointerGetAttribute(&c, CU_POINTER_ATTRIBUTE_CONTEXT, (CUdeviceptr)(uintptr_t)p);
    free(p);
    return r;
}

static CUresult ptr_attr_host_malloc_device_pointer(void)
{
    CUdeviceptr d = 0;
    void *p = malloc(256);
    CUresult r = cuPointerGetAttribute(&d, CU_POINTER_ATTRIBUTE_DEVICE_POINTER, (CUdeviceptr)(uintptr_t)p);
    free(p);
    return r;
}

static CUresult ptr_attrs_host_malloc(void)
{
    unsigned int type = 0;
    CUpointer_attribute attrs[] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE};
    void *data[] = {&type};
    void *p = malloc(256);
    CUresult r = cuPointerGetAttributes(1, attrs, data, (CUdeviceptr)(uintptr_t)p);
    free(p);
    return r;
}

static CUresult ptr_attr_pinned_host(void)
{
    unsigned int type = 0;
    void *p;
    SETUP(cuMemAllocHost(&p, 4096));
    CUresult r = cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, (CUdeviceptr)(uintptr_t)p);
    cuMemFreeHost(p);
    return r;
}

static CUresult ptr_attr_freed_pinned_host(void)
{
    unsigned int type = 0;
    void *p;
    SETUP(cuMemAllocHost(&p, 4096));
    SETUP(cuMemFreeHost(p));
    return cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, (CUdeviceptr)(uintptr_t)p);
}

static CUresult ptr_attr_registered_host(void)
{
    unsigned int type = 0;
    unsigned char *p = before_guard(page);
    SETUP(cuMemHostRegister(p, page, 0));
    CUresult r = cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, (CUdeviceptr)(uintptr_t)p);
    cuMemHostUnregister(p);
    return r;
}

static CUresult ptr_attr_device_interior(void)
{
    unsigned int type = 0;
    return cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, dbuf + 100);
}

static CUresult ptr_attr_device_range_size(void)
{
    size_t size = 0;
    return cuPointerGetAttribute(&size, CU_POINTER_ATTRIBUTE_RANGE_SIZE, dbuf + 100);
}

/* ranges that run past the end of an allocation, sizes that do not fit */
static CUresult memset_d8_past_end(void) { return cuMemsetD8(dbuf + 4000, 0, 256); }

static CUresult memcpy_htod_past_end(void)
{
    static unsigned char host[256];
    return cuMemcpyHtoD(dbuf + 4000, host, sizeof host);
}

static CUresult memcpy_dtoh_past_end(void)
{
    static unsigned char host[256];
    return cuMemcpyDtoH(host, dbuf + 4000, sizeof host);
}

static CUresult memset_d32_unaligned(void) { return cuMemsetD32(dbuf + 2, 0, 16); }

static CUresult mem_alloc_pitch_bad_element_size(void)
{
    CUdeviceptr p = 0;
    size_t pitch;
    CUresult r = cuMemAllocPitch(&p, &pitch, 64, 4, 3);
    if (r == CUDA_SUCCESS) cuMemFree(p);
    return r;
}

static CUresult mem_alloc_pitch_zero_height(void)
{
    CUdeviceptr p = 0;
    size_t pitch;
    CUresult r = cuMemAllocPitch(&p, &pitch, 64, 0, 4);
    if (r == CUDA_SUCCESS && p != 0) cuMemFree(p);
    return r;
}

static CUresult mem_alloc_pitch_null_pitch(void)
{
    CUdeviceptr p = 0;
    CUresult r = cuMemAllocPitch(&p, NULL, 64, 4, 4);
    if (r == CUDA_SUCCESS) cuMemFree(p);
    return r;
}

static CUresult memcpy2d_pitch_below_width(void)
{
    static unsigned char host[256];
    CUDA_MEMCPY2D c;
    memset(&c, 0, sizeof c);
    c.srcMemoryType = CU_MEMORYTYPE_HOST;
    c.srcHost = host;
    c.srcPitch = 8; /* below WidthInBytes */
    c.dstMemoryType = CU_MEMORYTYPE_DEVICE;
    c.dstDevice = dbuf;
    c.dstPitch = 16;
    c.WidthInBytes = 16;
    c.Height = 4;
    return cuMemcpy2D(&c);
}

static const struct misuse_case {
    const char *name;
    CUresult (*run)(void);
} cases[] = {
#define CASE(f) {#f, f}
    CASE(null_out_cuDeviceGet),
    CASE(null_out_cuDeviceGetName),
    CASE(null_out_cuCtxCreate),
    CASE(null_out_cuCtxGetCurrent),
    CASE(null_out_cuMemAlloc),
    CASE(null_out_cuMemGetInfo),
    CASE(null_out_cuModuleLoadData),
    CASE(null_out_cuModuleGetFunction),
    CASE(null_out_cuStreamCreate),
    CASE(null_out_cuEventCreate),
    CASE(null_out_cuPointerGetAttribute),
    CASE(destroyed_ctx_set_current),
    CASE(destroyed_ctx_mem_alloc),
    CASE(destroyed_ctx_destroy_again),
    CASE(destroyed_ctx_push),
    CASE(destroyed_ctx_get_api_version),
    CASE(double_free_mem),
    CASE(freed_ptr_memcpy_htod),
    CASE(freed_ptr_memset),
    CASE(freed_ptr_get_attribute),
    CASE(interior_ptr_free),
    CASE(double_free_host),
    CASE(free_unknown_ptr),
    CASE(huge_mem_alloc),
    CASE(huge_mem_alloc_size_max),
    CASE(zero_mem_alloc),
    CASE(huge_mem_alloc_pitch),
    CASE(huge_mem_alloc_pitch_width),
    CASE(huge_mem_alloc_host),
    CASE(huge_memset_d32),
    CASE(huge_memset_d2d8),
    CASE(huge_memcpy_htod),
    CASE(huge_memcpy2d_pitch),
    CASE(huge_array_create),
    CASE(huge_launch_shared),
    CASE(huge_host_register),
    CASE(bad_module_handle),
    CASE(unloaded_module_get_function),
    CASE(unloaded_module_unload_again),
    CASE(unknown_function_name),
    CASE(bad_function_launch),
    CASE(null_function_launch),
    CASE(unloaded_function_launch),
    CASE(bad_function_get_attribute),
    CASE(bad_stream_synchronize),
    CASE(destroyed_stream_query),
    CASE(bad_stream_launch),
    CASE(bad_event_record),
    CASE(null_event_record),
    CASE(destroyed_event_synchronize),
    CASE(destroyed_event_elapsed),
    CASE(params_missing),
    CASE(params_null_element),
    CASE(params_short_array_guarded),
    CASE(params_element_unmapped),
    CASE(params_array_unmapped),
    CASE(params_and_extra),
    CASE(extra_buffer_too_small),
    CASE(launch_block_too_large),
    CASE(launch_grid_zero),
    CASE(image_null),
    CASE(image_empty),
    CASE(image_garbage),
    CASE(image_ptx_truncated),
    CASE(image_ptx_unterminated_guarded),
    CASE(image_fatbin_ok),
    CASE(image_fatbin_truncated_guarded),
    CASE(image_fatbin_entry_past_end),
    CASE(image_fatbin_size_huge),
    CASE(image_fatbin_bad_version),
    CASE(image_wrapper_ok),
    CASE(image_wrapper_unmapped_data),
    CASE(image_wrapper_null_data),
    CASE(image_wrapper_bad_version),
    CASE(image_elf_truncated_guarded),
    CASE(image_load_ex_null_options),
    CASE(wild_memcpy_htod),
    CASE(wild_memcpy_htod_partial),
    CASE(wild_memcpy_dtoh),
    CASE(null_memcpy_htod),
    CASE(flags_cuInit),
    CASE(flags_ctx_create),
    CASE(flags_stream_create),
    CASE(flags_event_create),
    CASE(flags_mem_host_alloc),
    CASE(flags_mem_alloc_managed),
    CASE(flags_mem_host_register),
    CASE(bad_pointer_attribute),
    CASE(bad_device_ordinal),
    CASE(bad_device_attribute),
    CASE(bad_function_attribute),
    CASE(bad_ctx_limit),
    CASE(struct_memcpy2d_unmapped),
    CASE(struct_memcpy3d_unmapped),
    CASE(struct_launch_config_unmapped),
    CASE(struct_array_descriptor_unmapped),
    CASE(jit_options_unmapped),
    CASE(extra_array_unmapped),
    CASE(params_element_straddles_guard),
    CASE(pointer_get_attributes_unmapped),
    CASE(out_param_unmapped_cuMemAlloc),
    CASE(out_param_unmapped_cuCtxGetCurrent),
    CASE(out_param_unmapped_cuDeviceGetName),
    CASE(host_register_unmapped),
    CASE(wild_memcpy_dtoh_partial),
    CASE(free_host_as_device),
    CASE(free_device_as_host),
    CASE(stream_destroy_twice),
    CASE(event_destroy_twice),
    CASE(ctx_pop_empty),
    CASE(memcpy_dtod_past_end),
    CASE(launch_grid_huge),
    CASE(module_load_missing_file),
    CASE(module_get_global_null_name),
    CASE(wrong_ctx_launch),
    CASE(wrong_ctx_stream_launch),
    CASE(wrong_ctx_event_record),
    CASE(wrong_ctx_mem_free),
    CASE(wrong_ctx_memcpy_dtod),
    CASE(wrong_ctx_module_unload),
    CASE(destroyed_ctx_stream_synchronize),
    CASE(destroyed_ctx_memcpy_htod),
    CASE(destroyed_ctx_module_get_function),
    CASE(ptr_attr_host_malloc),
    CASE(ptr_attr_host_stack),
    CASE(ptr_attr_unmapped),
    CASE(ptr_attr_null),
    CASE(ptr_attr_host_malloc_context),
    CASE(ptr_attr_host_malloc_device_pointer),
    CASE(ptr_attrs_host_malloc),
    CASE(ptr_attr_pinned_host),
    CASE(ptr_attr_freed_pinned_host),
    CASE(ptr_attr_registered_host),
    CASE(ptr_attr_device_interior),
    CASE(ptr_attr_device_range_size),
    CASE(memset_d8_past_end),
    CASE(memcpy_htod_past_end),
    CASE(memcpy_dtoh_past_end),
    CASE(memset_d32_unaligned),
    CASE(mem_alloc_pitch_bad_element_size),
    CASE(mem_alloc_pitch_zero_height),
    CASE(mem_alloc_pitch_null_pitch),
    CASE(memcpy2d_pitch_below_width),
#undef CASE
};
#define NCASES ((int)(sizeof cases / sizeof cases[0]))

/* ------------------------------------------------------------------------------------------------
 * The worker: a child process that sets up once and runs cases, telling the parent through a pipe:
 *   "V <driver version> <device name>"   once, after set-up
 *   "B <i>"                              case i begins
 *   "R <i> <code> <name>"                case i returned
 *   "F <i> <call> <code> <name>"         a set-up call of case i failed
 *   "P <code> <name>"                    the context is unusable after the last case: this worker stops
 */
static FILE *to_parent;

static const char *error_name(CUresult r)
{
    const char *n = NULL;
    if (cuGetErrorName(r, &n) != CUDA_SUCCESS || n == NULL) return "(unnamed)";
    return n;
}

static int worker_setup(void)
{
    CUresult r;
    int version = 0;
    char name[256] = "?";
    page = (size_t)sysconf(_SC_PAGESIZE);
    unsigned char *two = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (two == MAP_FAILED || mprotect(two + page, page, PROT_NONE) != 0) {
        fprintf(to_parent, "S mmap %d\n", errno);
        return 0;
    }
    guard = two + page;
#define WSETUP(call)                                                                              \
    if ((r = (call)) != CUDA_SUCCESS) {                                                         \
        fprintf(to_parent, "S %s %d %s\n", #call, (int)r, error_name(r));                       \
        return 0;                                                                                 \
    }
    WSETUP(cuInit(0));
    WSETUP(cuDriverGetVersion(&version));
    WSETUP(cuDeviceGet(&dev, 0));
    WSETUP(cuDeviceGetName(name, (int)sizeof name, dev));
    WSETUP(cuDevicePrimaryCtxRetain(&primary, dev));
    WSETUP(cuCtxSetCurrent(primary));
    WSETUP(cuModuleLoadData(&module, sample_ptx));
    WSETUP(cuModuleGetFunction(&store3, module, "store3"));
    WSETUP(cuMemAlloc(&dbuf, 4096));
#undef WSETUP
    fprintf(to_parent, "V %d %s\n", version, name);
    return 1;
}

static void worker(int fd, int first, int last)
{
    to_parent = fdopen(fd, "w");
    setvbuf(to_parent, NULL, _IOLBF, 0);
    if (!worker_setup()) _exit(3);
    for (int i = first; i <= last; i++) {
        fprintf(to_parent, "B %d\n", i);
        setup_result = CUDA_SUCCESS;
        CUresult r = cases[i].run();
        if ((int)r == SETUP_FAILED) fprintf(to_parent, "F %d %d %s\n", i, (int)setup_result, error_name(setup_result));
        else fprintf(to_parent, "R %d %d %s\n", i, (int)r, error_name(r));
        /* the next case starts from the primary context, healthy */
        CUresult s = cuCtxSetCurrent(primary);
        if (s == CUDA_SUCCESS) s = cuCtxSynchronize();
        if (s != CUDA_SUCCESS) {
            fprintf(to_parent, "P %d %s\n", (int)s, error_name(s));
            _exit(0);
        }
    }
    _exit(0);
}

/* ------------------------------------------------------------------------------------------------
 * The parent: runs workers, never calls the driver.
 */
static char results[NCASES][160];
static char header[320];

struct running {
    pid_t pid;
    int fd;
    int first, last; /* the cases it was given */
    int current;     /* the case begun and not ended, or -1 */
    int next;        /* the first case it has not begun */
    double started;  /* when the current case began */
    char buf[1024];
    size_t len;
};

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static int start(struct running *w, int first, int last)
{
    int p[2];
    if (pipe(p) != 0) return 0;
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) return 0;
    if (pid == 0) {
        close(p[0]);
        worker(p[1], first, last);
    }
    close(p[1]);
    memset(w, 0, sizeof *w);
    w->pid = pid;
    w->fd = p[0];
    w->first = first;
    w->last = last;
    w->current = -1;
    w->next = first;
    w->started = now();
    return 1;
}

static void line_from(struct running *w, char *line)
{
    int i, code;
    char name[128], call[256];
    if (line[0] == 'V' && header[0] == 0) {
        snprintf(header, sizeof header, "# driver version %s", line + 2);
    } else if (sscanf(line, "B %d", &i) == 1) {
        w->current = i;
        w->next = i + 1;
        w->started = now();
    } else if (sscanf(line, "R %d %d %127s", &i, &code, name) == 3 && i >= 0 && i < NCASES) {
        snprintf(results[i], sizeof results[i], "%s %d", name, code);
        w->current = -1;
    } else if (sscanf(line, "F %d %d %127s", &i, &code, name) == 3 && i >= 0 && i < NCASES) {
        snprintf(results[i], sizeof results[i], "setup-failed %s %d", name, code);
        w->current = -1;
    } else if (line[0] == 'S') {
        /* set-up of the worker failed: the case it was to run first cannot run */
        if (sscanf(line, "S %255s %d %127s", call, &code, name) == 3 && w->next <= w->last) {
            snprintf(results[w->next], sizeof results[w->next], "setup-failed %s %d", name, code);
            w->next++;
        }
    }
}

/* Reads what a worker said; returns 0 at end of file. */
static int drain(struct running *w)
{
    ssize_t n = read(w->fd, w->buf + w->len, sizeof w->buf - 1 - w->len);
    if (n <= 0) return 0;
    w->len += (size_t)n;
    w->buf[w->len] = 0;
    char *start = w->buf, *nl;
    while ((nl = strchr(start, '\n')) != NULL) {
        *nl = 0;
        line_from(w, start);
        start = nl + 1;
    }
    w->len = strlen(start);
    memmove(w->buf, start, w->len + 1);
    return 1;
}

static const char *signal_name(int sig)
{
    switch (sig) {
    case SIGSEGV: return "SIGSEGV";
    case SIGBUS: return "SIGBUS";
    case SIGABRT: return "SIGABRT";
    case SIGILL: return "SIGILL";
    case SIGFPE: return "SIGFPE";
    case SIGKILL: return "SIGKILL";
    case SIGTRAP: return "SIGTRAP";
    default: return "SIG?";
    }
}

/* The worker ended (or was killed): record what its current case did; returns the first case not begun. */
static int finish(struct running *w, int killed, int late, double timeout)
{
    int status = 0;
    while (drain(w)) {}
    close(w->fd);
    waitpid(w->pid, &status, 0);
    if (w->current >= 0 && results[w->current][0] == 0) {
        if (killed && late) snprintf(results[w->current], sizeof results[w->current], "not-run - 0");
        else if (killed) snprintf(results[w->current], sizeof results[w->current], "hung - %.0f", timeout);
        else if (WIFSIGNALED(status)) {
            snprintf(results[w->current], sizeof results[w->current], "crashed %s %d", signal_name(WTERMSIG(status)), WTERMSIG(status));
        } else {
            snprintf(results[w->current], sizeof results[w->current], "exited - %d", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
        }
    } else if (w->next == w->first && w->first <= w->last && results[w->first][0] == 0) {
        /* the worker never began its first case (its set-up hung or crashed): that case is lost, not retried */
        if (killed && late) snprintf(results[w->first], sizeof results[w->first], "not-run - 0");
        else if (killed) snprintf(results[w->first], sizeof results[w->first], "hung-in-setup - %.0f", timeout);
        else if (WIFSIGNALED(status)) snprintf(results[w->first], sizeof results[w->first], "crashed-in-setup %s %d", signal_name(WTERMSIG(status)), WTERMSIG(status));
        else snprintf(results[w->first], sizeof results[w->first], "setup-failed - %d", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
        w->next = w->first + 1;
    }
    return w->next;
}

int main(int argc, char **argv)
{
    int jobs = 1, isolate = 0;
    double timeout = 20, deadline = 0;
    static int selected[NCASES];
    int nselected = 0;
    setvbuf(stdout, NULL, _IOLBF, 0);
    for (int a = 1; a < argc; a++) {
        if (strcmp(argv[a], "-j") == 0 && a + 1 < argc) {
            jobs = atoi(argv[++a]);
            if (jobs < 1 || jobs > 64) jobs = 1;
        } else if (strcmp(argv[a], "--isolate") == 0) {
            isolate = 1;
        } else if (strcmp(argv[a], "--timeout") == 0 && a + 1 < argc) {
            timeout = atof(argv[++a]);
        } else if (strcmp(argv[a], "--deadline") == 0 && a + 1 < argc) {
            deadline = atof(argv[++a]);
        } else if (strcmp(argv[a], "--list") == 0) {
            for (int i = 0; i < NCASES; i++) printf("%s\n", cases[i].name);
            return 0;
        } else {
            int found = 0;
            for (int i = 0; i < NCASES; i++) {
                if (strcmp(argv[a], cases[i].name) == 0) {
                    selected[i] = 1;
                    found = 1;
                    nselected++;
                }
            }
            if (!found) {
                printf("usage: %s [-j N] [--isolate] [--timeout S] [--deadline S] [--list] [case...]\n  unknown case or option '%s'\n", argv[0], argv[a]);
                return 2;
            }
        }
    }
    if (!isolate) jobs = 1;
    signal(SIGPIPE, SIG_IGN);
    /* the queue: single cases (isolated, or selected by name) or runs of consecutive cases */
    int next = 0;
    struct running run[64];
    int active = 0;
    double begun = now();
    for (;;) {
        int late = deadline > 0 && now() - begun > deadline;
        while (active < jobs && !late) {
            while (next < NCASES && ((nselected && !selected[next]) || results[next][0] != 0)) next++;
            if (next >= NCASES) break;
            int last = next;
            if (!isolate) {
                while (last + 1 < NCASES && (!nselected || selected[last + 1])) last++;
            }
            if (!start(&run[active], next, last)) {
                printf("misuse: cannot start a worker: %s\n", strerror(errno));
                return 2;
            }
            active++;
            next = last + 1;
        }
        if (active == 0) break;
        struct pollfd fds[64];
        for (int k = 0; k < active; k++) {
            fds[k].fd = run[k].fd;
            fds[k].events = POLLIN;
            fds[k].revents = 0;
        }
        poll(fds, (nfds_t)(active > 0 ? active : 0), 200);
        for (int k = 0; k < active; k++) {
            struct running *w = &run[k];
            int ended = 0, killed = 0;
            if (fds[k].revents & (POLLIN | POLLHUP | POLLERR)) {
                if (!drain(w)) ended = 1;
            }
            if (!ended && (now() - w->started > timeout || late)) {
                kill(w->pid, SIGKILL);
                ended = killed = 1;
            }
            if (!ended) continue;
            int resume = finish(w, killed, late, timeout);
            /* a run of cases cut short goes on in a new worker, from the first case it did not begin */
            if (!isolate && resume <= w->last && !late) next = resume < next ? resume : next;
            run[k] = run[active - 1];
            fds[k] = fds[active - 1];
            active--;
            k--;
        }
    }
    printf("# misuse: %d cases; <case> <CUresult name> <code> | crashed <signal> <signo> | hung - <seconds> | setup-failed <name> <code>\n", NCASES);
    printf("%s\n", header[0] ? header : "# driver version unknown (no worker finished its set-up)");
    int missing = 0;
    for (int i = 0; i < NCASES; i++) {
        if (nselected && !selected[i]) continue;
        if (results[i][0] == 0) {
            snprintf(results[i], sizeof results[i], "not-run - 0");
            missing++;
        }
        printf("%-34s %s\n", cases[i].name, results[i]);
    }
    return missing ? 1 : 0;
}

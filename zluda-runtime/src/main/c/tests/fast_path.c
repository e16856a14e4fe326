/*
 * fast_path: the answers of cuCtxGetCurrent and cuCtxGetDevice, which libcuda.so.1 gives in C while the Java driver's
 * published answer holds (entry.c, fast_call), must be the driver's own in every state the answer depends on: before
 * cuInit, without a current context, per thread, after a context is destroyed or its current context changed by the
 * thread itself, after another thread destroyed the context a thread still has current, and after a kernel fault
 * (sticky error) on another thread. Every check calls each function twice in a row: the first answer comes from Java,
 * the second from C. Prints one line per check and "N passed, M failed"; exit 0 only if all pass. It also prints the
 * number of calls of each function it made ("calls: cuCtxGetCurrent N cuCtxGetDevice M"), which a capture of the run
 * must hold (NativeFastPathTest).
 * Usage: fast_path PATH/TO/libcuda.so.1
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static int passed, failed;
#define CHECK(cond, ...) do { if (cond) { passed++; printf("ok   "); } else { failed++; printf("FAIL "); } printf(__VA_ARGS__); printf("\n"); } while (0)

typedef void *CUcontext;
static int (*cuInit)(unsigned);
static int (*cuCtxGetCurrent_)(CUcontext *);
static int (*cuCtxGetDevice_)(int *);
static int (*cuCtxCreate)(CUcontext *, unsigned, int);
static int (*cuCtxDestroy)(CUcontext);
static int (*cuCtxSetCurrent)(CUcontext);
static int (*cuCtxPushCurrent)(CUcontext);
static int (*cuCtxPopCurrent)(CUcontext *);
static int (*cuDevicePrimaryCtxRetain)(CUcontext *, int);
static int (*cuModuleLoadData)(void **, const void *);
static int (*cuModuleGetFunction)(void **, void *, const char *);
static int (*cuLaunchKernel)(void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, void *, void **, void **);
static int (*cuCtxSynchronize)(void);
static long get_current_calls, get_device_calls;

static int cuCtxGetCurrent(CUcontext *c) { get_current_calls++; return cuCtxGetCurrent_(c); }
static int cuCtxGetDevice(int *d) { get_device_calls++; return cuCtxGetDevice_(d); }

/* cuCtxGetCurrent twice (Java, then C): both must return `result` and, on success, `want`. */
static void current_is(int result, CUcontext want, const char *what) {
    for (int k = 0; k < 2; k++) {
        CUcontext c = (CUcontext)0x1234;
        int r = cuCtxGetCurrent(&c);
        CHECK(r == result && (r != 0 || c == want), "%s: cuCtxGetCurrent (call %d) -> %d, %p (want %d, %p)", what, k + 1, r, c, result, want);
    }
}

/* cuCtxGetDevice twice: both must return `result` (and device 0 on success). */
static void device_is(int result, const char *what) {
    for (int k = 0; k < 2; k++) {
        int d = -7;
        int r = cuCtxGetDevice(&d);
        CHECK(r == result && (r != 0 || d == 0), "%s: cuCtxGetDevice (call %d) -> %d, device %d (want %d)", what, k + 1, r, d, result);
    }
}

static CUcontext shared_ctx;
static void *other_thread(void *arg) {
    (void)arg;
    current_is(0, NULL, "a new thread has no current context");
    device_is(201, "a new thread");
    cuCtxSetCurrent(shared_ctx);
    current_is(0, shared_ctx, "a new thread after cuCtxSetCurrent");
    device_is(0, "a new thread after cuCtxSetCurrent");
    int r = cuCtxDestroy(shared_ctx);
    CHECK(r == 0, "another thread destroys the main thread's current context -> %d", r);
    return NULL;
}

/* a kernel that stores to address 0: CUDA_ERROR_ILLEGAL_ADDRESS, the context's sticky error */
static const char *FAULT_PTX =
    ".version 7.0\n.target sm_52\n.address_size 64\n"
    ".visible .entry fault()\n{\n.reg .b64 %rd<2>;\n.reg .b32 %r<2>;\nmov.u64 %rd1, 0;\nmov.u32 %r1, 1;\n"
    "st.global.u32 [%rd1], %r1;\nret;\n}\n";
static CUcontext primary;
static void *faulting_thread(void *arg) {
    (void)arg;
    cuCtxSetCurrent(primary);
    void *m = NULL, *f = NULL;
    int r = cuModuleLoadData(&m, FAULT_PTX);
    if (r == 0) r = cuModuleGetFunction(&f, m, "fault");
    if (r == 0) r = cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL);
    int s = cuCtxSynchronize();
    CHECK(r == 700 || s == 700, "another thread's kernel faults: launch -> %d, synchronize -> %d (700 expected from one)", r, s);
    return NULL;
}

#define SYM(v, name) do { *(void **)&v = dlsym(h, name); if (!v) { printf("FAIL no %s\n0 passed, 1 failed\n", name); return 1; } } while (0)

int main(int argc, char **argv) {
    const char *lib = argc > 1 ? argv[1] : "libcuda.so.1";
    void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    if (!h) { printf("FAIL dlopen %s: %s\n0 passed, 1 failed\n", lib, dlerror()); return 1; }
    SYM(cuInit, "cuInit"); SYM(cuCtxGetCurrent_, "cuCtxGetCurrent"); SYM(cuCtxGetDevice_, "cuCtxGetDevice");
    SYM(cuCtxCreate, "cuCtxCreate_v2"); SYM(cuCtxDestroy, "cuCtxDestroy_v2"); SYM(cuCtxSetCurrent, "cuCtxSetCurrent");
    SYM(cuCtxPushCurrent, "cuCtxPushCurrent_v2"); SYM(cuCtxPopCurrent, "cuCtxPopCurrent_v2");
    SYM(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain"); SYM(cuModuleLoadData, "cuModuleLoadData");
    SYM(cuModuleGetFunction, "cuModuleGetFunction"); SYM(cuLaunchKernel, "cuLaunchKernel"); SYM(cuCtxSynchronize, "cuCtxSynchronize");

    current_is(3, NULL, "before cuInit");
    device_is(3, "before cuInit");
    CHECK(cuInit(0) == 0, "cuInit");
    current_is(0, NULL, "no context yet");
    device_is(201, "no context yet");
    int r = cuCtxGetCurrent(NULL);
    CHECK(r == 1, "cuCtxGetCurrent(NULL) -> %d (CUDA_ERROR_INVALID_VALUE)", r);
    CUcontext a = NULL, b = NULL, popped = NULL;
    CHECK(cuCtxCreate(&a, 0, 0) == 0, "cuCtxCreate a");
    current_is(0, a, "after cuCtxCreate a");
    device_is(0, "after cuCtxCreate a");
    r = cuCtxGetDevice(NULL);
    CHECK(r == 1, "cuCtxGetDevice(NULL) -> %d (CUDA_ERROR_INVALID_VALUE)", r);
    CHECK(cuCtxCreate(&b, 0, 0) == 0, "cuCtxCreate b");
    current_is(0, b, "after cuCtxCreate b");
    CHECK(cuCtxPopCurrent(&popped) == 0 && popped == b, "cuCtxPopCurrent -> b");
    current_is(0, a, "after popping b");
    CHECK(cuCtxPushCurrent(b) == 0, "cuCtxPushCurrent b");
    current_is(0, b, "after pushing b");
    CHECK(cuCtxDestroy(b) == 0, "cuCtxDestroy b (current)");
    current_is(0, a, "after destroying the current b");

    /* another thread destroys a, the main thread's current context: the main thread's next answers must see it */
    shared_ctx = a;
    current_is(0, a, "main thread before the other thread");
    pthread_t t;
    pthread_create(&t, NULL, other_thread, NULL);
    pthread_join(t, NULL);
    current_is(0, NULL, "after another thread destroyed the main thread's current context");
    device_is(201, "after another thread destroyed the main thread's current context");

    /* a sticky error left by another thread's kernel in the context current here */
    CHECK(cuDevicePrimaryCtxRetain(&primary, 0) == 0, "cuDevicePrimaryCtxRetain");
    CHECK(cuCtxSetCurrent(primary) == 0, "cuCtxSetCurrent primary");
    current_is(0, primary, "primary current");
    device_is(0, "primary current, no fault yet");
    pthread_create(&t, NULL, faulting_thread, NULL);
    pthread_join(t, NULL);
    current_is(0, primary, "primary current after the fault");
    device_is(700, "primary current after another thread's kernel faulted");

    printf("calls: cuCtxGetCurrent %ld cuCtxGetDevice %ld\n", get_current_calls, get_device_calls);
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}

// Shared by the runtime-API samples: error checks and the PASS/FAIL verdict (samples/README.md).
#pragma once
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

static int g_failures = 0;

// A runtime call that must succeed: on failure print the error and where, exit 2.
#define CHECK(call)                                                                              \
    do {                                                                                         \
        cudaError_t e_ = (call);                                                                 \
        if (e_ != cudaSuccess) {                                                                 \
            printf("ERROR: %s failed: %s (%d) at %s:%d\n", #call, cudaGetErrorName(e_), (int)e_, \
                   __FILE__, __LINE__);                                                          \
            exit(2);                                                                             \
        }                                                                                        \
    } while (0)

// A result check: on failure print what differs and count it.
#define EXPECT(cond, ...)                  \
    do {                                   \
        if (!(cond)) {                     \
            g_failures++;                  \
            printf("FAIL: " __VA_ARGS__);  \
            printf("\n");                  \
        }                                  \
    } while (0)

// Line-buffered stdout, so nothing printed is lost if the process dies.
static void start(const char *name) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    printf("%s: device 0: %s (compute capability %d.%d)\n", name, prop.name, prop.major, prop.minor);
}

// Prints PASS (exit 0) or FAIL (exit 1).
static int finish(const char *name) {
    if (g_failures) {
        printf("%s: %d check(s) failed\nFAIL\n", name, g_failures);
        return 1;
    }
    printf("PASS\n");
    return 0;
}

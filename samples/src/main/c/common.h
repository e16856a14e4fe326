/*
 * Shared helpers of the zluda driver-API samples: CUresult checking, the PTX image, context
 * set-up, deterministic test data and argument parsing. Header-only; each sample is one .c file.
 *
 * Conventions of every sample:
 *   - one line at start with the kernel launch shape and sizes;
 *   - `PASS` (exit 0), or `FAIL: <what differs>` (exit 1) when the result differs from the CPU
 *     reference;
 *   - a CUDA call that fails unexpectedly prints `ERROR: <call> failed: <CUDA_ERROR_NAME> (<code>)`
 *     and exits 2; bad usage exits 2 too.
 * Everything goes to stdout, line-buffered, so a crash inside the driver loses nothing printed.
 */
#ifndef ZLUDA_SAMPLES_COMMON_H
#define ZLUDA_SAMPLES_COMMON_H

#include <cuda.h>

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXIT_PASS 0
#define EXIT_FAIL 1
#define EXIT_ERROR 2

/* The PTX of this sample, embedded at build time by ptx_embed.S (NUL-terminated). */
extern const char sample_ptx[];

/* cuGetErrorName, or a placeholder when the driver cannot name the code. */
static inline const char *cu_error_name(CUresult r)
{
    const char *name = NULL;
    if (cuGetErrorName(r, &name) != CUDA_SUCCESS || name == NULL) {
        return "(unnamed CUresult)";
    }
    return name;
}

static inline void cu_fail(const char *call, CUresult r, const char *file, int line)
{
    printf("ERROR: %s failed: %s (%d) at %s:%d\n", call, cu_error_name(r), (int)r, file, line);
    fflush(stdout);
    exit(EXIT_ERROR);
}

/* Checks one CUresult: anything but CUDA_SUCCESS prints the call and the error name, exits 2. */
#define CHECK(call)                                     \
    do {                                                \
        CUresult check_r_ = (call);                     \
        if (check_r_ != CUDA_SUCCESS) {                 \
            cu_fail(#call, check_r_, __FILE__, __LINE__); \
        }                                               \
    } while (0)

static inline void sample_start(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
}

/* Where the PTX comes from: the embedded image, or the file named by $SAMPLE_PTX (for trying a
 * changed PTX without rebuilding). Returns a NUL-terminated string; *origin describes it. */
static inline const char *sample_ptx_image(const char **origin)
{
    const char *path = getenv("SAMPLE_PTX");
    if (path == NULL || *path == '\0') {
        *origin = "embedded";
        return sample_ptx;
    }
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        printf("ERROR: cannot open SAMPLE_PTX=%s: %s\n", path, strerror(errno));
        exit(EXIT_ERROR);
    }
    size_t cap = 1 << 16, len = 0, got;
    char *buf = malloc(cap + 1);
    while (buf != NULL && (got = fread(buf + len, 1, cap - len, f)) > 0) {
        len += got;
        if (len == cap) {
            cap *= 2;
            char *grown = realloc(buf, cap + 1);
            if (grown == NULL) {
                free(buf);
            }
            buf = grown;
        }
    }
    if (buf == NULL || ferror(f)) {
        printf("ERROR: cannot read SAMPLE_PTX=%s\n", path);
        exit(EXIT_ERROR);
    }
    fclose(f);
    buf[len] = '\0';
    *origin = path;
    return buf;
}

/* cuModuleLoadDataEx with the JIT's error and info logs; prints the error log on failure. */
static inline void load_module_with_log(CUmodule *module, const char *ptx)
{
    static char error_log[8192], info_log[8192];
    CUjit_option options[] = {
        CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
        CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
    };
    void *values[] = {
        error_log, (void *)(uintptr_t)sizeof error_log,
        info_log, (void *)(uintptr_t)sizeof info_log,
    };
    error_log[0] = info_log[0] = '\0';
    CUresult r = cuModuleLoadDataEx(module, ptx, 4, options, values);
    if (r != CUDA_SUCCESS) {
        if (error_log[0] != '\0') {
            printf("JIT error log:\n%s\n", error_log);
        }
        cu_fail("cuModuleLoadDataEx(module, ptx, 4, options, values)", r, __FILE__, __LINE__);
    }
}

/* cuInit, device 0, and its name (printed). */
static inline CUdevice sample_device(void)
{
    CUdevice dev;
    char name[256];
    CHECK(cuInit(0));
    CHECK(cuDeviceGet(&dev, 0));
    CHECK(cuDeviceGetName(name, (int)sizeof name, dev));
    printf("device 0: %s\n", name);
    return dev;
}

/* Deterministic test data: xorshift32, the same on every machine. */
static inline uint32_t rng_next(uint32_t *state)
{
    uint32_t x = *state;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return *state = x;
}

/* A float in [-1, 1) with 24 random bits. */
static inline float rng_float(uint32_t *state)
{
    return (float)((int32_t)(rng_next(state) >> 8) - (1 << 23)) / (float)(1 << 23);
}

/* argv[index] as an integer in [min, max], or def when absent; exits 2 on anything else. */
static inline long arg_long(int argc, char **argv, int index, long def, long min, long max, const char *usage)
{
    if (index >= argc) {
        return def;
    }
    char *end;
    errno = 0;
    long v = strtol(argv[index], &end, 0);
    if (errno != 0 || end == argv[index] || *end != '\0' || v < min || v > max) {
        printf("usage: %s %s\n  bad argument '%s': expected an integer in [%ld, %ld]\n",
               argv[0], usage, argv[index], min, max);
        exit(EXIT_ERROR);
    }
    return v;
}

static inline unsigned int ceil_div(long a, long b)
{
    return (unsigned int)((a + b - 1) / b);
}

#endif

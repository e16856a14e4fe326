/*
 * The export tables of cuGetExportTable ("dark API") that the CUDA runtime relies on, as real C
 * function pointers. Hand-written, not generated.
 *
 * Which tables exist, their slots and what each slot means: shared/reference/cuda-facts.md
 * ("Export tables"). The GUID lookup itself is done in Java (ExportTableArea.cuGetExportTable),
 * which finds these tables through zluda_export_tables() the first time a table is asked for.
 *
 * Slots that only return constants are answered here. Slots that need the driver's state pack
 * their arguments as 64-bit words and call the Java upcall registered by zluda_export_tables()
 * as ext(table, slot, words); Java turns every Throwable into a CUresult, so no exception crosses
 * into C. Slots with no known meaning also go to Java, which prints one "[ZLUDA] ... is not
 * supported" line per slot and returns CUDA_ERROR_NOT_SUPPORTED. No JVM is booted here: the tables
 * are only reachable through cuGetExportTable, which runs after entry.c has booted it.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <unistd.h>

#include "zluda_entry.h"

#define CUDA_SUCCESS 0
#define CUDA_ERROR_NOT_INITIALIZED 3

/* Table numbers shared with ExportTableArea.java (the order of zluda_export_tables' output). */
enum {
    T_CUDART_INTERFACE = 0,
    T_TOOLS_RUNTIME_CALLBACK_HOOKS = 1,
    T_TOOLS_TLS = 2,
    T_CONTEXT_LOCAL_STORAGE = 3,
    T_INTEGRITY_CHECK = 4,
    T_CONTEXT_CHECKS = 5,
    T_COUNT = 6
};

typedef int (*zl_ext_fn)(int table, int slot, uint64_t *words);
static zl_ext_fn volatile ext_fn;

static int ext(int table, int slot, uint64_t *words) {
    zl_ext_fn f = ext_fn;
    if (!f) return CUDA_ERROR_NOT_INITIALIZED;
    zl_fast_forget(); /* a slot may change the calling thread's current context */
    return f(table, slot, words);
}

#define P(x) ((uint64_t)(uintptr_t)(x))

/* A slot nobody has described: Java reports it once and returns CUDA_ERROR_NOT_SUPPORTED. Its real
 * arguments are ignored (harmless in the x86-64 SysV convention). */
#define UNKNOWN_SLOT(t, s) \
    static int unknown_##t##_##s(void) { return ext(t, s, NULL); }

/* ------------------------------------------------------------------ CUDART_INTERFACE, 13 slots */

/* [1] module from a fatbin wrapper */
static int cudart_module_from_wrapper(void *pmodule, const void *wrapper) {
    uint64_t w[2] = {P(pmodule), P(wrapper)};
    return ext(T_CUDART_INTERFACE, 1, w);
}

/* [2] the device's primary context, neither retained nor made current */
static int cudart_primary_context(void *pctx, int dev) {
    uint64_t w[2] = {P(pctx), (uint64_t)(int64_t)dev};
    return ext(T_CUDART_INTERFACE, 2, w);
}

/* [6] like [1], with three more arguments that are zero in practice */
static int cudart_module_from_wrapper_ext(void *pmodule, const void *wrapper, void *a3, void *a4, uint32_t a5) {
    uint64_t w[5] = {P(pmodule), P(wrapper), P(a3), P(a4), a5};
    return ext(T_CUDART_INTERFACE, 6, w);
}

/* [7] no-op */
static void cudart_noop(uintptr_t arg) { (void)arg; }

/* [8] module from a fatbin header (not a wrapper), module pointer second */
static int cudart_module_from_fatbin(const void *fatbin, void *pmodule, void *a3, void *a4, uint32_t a5) {
    uint64_t w[5] = {P(fatbin), P(pmodule), P(a3), P(a4), a5};
    return ext(T_CUDART_INTERFACE, 8, w);
}

/* [12] "load compilers" (NVIDIA's loads its PTX compiler and libnvvm): nothing to load */
static int cudart_load_compilers(void) { return CUDA_SUCCESS; }

UNKNOWN_SLOT(T_CUDART_INTERFACE, 3)
UNKNOWN_SLOT(T_CUDART_INTERFACE, 4)
UNKNOWN_SLOT(T_CUDART_INTERFACE, 5)
UNKNOWN_SLOT(T_CUDART_INTERFACE, 9)
UNKNOWN_SLOT(T_CUDART_INTERFACE, 10)
UNKNOWN_SLOT(T_CUDART_INTERFACE, 11)

static void *const cudart_interface[13] = {
    (void *)(uintptr_t)(13 * sizeof(void *)),
    (void *)cudart_module_from_wrapper,
    (void *)cudart_primary_context,
    (void *)unknown_T_CUDART_INTERFACE_3,
    (void *)unknown_T_CUDART_INTERFACE_4,
    (void *)unknown_T_CUDART_INTERFACE_5,
    (void *)cudart_module_from_wrapper_ext,
    (void *)cudart_noop,
    (void *)cudart_module_from_fatbin,
    (void *)unknown_T_CUDART_INTERFACE_9,
    (void *)unknown_T_CUDART_INTERFACE_10,
    (void *)unknown_T_CUDART_INTERFACE_11,
    (void *)cudart_load_compilers,
};

/* ------------------------------------------------------ TOOLS_RUNTIME_CALLBACK_HOOKS, 7 slots */

/* Buffers the runtime asks for and writes into; their meaning is unknown, so they stay zero. */
static uint32_t hooks_buffer_2[1024];
static uint32_t hooks_buffer_6[14];

static void hooks_buffer_2_get(void **ptr, size_t *count) {
    if (ptr) *ptr = hooks_buffer_2;
    if (count) *count = sizeof hooks_buffer_2 / sizeof hooks_buffer_2[0];
}

static void hooks_buffer_6_get(void **ptr, size_t *count) {
    if (ptr) *ptr = hooks_buffer_6;
    if (count) *count = sizeof hooks_buffer_6 / sizeof hooks_buffer_6[0];
}

UNKNOWN_SLOT(T_TOOLS_RUNTIME_CALLBACK_HOOKS, 1)
UNKNOWN_SLOT(T_TOOLS_RUNTIME_CALLBACK_HOOKS, 3)
UNKNOWN_SLOT(T_TOOLS_RUNTIME_CALLBACK_HOOKS, 4)
UNKNOWN_SLOT(T_TOOLS_RUNTIME_CALLBACK_HOOKS, 5)

static void *const tools_runtime_callback_hooks[7] = {
    (void *)(uintptr_t)(7 * sizeof(void *)),
    (void *)unknown_T_TOOLS_RUNTIME_CALLBACK_HOOKS_1,
    (void *)hooks_buffer_2_get,
    (void *)unknown_T_TOOLS_RUNTIME_CALLBACK_HOOKS_3,
    (void *)unknown_T_TOOLS_RUNTIME_CALLBACK_HOOKS_4,
    (void *)unknown_T_TOOLS_RUNTIME_CALLBACK_HOOKS_5,
    (void *)hooks_buffer_6_get,
};

/* ----------------------------------------------------------------------- TOOLS_TLS, 4 slots */

UNKNOWN_SLOT(T_TOOLS_TLS, 1)
UNKNOWN_SLOT(T_TOOLS_TLS, 2)
UNKNOWN_SLOT(T_TOOLS_TLS, 3)

static void *const tools_tls[4] = {
    (void *)(uintptr_t)(4 * sizeof(void *)),
    (void *)unknown_T_TOOLS_TLS_1,
    (void *)unknown_T_TOOLS_TLS_2,
    (void *)unknown_T_TOOLS_TLS_3,
};

/* ------------------------------------------- CONTEXT_LOCAL_STORAGE, no size slot, null-terminated */

static int cls_put(void *ctx, void *key, void *value, void *dtor) {
    uint64_t w[4] = {P(ctx), P(key), P(value), P(dtor)};
    return ext(T_CONTEXT_LOCAL_STORAGE, 0, w);
}

static int cls_delete(void *ctx, void *key) {
    uint64_t w[2] = {P(ctx), P(key)};
    return ext(T_CONTEXT_LOCAL_STORAGE, 1, w);
}

static int cls_get(void **value, void *ctx, void *key) {
    uint64_t w[3] = {P(value), P(ctx), P(key)};
    return ext(T_CONTEXT_LOCAL_STORAGE, 2, w);
}

static void *const context_local_storage[4] = {
    (void *)cls_put,
    (void *)cls_delete,
    (void *)cls_get,
    NULL,
};

/* ------------------------------------------------------------------ INTEGRITY_CHECK, 3 slots */

/* [1] (version, unix seconds, out[2]); the hash also covers the process and thread ids, which are
 * taken here: pthread_self() truncated to 32 bits, as cudart computes it. */
static int integrity_check(uint32_t version, uint64_t unix_seconds, uint64_t *out) {
    uint64_t w[5] = {version, unix_seconds, P(out), (uint64_t)(uint32_t)getpid(), (uint64_t)(uint32_t)(uintptr_t)pthread_self()};
    return ext(T_INTEGRITY_CHECK, 1, w);
}

UNKNOWN_SLOT(T_INTEGRITY_CHECK, 2)

static void *const integrity_check_table[3] = {
    (void *)(uintptr_t)(3 * sizeof(void *)),
    (void *)integrity_check,
    (void *)unknown_T_INTEGRITY_CHECK_2,
};

/* ------------------------------------------------------------------- CONTEXT_CHECKS, 4 slots */

/* [2] (ctx, u32 *out, void **): NVIDIA's reports 0, success */
static int context_check(void *ctx, uint32_t *out, void **unused) {
    (void)ctx;
    (void)unused;
    if (out) *out = 0;
    return CUDA_SUCCESS;
}

/* [3] returns 0 */
static uint32_t context_check_3(void) { return 0; }

UNKNOWN_SLOT(T_CONTEXT_CHECKS, 1)

static void *const context_checks[4] = {
    (void *)(uintptr_t)(4 * sizeof(void *)),
    (void *)unknown_T_CONTEXT_CHECKS_1,
    (void *)context_check,
    (void *)context_check_3,
};

/* ----------------------------------------------------------------------------- registration */

/*
 * Called once by the Java driver (ExportTableArea, through FFM): registers the Java upcall
 * `int fn(int table, int slot, uint64_t *words)` that stateful slots call, and writes the address
 * of each table into tables[0..n-1] in the order of the T_* numbers. Returns the number of tables
 * (T_COUNT); writes at most n addresses.
 */
ZL_EXPORT int zluda_export_tables(void *fn, void **tables, int n) {
    static void *const *const all[T_COUNT] = {
        cudart_interface, tools_runtime_callback_hooks, tools_tls,
        context_local_storage, integrity_check_table, context_checks,
    };
    if (fn) ext_fn = (zl_ext_fn)fn;
    for (int i = 0; i < n && i < T_COUNT; i++) tables[i] = (void *)all[i];
    return T_COUNT;
}

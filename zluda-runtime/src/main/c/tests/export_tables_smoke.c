/*
 * export_tables_smoke: calls the export tables of a libcuda.so.1 (loaded with dlopen, as cudart
 * does) through their C function pointers: sizes, the runtime's buffers, the primary context of
 * CUDART_INTERFACE slot 2, context-local storage with destructors run on cuCtxDestroy and on
 * cuDevicePrimaryCtxReset, context checks, modules from a hand-made fatbin wrapper, unknown tables
 * and slots. Prints one line per check and "N passed, M failed" (exit 0 only if all pass), and a
 * line "integrity VERSION SECONDS PID TID CUDART_TABLE INTEGRITY_TABLE FN -> HI LO" that
 * ExportTablesNativeTest recomputes with an independent HMAC-MD2.
 * Usage: export_tables_smoke PATH/TO/libcuda.so.1
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int passed, failed;
#define CHECK(cond, ...) do { if (cond) { passed++; printf("ok   "); } else { failed++; printf("FAIL "); } printf(__VA_ARGS__); printf("\n"); } while (0)

typedef struct { unsigned char b[16]; } uuid_t16;
static const uuid_t16 CUDART_INTERFACE = {{0x6b, 0xd5, 0xfb, 0x6c, 0x5b, 0xf4, 0xe7, 0x4a, 0x89, 0x87, 0xd9, 0x39, 0x12, 0xfd, 0x9d, 0xf9}};
static const uuid_t16 TOOLS_HOOKS = {{0xa0, 0x94, 0x79, 0x8c, 0x2e, 0x74, 0x2e, 0x74, 0x93, 0xf2, 0x08, 0x00, 0x20, 0x0c, 0x0a, 0x66}};
static const uuid_t16 TOOLS_TLS = {{0x42, 0xd8, 0x5a, 0x81, 0x23, 0xf6, 0xcb, 0x47, 0x82, 0x98, 0xf6, 0xe7, 0x8a, 0x3a, 0xec, 0xdc}};
static const uuid_t16 CLS = {{0xc6, 0x93, 0x33, 0x6e, 0x11, 0x21, 0xdf, 0x11, 0xa8, 0xc3, 0x68, 0xf3, 0x55, 0xd8, 0x95, 0x93}};
static const uuid_t16 INTEGRITY = {{0xd4, 0x08, 0x20, 0x55, 0xbd, 0xe6, 0x70, 0x4b, 0x8d, 0x34, 0xba, 0x12, 0x3c, 0x66, 0xe1, 0xf2}};
static const uuid_t16 CHECKS = {{0x26, 0x3e, 0x88, 0x60, 0x7c, 0xd2, 0x61, 0x43, 0x92, 0xf6, 0xbb, 0xd5, 0x00, 0x6d, 0xfa, 0x7e}};
static const uuid_t16 PROBE = {{0xf8, 0xcf, 0xf9, 0x51, 0x21, 0x46, 0x8b, 0x4e, 0xb9, 0xe2, 0xfb, 0x46, 0x9e, 0x7c, 0x0d, 0xd9}};
static const uuid_t16 MADE_UP = {{0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0x10}};

typedef int (*get_table_t)(const void **, const uuid_t16 *);
typedef int (*i_u)(unsigned);
typedef int (*i_pp_i)(void **, int);
typedef int (*i_pp_u_i)(void **, unsigned, int);
typedef int (*i_p)(void *);
typedef int (*i_i)(int);
typedef int (*i_i_pu_pi)(int, unsigned *, int *);

static void *dtor_ctx, *dtor_key, *dtor_value;
static int dtor_calls;
static void destructor(void *ctx, void *key, void *value) {
    dtor_ctx = ctx;
    dtor_key = key;
    dtor_value = value;
    dtor_calls++;
}

/* A fatbin with one uncompressed PTX entry for compute_75, as nvcc lays it out. */
static const char PTX[] = ".version 8.0\n.target sm_75\n.address_size 64\n\n.visible .entry empty()\n{\n\tret;\n}\n";
static struct {
    uint32_t magic; uint16_t version, header_size; uint64_t size;
    uint16_t kind, entry_version; uint32_t entry_header_size, payload, unknown0, compressed, unknown1, unknown2, sm, unknown3, unknown4;
    uint64_t flags, unknown5, uncompressed;
    char text[((sizeof PTX) + 7) & ~7u];
} __attribute__((packed, aligned(8))) fatbin;
static struct { uint32_t magic, version; const void *data; const void *other; } wrapper;

int main(int argc, char **argv) {
    const char *lib = argc > 1 ? argv[1] : "libcuda.so.1";
    void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    if (!h) { printf("FAIL dlopen %s: %s\n0 passed, 1 failed\n", lib, dlerror()); return 1; }
    get_table_t get = (get_table_t)dlsym(h, "cuGetExportTable");

    const void *probe = (const void *)1;
    int r = get(&probe, &PROBE);
    CHECK(r == 500, "cuGetExportTable(f8cff951...) -> %d (CUDA_ERROR_NOT_FOUND, before cuInit, as cudart 13 asks)", r);
    r = get(&probe, &MADE_UP);
    CHECK(r == 500 && probe == NULL, "cuGetExportTable(made-up GUID) -> %d, table %p", r, probe);
    r = ((i_u)dlsym(h, "cuInit"))(0);
    CHECK(r == 0, "cuInit(0) -> %d", r);

    void *const *cudart = NULL, *const *hooks = NULL, *const *tls = NULL, *const *cls = NULL, *const *integrity = NULL, *const *checks = NULL;
    r = get((const void **)&cudart, &CUDART_INTERFACE);
    CHECK(r == 0 && cudart && (uintptr_t)cudart[0] == 13 * 8, "CUDART_INTERFACE -> %d, size %zu", r, cudart ? (size_t)(uintptr_t)cudart[0] : 0);
    r = get((const void **)&hooks, &TOOLS_HOOKS);
    CHECK(r == 0 && hooks && (uintptr_t)hooks[0] == 7 * 8, "TOOLS_RUNTIME_CALLBACK_HOOKS -> %d", r);
    r = get((const void **)&tls, &TOOLS_TLS);
    CHECK(r == 0 && tls && (uintptr_t)tls[0] == 4 * 8, "TOOLS_TLS -> %d", r);
    r = get((const void **)&cls, &CLS);
    CHECK(r == 0 && cls && cls[0] && cls[1] && cls[2] && !cls[3], "CONTEXT_LOCAL_STORAGE -> %d, 3 functions and a NULL end", r);
    r = get((const void **)&integrity, &INTEGRITY);
    CHECK(r == 0 && integrity && (uintptr_t)integrity[0] == 3 * 8, "INTEGRITY_CHECK -> %d", r);
    r = get((const void **)&checks, &CHECKS);
    CHECK(r == 0 && checks && (uintptr_t)checks[0] == 4 * 8, "CONTEXT_CHECKS -> %d", r);
    if (!cudart || !hooks || !cls || !integrity || !checks) { printf("%d passed, %d failed\n", passed, failed); return 1; }

    /* the runtime's buffers */
    void *buf = NULL;
    size_t count = 0;
    ((void (*)(void **, size_t *))hooks[2])(&buf, &count);
    CHECK(buf && count == 1024 && ((uint32_t *)buf)[1023] == 0, "hooks slot 2 -> buffer of %zu u32", count);
    ((void (*)(void **, size_t *))hooks[6])(&buf, &count);
    CHECK(buf && count == 14, "hooks slot 6 -> buffer of %zu u32", count);

    /* primary context: not retained, not current */
    void *pctx = NULL, *current = (void *)1;
    r = ((int (*)(void **, int))cudart[2])(&pctx, 0);
    unsigned flags = 99;
    int active = 99;
    ((i_i_pu_pi)dlsym(h, "cuDevicePrimaryCtxGetState"))(0, &flags, &active);
    ((i_p)dlsym(h, "cuCtxGetCurrent"))(&current);
    CHECK(r == 0 && pctx && active == 0 && current == NULL, "CUDART_INTERFACE slot 2 -> %d, ctx %p, inactive (%d), not current (%p)", r, pctx, active, current);
    r = ((int (*)(void **, int))cudart[2])(&pctx, 7);
    CHECK(r == 101, "CUDART_INTERFACE slot 2 of device 7 -> %d (CUDA_ERROR_INVALID_DEVICE)", r);
    void *retained = NULL;
    ((i_pp_i)dlsym(h, "cuDevicePrimaryCtxRetain"))(&retained, 0);
    CHECK(retained == pctx, "cuDevicePrimaryCtxRetain gives the same context (%p)", retained);
    r = ((int (*)(void))cudart[12])();
    CHECK(r == 0, "CUDART_INTERFACE slot 12 (load compilers) -> %d", r);
    ((void (*)(uintptr_t))cudart[7])(0);
    CHECK(1, "CUDART_INTERFACE slot 7 returns");
    r = ((int (*)(void))cudart[3])();
    CHECK(r == 801, "CUDART_INTERFACE slot 3 (unknown) -> %d (CUDA_ERROR_NOT_SUPPORTED)", r);

    /* context-local storage on a created context: destructor on cuCtxDestroy */
    typedef int (*put_t)(void *, void *, void *, void (*)(void *, void *, void *));
    typedef int (*del_t)(void *, void *);
    typedef int (*getv_t)(void **, void *, void *);
    void *ctx = NULL;
    r = ((i_pp_u_i)dlsym(h, "cuCtxCreate_v2"))(&ctx, 0, 0);
    CHECK(r == 0 && ctx, "cuCtxCreate_v2 -> %d", r);
    int key1, key2;
    r = ((put_t)cls[0])(NULL, &key1, (void *)0x1234, destructor);
    void *value = NULL;
    int r2 = ((getv_t)cls[2])(&value, ctx, &key1);
    CHECK(r == 0 && r2 == 0 && value == (void *)0x1234, "CLS put on the current context, get by handle -> %d, %d, %p", r, r2, value);
    r = ((getv_t)cls[2])(&value, ctx, &key2);
    CHECK(r == 400, "CLS get of an absent key -> %d (CUDA_ERROR_INVALID_HANDLE)", r);
    ((put_t)cls[0])(ctx, &key2, (void *)0x5678, destructor);
    r = ((del_t)cls[1])(ctx, &key2);
    r2 = ((getv_t)cls[2])(&value, ctx, &key2);
    CHECK(r == 0 && r2 == 400, "CLS delete -> %d, then get -> %d", r, r2);
    r = ((i_p)dlsym(h, "cuCtxDestroy_v2"))(ctx);
    CHECK(r == 0 && dtor_calls == 1 && dtor_ctx == ctx && dtor_key == &key1 && dtor_value == (void *)0x1234,
          "cuCtxDestroy_v2 -> %d, destructor called %d time(s) with (ctx, key, value)", r, dtor_calls);

    /* on the primary context: destructor on cuDevicePrimaryCtxReset */
    r = ((put_t)cls[0])(pctx, &key2, (void *)0x9abc, destructor);
    int r3 = ((i_i)dlsym(h, "cuDevicePrimaryCtxReset_v2"))(0);
    r2 = ((getv_t)cls[2])(&value, pctx, &key2);
    CHECK(r == 0 && r3 == 0 && dtor_calls == 2 && dtor_value == (void *)0x9abc && r2 == 400,
          "CLS on the primary context: destructor run by cuDevicePrimaryCtxReset_v2 (%d calls), value gone (%d)", dtor_calls, r2);

    /* context checks */
    uint32_t check_out = 77;
    void *check_ptr = NULL;
    r = ((int (*)(void *, uint32_t *, void **))checks[2])(pctx, &check_out, &check_ptr);
    CHECK(r == 0 && check_out == 0, "CONTEXT_CHECKS slot 2 -> %d, %u", r, check_out);
    CHECK(((uint32_t (*)(void))checks[3])() == 0, "CONTEXT_CHECKS slot 3 returns 0");

    /* modules from fatbins, loaded into the (retained) primary context made current */
    ((i_pp_i)dlsym(h, "cuDevicePrimaryCtxRetain"))(&retained, 0);
    r = ((i_p)dlsym(h, "cuCtxSetCurrent"))(retained);
    CHECK(r == 0, "cuCtxSetCurrent(primary) -> %d", r);
    fatbin.magic = 0xBA55ED50u;
    fatbin.version = 1;
    fatbin.header_size = 16;
    fatbin.size = 64 + sizeof fatbin.text;
    fatbin.kind = 1;
    fatbin.entry_version = 0x101;
    fatbin.entry_header_size = 64;
    fatbin.payload = sizeof fatbin.text;
    fatbin.sm = 75;
    fatbin.flags = 0x11;
    memcpy(fatbin.text, PTX, sizeof PTX);
    wrapper.magic = 0x466243B1u;
    wrapper.version = 1;
    wrapper.data = &fatbin;
    void *module = NULL;
    r = ((int (*)(void **, const void *))cudart[1])(&module, &wrapper);
    CHECK(r == 0 || r == 801, "CUDART_INTERFACE slot 1 with a PTX fatbin -> %d (cuModuleLoadData's answer: 0, or 801 until modules load)", r);
    r = ((int (*)(const void *, void **, void *, void *, unsigned))cudart[8])(&fatbin, &module, NULL, NULL, 0);
    CHECK(r == 0 || r == 801, "CUDART_INTERFACE slot 8 with the fatbin header -> %d", r);
    fatbin.kind = 2;
    r = ((int (*)(void **, const void *))cudart[1])(&module, &wrapper);
    CHECK(r == 209, "CUDART_INTERFACE slot 1 with a SASS-only fatbin -> %d (CUDA_ERROR_NO_BINARY_FOR_GPU)", r);
    fatbin.kind = 1;
    fatbin.payload = 1 << 20;
    r = ((int (*)(void **, const void *))cudart[1])(&module, &wrapper);
    CHECK(r == 200, "CUDART_INTERFACE slot 1 with an entry larger than its fatbin -> %d (CUDA_ERROR_INVALID_IMAGE)", r);
    r = ((int (*)(void **, const void *, void *, void *, unsigned))cudart[6])(&module, &wrapper, NULL, NULL, 1);
    CHECK(r == 801, "CUDART_INTERFACE slot 6 with non-zero extra arguments -> %d", r);

    /* integrity check: constants for version % 10 == 0 and 1, else a hash the test recomputes */
    uint64_t out[2] = {0, 0};
    typedef int (*integrity_t)(uint32_t, uint64_t, uint64_t *);
    r = ((integrity_t)integrity[1])(13000, 1700000000, out);
    CHECK(r == 0 && out[0] == 0x3341181C03CB675Cull && out[1] == 0x8ED383AA1F4CD1E8ull, "integrity check, version 13000 -> constant pair");
    r = ((integrity_t)integrity[1])(13001, 1700000000, out);
    CHECK(r == 0 && out[0] == 0x1841181C03CB675Cull, "integrity check, version 13001 -> constant pair");
    uint64_t seconds = 1764460800;
    r = ((integrity_t)integrity[1])(13002, seconds, out);
    CHECK(r == 0, "integrity check, version 13002 -> %d", r);
    printf("integrity %u %llu %u %u %llu %llu %llu -> %llu %llu\n", 13002u, (unsigned long long)seconds, (unsigned)getpid(),
           (unsigned)(uintptr_t)pthread_self(), (unsigned long long)(uintptr_t)cudart, (unsigned long long)(uintptr_t)integrity,
           (unsigned long long)(uintptr_t)integrity[1], (unsigned long long)out[0], (unsigned long long)out[1]);

    printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}

/*
 * cuGetExportTable ("dark API") in the tracer: the table the target driver returns is replaced by a
 * copy whose function slots point to generic forwarders (export_trampoline.S), so every call the
 * program makes through a table is recorded like a driver call. Layouts, GUIDs and what is known of
 * the slots: shared/reference/cuda-facts.md, "Export tables".
 *
 * In the capture (trace-format/FORMAT.md §6.10, "Export-table slots") every slot is a function of
 * the function table after the spec's functions, named "{GUID}::slot N" (the GUID's 16 bytes in
 * memory order as hex, grouped 8-4-4-4-12):
 *  - the slots of the tables listed in KNOWN are there from the start; a slot whose arguments are
 *    known is recorded with them (and its output data), any other with the six integer argument
 *    registers as its six arguments;
 *  - a table not in KNOWN (or a slot past a known table's count) is recorded as "{?}::slot N", whose
 *    first argument is the wrapped table's address with its GUID as 16 bytes of inline data, then
 *    the six registers; slots from 64 on of such tables, and every slot once 2048 are wrapped, are
 *    passed through unrecorded.
 * The result of a call is the low 32 bits of rax (meaningless for a slot that returns nothing).
 *
 * INTEGRITY_CHECK slot 1 answers a hash over the addresses of the tables the caller got; the
 * caller got our copies, so the answer is recomputed over them (md2.c). Before replacing it, the
 * same computation over the driver's own addresses must reproduce the driver's answer; when it does
 * not, the tracer says so once on stderr and in a MARKER, and answers its recomputation anyway.
 *
 * Only entries that point into executable memory are wrapped (a table entry that is data is copied
 * as it is); ZLUDA_TRACE_EXPORT_TABLES=0 turns wrapping off (tables are then passed through).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "md2.h"
#include "tracer.h"

#define ZT_EXPORT_STUBS 2048          /* as in export_trampoline.S */
#define POOL_SLOTS 64                 /* "{?}::slot N" for N < 64 */
#define MAX_SLOTS 1024                /* a table without a size slot ends at its first NULL/-1 entry, or here */
#define GENERIC_ARGS 6

typedef struct {
    uint64_t gp[6];        /* rdi rsi rdx rcx r8 r9 */
    uint64_t rax, index, fn, pad;
    uint8_t xmm[8][16];
    uint64_t ret_rax, ret_rdx;
    uint8_t ret_xmm[2][16];
} zt_regs;
_Static_assert(sizeof(zt_regs) == 256, "zt_regs must match export_trampoline.S");

typedef struct {
    void *real;
    const uint8_t *guid;   /* 16 bytes */
    uint64_t table;        /* the wrapped table */
    uint32_t fid;
    int16_t known;         /* index in KNOWN, -1 for a pool slot */
    uint16_t slot;
} zt_slot;

typedef struct {
    zt_call c;
    uint64_t args[GENERIC_ARGS + 2];
    const zt_slot *s;
} slot_ctx;
_Static_assert(sizeof(slot_ctx) <= 1024, "slot_ctx must fit the trampoline's frame");

extern const char zt_export_stubs[];
void zt_slot_enter(zt_regs *r, slot_ctx *x);
void zt_slot_leave(zt_regs *r, slot_ctx *x);

enum { K_CUDART_INTERFACE, K_TOOLS_RUNTIME_CALLBACK_HOOKS, K_TOOLS_TLS, K_CONTEXT_LOCAL_STORAGE, K_INTEGRITY_CHECK,
       K_CONTEXT_CHECKS, K_CTX_CREATE_BYPASS, K_HEAP_ACCESS, K_DEVICE_EXTENDED_RT, K_COUNT };

typedef struct {
    const char *name;
    uint8_t guid[16];
    int slots;       /* entries including the size slot */
    int first;       /* first function slot: 1 with a size slot, 0 without */
} known_table;

static const known_table KNOWN[K_COUNT] = {
    {"CUDART_INTERFACE", {0x6b, 0xd5, 0xfb, 0x6c, 0x5b, 0xf4, 0xe7, 0x4a, 0x89, 0x87, 0xd9, 0x39, 0x12, 0xfd, 0x9d, 0xf9}, 13, 1},
    {"TOOLS_RUNTIME_CALLBACK_HOOKS", {0xa0, 0x94, 0x79, 0x8c, 0x2e, 0x74, 0x2e, 0x74, 0x93, 0xf2, 0x08, 0x00, 0x20, 0x0c, 0x0a, 0x66}, 7, 1},
    {"TOOLS_TLS", {0x42, 0xd8, 0x5a, 0x81, 0x23, 0xf6, 0xcb, 0x47, 0x82, 0x98, 0xf6, 0xe7, 0x8a, 0x3a, 0xec, 0xdc}, 4, 1},
    {"CONTEXT_LOCAL_STORAGE", {0xc6, 0x93, 0x33, 0x6e, 0x11, 0x21, 0xdf, 0x11, 0xa8, 0xc3, 0x68, 0xf3, 0x55, 0xd8, 0x95, 0x93}, 4, 0},
    {"INTEGRITY_CHECK", {0xd4, 0x08, 0x20, 0x55, 0xbd, 0xe6, 0x70, 0x4b, 0x8d, 0x34, 0xba, 0x12, 0x3c, 0x66, 0xe1, 0xf2}, 3, 1},
    {"CONTEXT_CHECKS", {0x26, 0x3e, 0x88, 0x60, 0x7c, 0xd2, 0x61, 0x43, 0x92, 0xf6, 0xbb, 0xd5, 0x00, 0x6d, 0xfa, 0x7e}, 4, 1},
    {"CTX_CREATE_BYPASS", {0x0c, 0xa5, 0x0b, 0x8c, 0x10, 0x04, 0x92, 0x9a, 0x89, 0xa7, 0xd0, 0xdf, 0x10, 0xe7, 0x72, 0x86}, 2, 1},
    {"HEAP_ACCESS", {0x19, 0x5b, 0xcb, 0xf4, 0xd6, 0x7d, 0x02, 0x4a, 0xac, 0xc5, 0x1d, 0x29, 0xce, 0xa6, 0x31, 0xae}, 3, 1},
    {"DEVICE_EXTENDED_RT", {0xb1, 0x05, 0x41, 0xe1, 0xf7, 0xc7, 0xc7, 0x4a, 0x9f, 0x64, 0xf2, 0x23, 0xbe, 0x99, 0xf1, 0xe2}, 26, 1},
};

/* Recorded arguments of a known slot; GENERIC_ARGS when its signature is not known. */
static int known_args(int k, int slot) {
    switch (k) {
    case K_CUDART_INTERFACE:
        switch (slot) {
        case 1: case 2: return 2;      /* (CUmodule *, wrapper *), (CUcontext *, CUdevice) */
        case 6: case 8: return 5;      /* (CUmodule *, wrapper *, a3, a4, u32), (fatbin *, CUmodule *, a3, a4, u32) */
        case 7: return 1;              /* no-op (uintptr_t) */
        case 12: return 0;             /* load compilers */
        default: return GENERIC_ARGS;
        }
    case K_TOOLS_RUNTIME_CALLBACK_HOOKS: return slot == 2 || slot == 6 ? 2 : GENERIC_ARGS; /* (void **, size_t *) */
    case K_CONTEXT_LOCAL_STORAGE: return slot == 0 ? 4 : slot == 1 ? 2 : slot == 2 ? 3 : GENERIC_ARGS;
    case K_INTEGRITY_CHECK: return slot == 1 ? 3 : GENERIC_ARGS;   /* (u32 version, u64 seconds, u64 out[2]) */
    case K_CONTEXT_CHECKS: return slot == 2 ? 3 : GENERIC_ARGS;    /* (CUcontext, u32 *, void **) */
    default: return GENERIC_ARGS;
    }
}

/* Function-table entries: names are built once, before the capture is opened. */
static uint32_t first_fid;
static uint32_t known_fid[K_COUNT];      /* fid of slot KNOWN[k].first */
static uint32_t pool_fid;                /* fid of "{?}::slot 0" */
static zcap_function *entries;
static int nentries;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static zt_slot slots[ZT_EXPORT_STUBS];
static atomic_int nslots;
typedef struct wrapped { uint8_t guid[16]; void **real, **copy; int k; struct wrapped *next; } wrapped;
static wrapped *tables;

static void guid_text(const uint8_t *g, char *out) {
    static const int dash[] = {4, 6, 8, 10};
    int o = 0;
    for (int i = 0, d = 0; i < 16; i++) {
        if (d < 4 && i == dash[d]) { out[o++] = '-'; d++; }
        o += sprintf(out + o, "%02x", g[i]);
    }
    out[o] = 0;
}

int zt_export_functions(uint32_t first, zcap_function **out) {
    if (entries) { *out = entries; return nentries; }
    first_fid = first;
    int n = POOL_SLOTS;
    for (int k = 0; k < K_COUNT; k++) n += KNOWN[k].slots - KNOWN[k].first;
    entries = calloc((size_t)n, sizeof *entries);
    if (!entries) return 0;
    int e = 0;
    for (int k = 0; k < K_COUNT; k++) {
        char g[40];
        guid_text(KNOWN[k].guid, g);
        known_fid[k] = first + (uint32_t)e;
        for (int s = KNOWN[k].first; s < KNOWN[k].slots; s++, e++) {
            char name[80];
            snprintf(name, sizeof name, "{%s}::slot %d", g, s);
            entries[e].name = strdup(name);
            entries[e].param_count = (uint8_t)known_args(k, s);
        }
    }
    pool_fid = first + (uint32_t)e;
    for (int s = 0; s < POOL_SLOTS; s++, e++) {
        char name[32];
        snprintf(name, sizeof name, "{?}::slot %d", s);
        entries[e].name = strdup(name);
        entries[e].param_count = GENERIC_ARGS + 1;
    }
    nentries = e;
    *out = entries;
    return e;
}

/* Whether p is in an executable segment of a loaded object. */
struct exec_query { uintptr_t p; int found; };
static int exec_cb(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    struct exec_query *q = data;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X)) continue;
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
        if (q->p >= lo && q->p < lo + ph->p_memsz) { q->found = 1; return 1; }
    }
    return 0;
}
static int executable(const void *p) {
    struct exec_query q = {(uintptr_t)p, 0};
    dl_iterate_phdr(exec_cb, &q);
    return q.found;
}

static int known_index(const uint8_t *g) {
    for (int k = 0; k < K_COUNT; k++) if (memcmp(KNOWN[k].guid, g, 16) == 0) return k;
    return -1;
}

void zt_wrap_export_table(void **pp, const void *guid) {
#if defined(__x86_64__)
    if (!pp || !*pp || !guid || !entries) return;
    const char *off = getenv("ZLUDA_TRACE_EXPORT_TABLES");
    if (off && strcmp(off, "0") == 0) return;
    pthread_mutex_lock(&lock);
    for (wrapped *w = tables; w; w = w->next) {
        if (memcmp(w->guid, guid, 16) == 0 && w->real == *pp) { *pp = w->copy; pthread_mutex_unlock(&lock); return; }
    }
    void **real = *pp;
    uintptr_t w0 = (uintptr_t)real[0];
    int sized = w0 >= 8 && w0 <= 0x10000 && w0 % 8 == 0;
    int n = 0;
    if (sized) n = (int)(w0 / 8);
    else while (n < MAX_SLOTS && real[n] && real[n] != (void *)-1) n++;
    wrapped *w = calloc(1, sizeof *w);
    void **copy = calloc((size_t)n + 1, sizeof(void *));
    if (!w || !copy) { free(w); free(copy); pthread_mutex_unlock(&lock); return; }
    memcpy(w->guid, guid, 16);
    int k = known_index(guid);
    for (int i = 0; i <= n; i++) {
        if (i == n) { if (!sized) copy[i] = real[i]; break; }   /* the terminator */
        copy[i] = real[i];
        if ((sized && i == 0) || !real[i] || real[i] == (void *)-1 || !executable(real[i])) continue;
        int j = atomic_load(&nslots);
        if (j >= ZT_EXPORT_STUBS) continue;
        int known = k >= 0 && i >= KNOWN[k].first && i < KNOWN[k].slots;
        if (!known && i >= POOL_SLOTS) continue;
        zt_slot *s = &slots[j];
        s->real = real[i];
        s->guid = w->guid;
        s->table = (uint64_t)(uintptr_t)copy;
        s->known = (int16_t)(known ? k : -1);
        s->slot = (uint16_t)i;
        s->fid = known ? known_fid[k] + (uint32_t)(i - KNOWN[k].first) : pool_fid + (uint32_t)i;
        atomic_store(&nslots, j + 1);
        copy[i] = (void *)(zt_export_stubs + 16 * j);
    }
    w->real = real;
    w->copy = copy;
    w->k = k;
    w->next = tables;
    tables = w;
    *pp = copy;
    pthread_mutex_unlock(&lock);
#else
    (void)pp; (void)guid;
#endif
}

/* The wrapped and the driver's own table of a known GUID, or 0. */
static void table_of(int k, uint64_t *real, uint64_t *copy) {
    *real = *copy = 0;
    pthread_mutex_lock(&lock);
    for (wrapped *w = tables; w; w = w->next) {
        if (w->k == k) { *real = (uint64_t)(uintptr_t)w->real; *copy = (uint64_t)(uintptr_t)w->copy; break; }
    }
    pthread_mutex_unlock(&lock);
}

void zt_slot_enter(zt_regs *r, slot_ctx *x) {
    const zt_slot *s = &slots[r->index < ZT_EXPORT_STUBS ? r->index : 0];
    r->fn = (uint64_t)(uintptr_t)s->real;
    x->s = s;
    if (s->known < 0) {
        x->args[0] = s->table;
        memcpy(&x->args[1], r->gp, sizeof r->gp);
    } else {
        int n = known_args(s->known, s->slot);
        memcpy(x->args, r->gp, sizeof r->gp);
        if (n == GENERIC_ARGS) { /* as they are */ }
        else if (s->known == K_CUDART_INTERFACE && (s->slot == 6 || s->slot == 8)) x->args[4] = (uint32_t)x->args[4];
        else if (s->known == K_CUDART_INTERFACE && s->slot == 2) x->args[1] = (uint32_t)x->args[1];
        else if (s->known == K_INTEGRITY_CHECK && s->slot == 1) x->args[0] = (uint32_t)x->args[0];
    }
    zt_begin(&x->c, s->fid, x->args);
    if (s->known < 0) zt_data(&x->c, 0, s->guid, 16);
    zt_enter(&x->c);
}

static int devices_for_integrity(zt_integrity_device *dev, int cap) {
    int (*count)(int *) = (int (*)(int *))zt_real_by_name("cuDeviceGetCount");
    int (*get)(int *, int) = (int (*)(int *, int))zt_real_by_name("cuDeviceGet");
    int (*uuid)(void *, int) = (int (*)(void *, int))zt_real_by_name("cuDeviceGetUuid_v2");
    if (!uuid) uuid = (int (*)(void *, int))zt_real_by_name("cuDeviceGetUuid");
    int (*attr)(int *, int, int) = (int (*)(int *, int, int))zt_real_by_name("cuDeviceGetAttribute");
    int n = 0;
    if (!count || !get || !uuid || !attr || count(&n) != 0) return 0;
    if (n > cap) n = cap;
    for (int i = 0; i < n; i++) {
        int d = i;
        memset(&dev[i], 0, sizeof dev[i]);
        if (get(&d, i) != 0) d = i;
        uuid(dev[i].uuid, d);
        attr(&dev[i].pci_domain, 50 /* CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID */, d);
        attr(&dev[i].pci_bus, 33 /* CU_DEVICE_ATTRIBUTE_PCI_BUS_ID */, d);
        attr(&dev[i].pci_device, 34 /* CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID */, d);
    }
    return n;
}

/* INTEGRITY_CHECK slot 1 returned `r` and wrote out[2]: answer for the wrapped tables instead. */
static void integrity(slot_ctx *x, int r) {
    uint32_t version = (uint32_t)x->args[0];
    uint64_t seconds = x->args[1];
    uint64_t *out = (uint64_t *)(uintptr_t)x->args[2];
    if (r != 0 || !out || version % 10 == 0 || version % 10 == 1) return;
    zt_integrity_device dev[64];
    int ndev = devices_for_integrity(dev, 64);
    int drv = 0;
    int (*ver)(int *) = (int (*)(int *))zt_real_by_name("cuDriverGetVersion");
    if (ver) ver(&drv);
    uint64_t cudart_real, cudart_copy, table_real, table_copy;
    table_of(K_CUDART_INTERFACE, &cudart_real, &cudart_copy);
    table_of(K_INTEGRITY_CHECK, &table_real, &table_copy);
    uint32_t pid = (uint32_t)getpid(), tid = (uint32_t)(uintptr_t)pthread_self();
    uint64_t check[2], ours[2];
    zt_integrity_answer(version, seconds, (uint32_t)drv, pid, tid, cudart_real, table_real, (uint64_t)(uintptr_t)x->s->real, dev, ndev, check);
    uint64_t copy_fn = table_copy ? ((uint64_t *)(uintptr_t)table_copy)[1] : 0;
    zt_integrity_answer(version, seconds, (uint32_t)drv, pid, tid, cudart_copy, table_copy, copy_fn, dev, ndev, ours);
    static atomic_int said;
    int reproduced = check[0] == out[0] && check[1] == out[1];
    if (!atomic_exchange(&said, 1)) {
        char text[256];
        snprintf(text, sizeof text, "integrity check (version %u): the driver's answer %s reproduced over its own tables; answered over the wrapped tables",
                 version, reproduced ? "was" : "was NOT");
        zt_marker(&x->c, text);
        if (!reproduced) {
            fprintf(stderr, "[ZLUDA_TRACE] the export-table integrity check could not be reproduced (driver %d, %d devices): "
                            "the CUDA runtime may refuse the wrapped tables; ZLUDA_TRACE_EXPORT_TABLES=0 passes them through\n", drv, ndev);
        }
    }
    out[0] = ours[0];
    out[1] = ours[1];
}

void zt_slot_leave(zt_regs *r, slot_ctx *x) {
    const zt_slot *s = x->s;
    zt_after(&x->c);
    int res = (int)(uint32_t)r->ret_rax;
    uint64_t *a = x->args;
    if (s->known == K_CUDART_INTERFACE && s->slot == 7) res = 0;   /* returns nothing */
    if (res == 0) {
        switch (s->known) {
        case K_CUDART_INTERFACE:
            if (s->slot == 1 || s->slot == 2 || s->slot == 6) zt_data(&x->c, 0, (const void *)(uintptr_t)a[0], 8);
            if (s->slot == 8) zt_data(&x->c, 1, (const void *)(uintptr_t)a[1], 8);
            if ((s->slot == 1 || s->slot == 6) && a[0] && a[1]) zt_module(&x->c, (const void *)(uintptr_t)a[1], *(const uint64_t *)(uintptr_t)a[0], 0);
            if (s->slot == 8 && a[0] && a[1]) zt_module(&x->c, (const void *)(uintptr_t)a[0], *(const uint64_t *)(uintptr_t)a[1], 0);
            break;
        case K_TOOLS_RUNTIME_CALLBACK_HOOKS:
            if (s->slot == 2 || s->slot == 6) {
                zt_data(&x->c, 0, (const void *)(uintptr_t)a[0], 8);
                zt_data(&x->c, 1, (const void *)(uintptr_t)a[1], 8);
            }
            break;
        case K_CONTEXT_LOCAL_STORAGE:
            if (s->slot == 2) zt_data(&x->c, 0, (const void *)(uintptr_t)a[0], 8);
            break;
        case K_INTEGRITY_CHECK:
            if (s->slot == 1) {
                integrity(x, res);
                zt_data(&x->c, 2, (const void *)(uintptr_t)a[2], 16);
            }
            break;
        case K_CONTEXT_CHECKS:
            if (s->slot == 2) zt_data(&x->c, 1, (const void *)(uintptr_t)a[1], 4);
            break;
        default:
            break;
        }
    }
    zt_end(&x->c, res);
}

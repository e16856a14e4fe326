/*
 * Kernel snapshots (ZLUDA_CAPTURE_KERNELS=REGEX): for every cuLaunchKernel / cuLaunchKernelEx (and
 * their _ptsz variants) whose kernel's mangled name (cuFuncGetName, or cuKernelGetName for a
 * CUkernel) matches the POSIX extended regular expression, the tracer
 *  1. packs the kernel's parameter buffer: from `extra` (CU_LAUNCH_PARAM_BUFFER_POINTER/SIZE) when
 *     given, else from kernelParams with the layout cuFuncGetParamInfo (cuKernelGetParamInfo)
 *     reports (no layout, no bytes);
 *  2. synchronises the context (cuCtxSynchronize: the stream and every other one, so no other work
 *     changes the images) and, for every aligned 8-byte word of the buffer that points into a device
 *     allocation (cuMemGetAddressRange), copies the whole allocation to the host (its "before" image);
 *  3. forwards the launch, synchronises again and copies the same allocations ("after");
 *  4. writes the images as BLOBs (stored once by content) and a KERNEL record (FORMAT.md §6.5) after
 *     the launch's LEAVE.
 * An allocation larger than ZLUDA_CAPTURE_KERNELS_MAX_BYTES (default 256 MiB) or one that cannot be
 * copied is listed with hash 0 ("not taken"). A launch that fails keeps its before images and no
 * after images. The driver calls made here go straight to the target and are not recorded.
 * Never changes what the program computes (only adds synchronisation).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <pthread.h>
#include <regex.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tracer.h"

#define MAX_PARAMS 4096
#define MAX_BUFFERS 256
#define BUCKETS 1024

typedef struct kinfo {
    uint64_t f;
    int match;
    char *name;
    int nparams;          /* -1: layout unknown */
    uint32_t *off, *size;
    size_t plen;
    struct kinfo *next;
} kinfo;

struct zt_kernel {
    kinfo *k;
    uint8_t *params;
    size_t plen;
    size_t nbuf;
    zcap_kernel_buffer bufs[MAX_BUFFERS];
};

static atomic_int mode;   /* 0 not read yet, 1 off, 2 on */
static regex_t re;
static uint64_t max_bytes = 256ull << 20;
static pthread_mutex_t klock = PTHREAD_MUTEX_INITIALIZER;
static kinfo *buckets[BUCKETS];

typedef int (*sync_fn)(void);
typedef int (*range_fn)(uint64_t *, size_t *, uint64_t);
typedef int (*dtoh_fn)(void *, uint64_t, size_t);
typedef int (*name_fn)(const char **, uint64_t);
typedef int (*pinfo_fn)(uint64_t, size_t, size_t *, size_t *);

static int enabled(void) {
    int m = atomic_load_explicit(&mode, memory_order_relaxed);
    if (m) return m == 2;
    pthread_mutex_lock(&klock);
    if (!atomic_load(&mode)) {
        const char *e = getenv("ZLUDA_CAPTURE_KERNELS");
        int on = 0;
        if (e && *e) {
            int rc = regcomp(&re, e, REG_EXTENDED | REG_NOSUB);
            if (rc != 0) {
                char msg[256];
                regerror(rc, &re, msg, sizeof msg);
                fprintf(stderr, "[ZLUDA_TRACE] ZLUDA_CAPTURE_KERNELS=%s is not a valid regular expression (%s): no kernel snapshots\n", e, msg);
            } else {
                on = 1;
            }
        }
        const char *mb = getenv("ZLUDA_CAPTURE_KERNELS_MAX_BYTES");
        if (mb && *mb) max_bytes = strtoull(mb, NULL, 0);
        atomic_store(&mode, on ? 2 : 1);
    }
    pthread_mutex_unlock(&klock);
    return atomic_load(&mode) == 2;
}

/* What is known of a function handle (looked up once). */
static kinfo *info(uint64_t f) {
    size_t b = (size_t)((f >> 4) ^ (f >> 16)) % BUCKETS;
    pthread_mutex_lock(&klock);
    for (kinfo *k = buckets[b]; k; k = k->next) {
        if (k->f == f) { pthread_mutex_unlock(&klock); return k; }
    }
    kinfo *k = calloc(1, sizeof *k);
    if (!k) { pthread_mutex_unlock(&klock); return NULL; }
    k->f = f;
    k->nparams = -1;
    /* a launch may name a CUkernel (cudart 12+ launches what cuLibraryGetKernel gave it): the
     * cuKernel* queries answer for those */
    const char *name = NULL;
    name_fn gn = (name_fn)zt_real_by_name("cuFuncGetName");
    name_fn kn = (name_fn)zt_real_by_name("cuKernelGetName");
    int is_kernel = 0;
    if (!gn || gn(&name, f) != 0 || !name || !*name) {
        name = NULL;
        if (kn && kn(&name, f) == 0 && name) is_kernel = 1;
        else name = "";
    }
    k->name = strdup(name);
    k->match = k->name && regexec(&re, k->name, 0, NULL, 0) == 0;
    pinfo_fn pi = (pinfo_fn)zt_real_by_name(is_kernel ? "cuKernelGetParamInfo" : "cuFuncGetParamInfo");
    if (k->match && pi) {
        size_t off, size;
        int n = 0;
        while (n < MAX_PARAMS && pi(f, (size_t)n, &off, &size) == 0) n++;
        k->off = calloc((size_t)n + 1, sizeof *k->off);
        k->size = calloc((size_t)n + 1, sizeof *k->size);
        if (k->off && k->size) {
            for (int i = 0; i < n; i++) {
                pi(f, (size_t)i, &off, &size);
                k->off[i] = (uint32_t)off;
                k->size[i] = (uint32_t)size;
                if (off + size > k->plen) k->plen = off + size;
            }
            k->nparams = n;
        }
    }
    k->next = buckets[b];
    buckets[b] = k;
    pthread_mutex_unlock(&klock);
    return k;
}

/* Copies each buffer to the host and stores it as a blob; the hash, or 0 when not taken. */
static void images(zt_call *c, struct zt_kernel *s, int after) {
    dtoh_fn dtoh = (dtoh_fn)zt_real_by_name("cuMemcpyDtoH_v2");
    for (size_t i = 0; i < s->nbuf; i++) {
        zcap_kernel_buffer *b = &s->bufs[i];
        uint64_t h = 0;
        void *host = dtoh && b->size && b->size <= max_bytes ? malloc(b->size) : NULL;
        if (host && dtoh(host, b->device_pointer, b->size) == 0) h = zcap_blob(c->thread, host, b->size, zcap_now());
        free(host);
        if (after) b->after = h;
        else b->before = h;
    }
}

void zt_kernel_before(zt_call *c, uint64_t f, uint64_t stream, void **params, void **extra) {
    (void)stream;
    c->kernel = NULL;
    if (!enabled() || !c->thread || !f) return;
    kinfo *k = info(f);
    if (!k || !k->match) return;
    struct zt_kernel *s = calloc(1, sizeof *s);
    if (!s) return;
    s->k = k;
    const void *buf = NULL;
    size_t blen = 0;
    if (extra) {
        for (int i = 0; i < 64 && extra[i] != NULL; i += 2) {
            if (extra[i] == (void *)1) buf = extra[i + 1];                                        /* CU_LAUNCH_PARAM_BUFFER_POINTER */
            else if (extra[i] == (void *)2 && extra[i + 1]) blen = *(const size_t *)extra[i + 1];  /* CU_LAUNCH_PARAM_BUFFER_SIZE */
        }
    }
    if (buf && blen && blen < (1u << 20)) {
        s->params = malloc(blen);
        if (s->params) { memcpy(s->params, buf, blen); s->plen = blen; }
    } else if (params && k->nparams > 0 && k->plen < (1u << 20)) {
        s->params = calloc(1, k->plen);
        if (s->params) {
            for (int i = 0; i < k->nparams; i++) if (params[i]) memcpy(s->params + k->off[i], params[i], k->size[i]);
            s->plen = k->plen;
        }
    }
    sync_fn sync = (sync_fn)zt_real_by_name("cuCtxSynchronize");
    if (sync) sync();
    range_fn range = (range_fn)zt_real_by_name("cuMemGetAddressRange_v2");
    for (size_t o = 0; range && o + 8 <= s->plen && s->nbuf < MAX_BUFFERS; o += 8) {
        uint64_t v, base = 0;
        size_t size = 0;
        memcpy(&v, s->params + o, 8);
        if (!v || range(&base, &size, v) != 0 || !size) continue;
        int seen = 0;
        for (size_t i = 0; i < s->nbuf; i++) if (s->bufs[i].device_pointer == base) seen = 1;
        if (seen) continue;
        s->bufs[s->nbuf].device_pointer = base;
        s->bufs[s->nbuf].size = size;
        s->nbuf++;
    }
    images(c, s, 0);
    c->kernel = s;
}

void zt_kernel_after(zt_call *c, int result) {
    struct zt_kernel *s = c->kernel;
    if (!s) return;
    c->kernel = NULL;
    if (result == 0) {
        sync_fn sync = (sync_fn)zt_real_by_name("cuCtxSynchronize");
        if (sync) sync();
        images(c, s, 1);
    }
    if (c->enter_seq >= 0) zcap_kernel(c->thread, (uint64_t)c->enter_seq, s->k->f, s->k->name, s->params, s->plen, s->bufs, s->nbuf, zcap_now());
    free(s->params);
    free(s);
}

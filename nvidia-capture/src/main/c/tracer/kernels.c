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

/* Whether work enqueued on the stream now is captured into a graph rather than run (cuStreamIsCapturing); a
 * stream the driver cannot answer for counts as capturing. A captured launch is not snapshotted: nothing runs,
 * and synchronising would break the capture. */
static int capturing(uint64_t stream) {
    typedef int (*is_capturing_fn)(uint64_t, int *);
    is_capturing_fn f = (is_capturing_fn)zt_real_by_name("cuStreamIsCapturing");
    int status = 0;
    if (!f) return 0;
    return f(stream, &status) != 0 || status != 0;
}

/*
 * The allocations a launch's parameters point into: every 8-byte-aligned word of the packed parameters
 * that cuMemGetAddressRange (range, NULL when the driver lacks it) places in an allocation, each
 * allocation once, at most MAX_BUFFERS; called once the stream's earlier work is done.
 */
static void find_buffers(struct zt_kernel *s, range_fn range) {
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
}

void zt_kernel_before(zt_call *c, uint64_t f, uint64_t stream, void **params, void **extra) {
    c->kernel = NULL;
    if (!enabled() || !c->thread || !f) return;
    if (capturing(stream)) return;
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
    find_buffers(s, (range_fn)zt_real_by_name("cuMemGetAddressRange_v2"));
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

/* ------------------------------------------------------------------ graph launches
 *
 * An executable graph's kernel nodes, as the tracer learned them from the graph it was instantiated or updated
 * from (cuGraphGetNodes, cuGraphNodeGetDependencies, cuGraphNodeGetType, cuGraphKernelNodeGetParams_v2,
 * cuGraphChildGraphNodeGetGraph, all on the target driver, unrecorded), in dependency order: Kahn's algorithm,
 * among the ready nodes the first in cuGraphGetNodes' order (the order zluda's driver runs them in), a child
 * graph's kernels in place of its node. Conditional nodes' bodies are not known in advance and are left out.
 * At cuGraphLaunch every kernel node the regular expression names is snapshotted: the context is synchronised,
 * each one's buffers are found and copied (before), the launch is forwarded, the context synchronised again and
 * the buffers copied (after); the KERNEL records carry their launch section (shape, dynamic shared memory, the
 * synchronisation's result) since cuGraphLaunch's arguments do not hold it. */

#define CU_GRAPH_NODE_TYPE_KERNEL 0
#define CU_GRAPH_NODE_TYPE_GRAPH 4

/* CUDA_KERNEL_NODE_PARAMS_v2 (cuda.h, CUDA 13.0: 72 bytes; v1 is its first 56, v3 the same layout). */
typedef struct {
    uint64_t func;
    uint32_t grid[3], block[3], shared;
    uint32_t pad;
    void **kernelParams;
    void **extra;
    uint64_t kern;
    uint64_t ctx;
} knode_params;

typedef struct {
    uint64_t node, alt;   /* the node of the graph it came from, and of the graph the exec was updated from (0: in a child graph) */
    kinfo *k;
    uint32_t grid[3], block[3], shared;
    uint8_t *params;
    size_t plen;
} gkernel;

typedef struct gexec {
    uint64_t exec;
    gkernel *kernels;
    size_t n, cap;
    struct gexec *next;
} gexec;

struct zt_graph_launch {
    struct zt_kernel *snaps;   /* one per kernel node of the executable graph the expression names */
    zcap_kernel_shape *shapes; /* their shapes, copied at the launch */
    size_t n;
};

static gexec *gexecs;
static pthread_mutex_t glock = PTHREAD_MUTEX_INITIALIZER;

typedef int (*gnodes_fn)(uint64_t, uint64_t *, size_t *);
typedef int (*gtype_fn)(uint64_t, int *);
typedef int (*gkparams_fn)(uint64_t, knode_params *);
typedef int (*gchild_fn)(uint64_t, uint64_t *);

/* Packs a kernel node's parameter values like a launch's (extra, else kernelParams with the kernel's layout). */
static int pack_node(gkernel *g, const knode_params *p, int v2) {
    uint64_t f = p->func ? p->func : (v2 ? p->kern : 0);
    kinfo *k = f ? info(f) : NULL;
    if (!k || !k->match) return 0;
    g->k = k;
    memcpy(g->grid, p->grid, sizeof g->grid);
    memcpy(g->block, p->block, sizeof g->block);
    g->shared = p->shared;
    free(g->params);
    g->params = NULL;
    g->plen = 0;
    const void *buf = NULL;
    size_t blen = 0;
    if (p->extra) {
        for (int i = 0; i < 64 && p->extra[i] != NULL; i += 2) {
            if (p->extra[i] == (void *)1) buf = p->extra[i + 1];
            else if (p->extra[i] == (void *)2 && p->extra[i + 1]) blen = *(const size_t *)p->extra[i + 1];
        }
    }
    if (buf && blen && blen < (1u << 20)) {
        g->params = malloc(blen);
        if (g->params) { memcpy(g->params, buf, blen); g->plen = blen; }
    } else if (p->kernelParams && k->nparams > 0 && k->plen < (1u << 20)) {
        g->params = calloc(1, k->plen);
        if (g->params) {
            for (int i = 0; i < k->nparams; i++) if (p->kernelParams[i]) memcpy(g->params + k->off[i], p->kernelParams[i], k->size[i]);
            g->plen = k->plen;
        }
    }
    return 1;
}

static void add_kernel(gexec *e, uint64_t node, const knode_params *p) {
    if (e->n == e->cap) {
        size_t cap = e->cap ? 2 * e->cap : 16;
        gkernel *nk = realloc(e->kernels, cap * sizeof *nk);
        if (!nk) return;
        e->kernels = nk;
        e->cap = cap;
    }
    gkernel *g = &e->kernels[e->n];
    memset(g, 0, sizeof *g);
    g->node = node;
    if (pack_node(g, p, 1)) e->n++;
}

/* Appends the kernel nodes of a graph (and its child graphs) in dependency order. */
static void add_graph(gexec *e, uint64_t graph, int top, int depth) {
    gnodes_fn nodes_of = (gnodes_fn)zt_real_by_name("cuGraphGetNodes");
    gnodes_fn deps_of = (gnodes_fn)zt_real_by_name("cuGraphNodeGetDependencies");
    gtype_fn type_of = (gtype_fn)zt_real_by_name("cuGraphNodeGetType");
    gkparams_fn kparams = (gkparams_fn)zt_real_by_name("cuGraphKernelNodeGetParams_v2");
    gchild_fn child_of = (gchild_fn)zt_real_by_name("cuGraphChildGraphNodeGetGraph");
    if (!nodes_of || !deps_of || !type_of || !kparams || !child_of || depth > 16) return;
    size_t n = 0;
    if (nodes_of(graph, NULL, &n) != 0 || n == 0) return;
    uint64_t *nodes = calloc(n, sizeof *nodes);
    int *waiting = calloc(n, sizeof *waiting), *done = calloc(n, sizeof *done);
    uint64_t **deps = calloc(n, sizeof *deps);
    size_t *ndeps = calloc(n, sizeof *ndeps);
    if (!nodes || !waiting || !done || !deps || !ndeps || nodes_of(graph, nodes, &n) != 0) goto out;
    for (size_t i = 0; i < n; i++) {
        size_t d = 0;
        if (deps_of(nodes[i], NULL, &d) == 0 && d > 0 && (deps[i] = calloc(d, sizeof **deps)) && deps_of(nodes[i], deps[i], &d) == 0) ndeps[i] = d;
        waiting[i] = (int)ndeps[i];
    }
    for (size_t step = 0; step < n; step++) {
        size_t i = 0;
        while (i < n && (done[i] || waiting[i] > 0)) i++;
        if (i == n) break; /* a cycle: the driver refuses to instantiate it anyway */
        done[i] = 1;
        for (size_t j = 0; j < n; j++) for (size_t d = 0; d < ndeps[j]; d++) if (deps[j][d] == nodes[i]) waiting[j]--;
        int type = -1;
        if (type_of(nodes[i], &type) != 0) continue;
        if (type == CU_GRAPH_NODE_TYPE_KERNEL) {
            knode_params p;
            memset(&p, 0, sizeof p);
            if (kparams(nodes[i], &p) == 0) add_kernel(e, top ? nodes[i] : 0, &p);
        } else if (type == CU_GRAPH_NODE_TYPE_GRAPH) {
            uint64_t child = 0;
            if (child_of(nodes[i], &child) == 0 && child) add_graph(e, child, 0, depth + 1);
        }
    }
out:
    if (deps) for (size_t i = 0; i < n; i++) free(deps[i]);
    free(deps);
    free(ndeps);
    free(nodes);
    free(waiting);
    free(done);
}

static void free_exec(gexec *e) {
    for (size_t i = 0; i < e->n; i++) free(e->kernels[i].params);
    free(e->kernels);
    free(e);
}

/* The record of an executable graph; glock held. */
static gexec **find_exec(uint64_t exec) {
    gexec **p = &gexecs;
    while (*p && (*p)->exec != exec) p = &(*p)->next;
    return p;
}

/* A new record of exec's kernel nodes, read from graph, and in *p where exec's current record is (*p, or the list's
 * end), with glock held on return; NULL, the lock not taken, when tracing is off, exec is 0 or memory ran out. */
static gexec *new_exec_locked(uint64_t exec, uint64_t graph, gexec ***p) {
    if (!enabled() || !exec) return NULL;
    gexec *e = calloc(1, sizeof *e);
    if (!e) return NULL;
    e->exec = exec;
    add_graph(e, graph, 1, 0);
    pthread_mutex_lock(&glock);
    *p = find_exec(exec);
    return e;
}

void zt_graph_instantiated(uint64_t exec, uint64_t graph) {
    gexec **p, *e = new_exec_locked(exec, graph, &p);
    if (!e) return;
    if (*p) { gexec *old = *p; *p = old->next; free_exec(old); }
    e->next = gexecs;
    gexecs = e;
    pthread_mutex_unlock(&glock);
}

void zt_graph_updated(uint64_t exec, uint64_t graph) {
    gexec **p, *e = new_exec_locked(exec, graph, &p);
    if (!e) return;
    if (*p) {
        gexec *old = *p;
        /* the same topology: the k-th kernel node of each; the old node handles keep naming them */
        for (size_t i = 0; i < e->n && i < old->n; i++) e->kernels[i].alt = old->kernels[i].node ? old->kernels[i].node : old->kernels[i].alt;
        *p = old->next;
        free_exec(old);
    }
    e->next = gexecs;
    gexecs = e;
    pthread_mutex_unlock(&glock);
}

void zt_graph_kernel_params(uint64_t exec, uint64_t node, const void *params, int v2) {
    if (!enabled() || !params || !node) return;
    knode_params p;
    memset(&p, 0, sizeof p);
    memcpy(&p, params, v2 ? sizeof p : 56);
    pthread_mutex_lock(&glock);
    gexec *e = *find_exec(exec);
    for (size_t i = 0; e && i < e->n; i++) {
        if (e->kernels[i].node == node || e->kernels[i].alt == node) pack_node(&e->kernels[i], &p, v2);
    }
    pthread_mutex_unlock(&glock);
}

void zt_graph_node_params(uint64_t exec, uint64_t node, const void *params) {
    /* CUgraphNodeParams: int type at 0, the kind's parameters at 16 */
    if (params && *(const int *)params == CU_GRAPH_NODE_TYPE_KERNEL) zt_graph_kernel_params(exec, node, (const char *)params + 16, 1);
}

void zt_graph_destroyed(uint64_t exec) {
    pthread_mutex_lock(&glock);
    gexec **p = find_exec(exec);
    if (*p) { gexec *old = *p; *p = old->next; free_exec(old); }
    pthread_mutex_unlock(&glock);
}

void zt_graph_before(zt_call *c, uint64_t exec, uint64_t stream) {
    c->graph = NULL;
    if (!enabled() || !c->thread || capturing(stream)) return;
    pthread_mutex_lock(&glock);
    gexec *e = *find_exec(exec);
    struct zt_graph_launch *g = e && e->n > 0 ? calloc(1, sizeof *g) : NULL;
    if (g) {
        g->snaps = calloc(e->n, sizeof *g->snaps);
        g->shapes = calloc(e->n, sizeof *g->shapes);
        if (!g->snaps || !g->shapes) { free(g->snaps); free(g->shapes); free(g); g = NULL; }
    }
    if (!g) { pthread_mutex_unlock(&glock); return; }
    g->n = e->n;
    for (size_t i = 0; i < g->n; i++) {
        gkernel *k = &e->kernels[i];
        struct zt_kernel *s = &g->snaps[i];
        s->k = k->k;
        s->params = k->plen ? malloc(k->plen) : NULL;
        if (s->params) { memcpy(s->params, k->params, k->plen); s->plen = k->plen; }
        for (int d = 0; d < 3; d++) { g->shapes[i].grid[d] = k->grid[d]; g->shapes[i].block[d] = k->block[d]; }
        g->shapes[i].shared_mem = k->shared;
    }
    pthread_mutex_unlock(&glock);
    sync_fn sync = (sync_fn)zt_real_by_name("cuCtxSynchronize");
    if (sync) sync();
    range_fn range = (range_fn)zt_real_by_name("cuMemGetAddressRange_v2");
    for (size_t i = 0; i < g->n; i++) {
        find_buffers(&g->snaps[i], range);
        images(c, &g->snaps[i], 0);
    }
    c->graph = g;
}

void zt_graph_after(zt_call *c, int result) {
    struct zt_graph_launch *g = c->graph;
    if (!g) return;
    c->graph = NULL;
    int synced = result;
    if (result == 0) {
        sync_fn sync = (sync_fn)zt_real_by_name("cuCtxSynchronize");
        synced = sync ? sync() : 0;
        for (size_t i = 0; i < g->n; i++) images(c, &g->snaps[i], 1);
    }
    for (size_t i = 0; i < g->n; i++) {
        struct zt_kernel *s = &g->snaps[i];
        g->shapes[i].result = (uint64_t)(unsigned)synced;
        if (c->enter_seq >= 0 && s->k) {
            zcap_kernel_launch(c->thread, (uint64_t)c->enter_seq, s->k->f, s->k->name, s->params, s->plen, s->bufs, s->nbuf, &g->shapes[i],
                               zcap_now());
        }
        free(s->params);
    }
    free(g->snaps);
    free(g->shapes);
    free(g);
}

/*
 * A stand-in for AMD's libamdhip64.so, for testing the driver's hip backend where no AMD GPU exists. It is a
 * test fixture, not a HIP: it implements the hip* functions the backend calls, with the signatures of HIP 5.x/6.x's
 * public hip_runtime_api.h, on host memory, and records what reaches it so that the test can check the calls.
 *
 *  - one device, "AMD Radeon RX 7900 XTX (fake HIP)", gcnArchName "gfx1100", 16 GiB; hipRuntimeGetVersion
 *    50221153 (5.2) unless fake_hip_set_version says otherwise; hipGetDeviceProperties fills HIP 5's
 *    hipDeviceProp_t (name 0, totalGlobalMem 256, gcnArchName 396), hipGetDevicePropertiesR0600 HIP 6's
 *    (name 0, totalGlobalMem 288, gcnArchName 1160);
 *  - device memory is malloc'd host memory handed out at fake device addresses (from 0x100000000000), which are
 *    not mapped in the process: a driver that touched "device" memory without HIP's copies would crash;
 *  - hipModuleLoadData accepts only an ELF64 AMDGPU HSA code object (e_machine EM_AMDGPU = 224, OS/ABI
 *    ELFOSABI_AMDGPU_HSA = 64) and keeps its dynamic symbols; hipModuleGetFunction finds "NAME.kd" there;
 *  - hipModuleLaunchKernel records the kernel's name, grid, block, shared bytes, stream and the argument buffer
 *    (HIP_LAUNCH_PARAM_BUFFER_POINTER / _SIZE / _END in `extra`); it runs nothing;
 *  - hipDeviceGetAttribute answers 1000 + the attribute for attributes 0..91 except a few real-looking limits
 *    (warp 32, 1024 threads per block, grid 2^31-1 × 65536 × 65536, 64 KiB shared per block) and refuses 76
 *    (hipDeviceAttributeSharedMemPerMultiprocessor, "Cuda only") while answering 10002 with 131072.
 *
 * fake_hip_* functions let the test reset the state and read what was recorded.
 */
#include <elf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))

enum { hipSuccess = 0, hipErrorInvalidValue = 1, hipErrorNotInitialized = 3, hipErrorInvalidImage = 200,
       hipErrorInvalidHandle = 400, hipErrorNotFound = 500, hipErrorNotSupported = 801 };

#define DEVICE_BASE 0x100000000000ULL
#define MAX_ALLOCS 1024
#define MAX_MODULES 64
#define MAX_FUNCS 256
#define MAX_LAUNCHES 64
#define MAX_ARGS 4096

struct alloc { uint64_t dev; size_t size; unsigned char *host; int live; };
struct module { unsigned char *elf; size_t size; int live; unsigned e_flags; };
struct func { int module; char name[256]; };
struct launch { char name[256]; unsigned dims[6]; unsigned shared; long stream; size_t argSize; unsigned char args[MAX_ARGS]; };

static int version = 50221153;
static int inited;
static struct alloc allocs[MAX_ALLOCS];
static int nallocs;
static uint64_t nextDev = DEVICE_BASE;
static struct module modules[MAX_MODULES];
static int nmodules;
static struct func funcs[MAX_FUNCS];
static int nfuncs;
static struct launch launches[MAX_LAUNCHES];
static int nlaunches;
static int nstreams, nevents, streamsLive, eventsLive;
static long eventStream[256];
static int eventSeq[256], recordSeq;
static long copies[4]; /* HtoD, DtoH, DtoD, memset */
static long syncs[3];  /* device, stream, event */
static long lastWaitStream = -1, lastWaitEvent = -1;

/* ---------------------------------------------------------------- for the test */

EXPORT void fake_hip_reset(void) {
    for (int i = 0; i < nallocs; i++) if (allocs[i].live) free(allocs[i].host);
    for (int i = 0; i < nmodules; i++) if (modules[i].live) free(modules[i].elf);
    memset(allocs, 0, sizeof allocs);
    nallocs = nmodules = nfuncs = nlaunches = nstreams = nevents = streamsLive = eventsLive = recordSeq = 0;
    nextDev = DEVICE_BASE;
    memset(copies, 0, sizeof copies);
    memset(syncs, 0, sizeof syncs);
    lastWaitStream = lastWaitEvent = -1;
    version = 50221153;
    inited = 0;
}

EXPORT void fake_hip_set_version(int v) { version = v; }
EXPORT int fake_hip_launch_count(void) { return nlaunches; }
/** Copies launch i: name (256 bytes), dims[7] = grid xyz, block xyz, shared; returns the stream (index) and args. */
EXPORT long fake_hip_launch(int i, char *name, unsigned *dims, unsigned char *args, size_t cap, size_t *argSize) {
    if (i < 0 || i >= nlaunches) return -2;
    struct launch *l = &launches[i];
    memcpy(name, l->name, 256);
    memcpy(dims, l->dims, sizeof l->dims);
    dims[6] = l->shared;
    *argSize = l->argSize;
    memcpy(args, l->args, l->argSize < cap ? l->argSize : cap);
    return l->stream;
}
/** Copies counters: HtoD, DtoH, DtoD, memset, deviceSync, streamSync, eventSync, live allocations, live streams, live events, modules loaded, last loaded module's e_flags. */
EXPORT void fake_hip_counters(long *out) {
    int live = 0;
    for (int i = 0; i < nallocs; i++) live += allocs[i].live;
    for (int i = 0; i < 4; i++) out[i] = copies[i];
    for (int i = 0; i < 3; i++) out[4 + i] = syncs[i];
    out[7] = live;
    out[8] = streamsLive;
    out[9] = eventsLive;
    out[10] = nmodules;
    out[11] = nmodules ? modules[nmodules - 1].e_flags : 0;
}
/** The stream (index: 0 null stream, n the n-th created) event e (1-based index) was last recorded on, or -1. */
EXPORT long fake_hip_event_stream(int e) { return e > 0 && e <= nevents ? eventStream[e - 1] : -1; }
EXPORT long fake_hip_last_wait(int which) { return which == 0 ? lastWaitStream : lastWaitEvent; }
/** The host bytes behind a fake device address (for the test to look at device memory directly), or NULL. */
static unsigned char *host(uint64_t dev, size_t bytes);
EXPORT void *fake_hip_host(uint64_t dev, size_t bytes) { return host(dev, bytes); }

/* ---------------------------------------------------------------- memory */

static unsigned char *host(uint64_t dev, size_t bytes) {
    for (int i = 0; i < nallocs; i++) {
        struct alloc *a = &allocs[i];
        if (a->live && dev >= a->dev && dev - a->dev <= a->size && bytes <= a->size - (dev - a->dev)) return a->host + (dev - a->dev);
    }
    return NULL;
}

EXPORT int hipInit(unsigned flags) { if (flags) return hipErrorInvalidValue; inited = 1; return hipSuccess; }
EXPORT int hipGetDeviceCount(int *n) { if (!n) return hipErrorInvalidValue; *n = 1; return hipSuccess; }
EXPORT int hipSetDevice(int d) { return d == 0 ? hipSuccess : 101; }
EXPORT int hipRuntimeGetVersion(int *v) { if (!v) return hipErrorInvalidValue; *v = version; return hipSuccess; }
EXPORT int hipDriverGetVersion(int *v) { if (!v) return hipErrorInvalidValue; *v = version; return hipSuccess; }

EXPORT const char *hipGetErrorString(int e) {
    switch (e) {
        case hipSuccess: return "no error";
        case hipErrorInvalidValue: return "invalid argument";
        case hipErrorInvalidImage: return "device kernel image is invalid";
        case hipErrorInvalidHandle: return "invalid resource handle";
        case hipErrorNotFound: return "named symbol not found";
        default: return "unknown error";
    }
}

static const char NAME[] = "AMD Radeon RX 7900 XTX (fake HIP)";

EXPORT int hipDeviceGetName(char *name, int len, int dev) {
    if (dev != 0) return 101;
    if (!name || len <= 0) return hipErrorInvalidValue;
    snprintf(name, (size_t) len, "%s", NAME);
    return hipSuccess;
}

static int props(unsigned char *p, int dev, int totalOff, int archOff) {
    if (dev != 0) return 101;
    if (!p) return hipErrorInvalidValue;
    memset(p, 0, (size_t) archOff + 256);
    strcpy((char *) p, NAME);
    uint64_t total = 16ULL << 30;
    memcpy(p + totalOff, &total, 8);
    strcpy((char *) p + archOff, "gfx1100");
    return hipSuccess;
}

EXPORT int hipGetDeviceProperties(void *p, int dev) { return props(p, dev, 256, 396); }
EXPORT int hipGetDevicePropertiesR0600(void *p, int dev) { return props(p, dev, 288, 1160); }

EXPORT int hipDeviceGetAttribute(int *v, int attr, int dev) {
    if (!v || dev != 0) return hipErrorInvalidValue;
    switch (attr) {
        case 87: *v = 32; return hipSuccess;                         /* WarpSize */
        case 56: case 26: case 27: case 28: *v = 1024; return hipSuccess; /* MaxThreadsPerBlock, MaxBlockDimX/Y/Z */
        case 29: *v = 2147483647; return hipSuccess;                 /* MaxGridDimX */
        case 30: case 31: *v = 65536; return hipSuccess;             /* MaxGridDimY/Z */
        case 74: *v = 65536; return hipSuccess;                      /* MaxSharedMemoryPerBlock */
        case 76: return hipErrorInvalidValue;                        /* SharedMemPerMultiprocessor: "Cuda only" */
        case 10002: *v = 131072; return hipSuccess;                  /* MaxSharedMemoryPerMultiprocessor */
        default:
            if (attr >= 0 && attr <= 91) { *v = 1000 + attr; return hipSuccess; }
            return hipErrorInvalidValue;
    }
}

EXPORT int hipMalloc(void **p, size_t size) {
    if (!p || nallocs == MAX_ALLOCS) return hipErrorInvalidValue;
    struct alloc *a = &allocs[nallocs++];
    a->host = calloc(1, size ? size : 1);
    a->size = size;
    a->dev = nextDev;
    a->live = 1;
    nextDev += (size + 0xFFFF) & ~(uint64_t) 0xFFFF;
    nextDev += 0x10000; /* a gap between allocations */
    *p = (void *) (uintptr_t) a->dev;
    return hipSuccess;
}

EXPORT int hipFree(void *p) {
    if (!p) return hipSuccess;
    for (int i = 0; i < nallocs; i++) {
        if (allocs[i].live && allocs[i].dev == (uint64_t) (uintptr_t) p) {
            free(allocs[i].host);
            allocs[i].live = 0;
            return hipSuccess;
        }
    }
    return hipErrorInvalidValue;
}

EXPORT int hipMemcpyHtoD(uint64_t dst, const void *src, size_t n) {
    unsigned char *d = host(dst, n);
    if (!d || !src) return hipErrorInvalidValue;
    memcpy(d, src, n);
    copies[0]++;
    return hipSuccess;
}

EXPORT int hipMemcpyDtoH(void *dst, uint64_t src, size_t n) {
    unsigned char *s = host(src, n);
    if (!s || !dst) return hipErrorInvalidValue;
    memcpy(dst, s, n);
    copies[1]++;
    return hipSuccess;
}

EXPORT int hipMemcpyDtoD(uint64_t dst, uint64_t src, size_t n) {
    unsigned char *d = host(dst, n), *s = host(src, n);
    if (!d || !s) return hipErrorInvalidValue;
    memmove(d, s, n);
    copies[2]++;
    return hipSuccess;
}

EXPORT int hipMemsetD8(uint64_t dst, unsigned char v, size_t n) {
    unsigned char *d = host(dst, n);
    if (!d) return hipErrorInvalidValue;
    memset(d, v, n);
    copies[3]++;
    return hipSuccess;
}

EXPORT int hipMemsetD16(uint64_t dst, unsigned short v, size_t n) {
    unsigned char *d = host(dst, 2 * n);
    if (!d) return hipErrorInvalidValue;
    for (size_t i = 0; i < n; i++) memcpy(d + 2 * i, &v, 2);
    copies[3]++;
    return hipSuccess;
}

EXPORT int hipMemsetD32(uint64_t dst, int v, size_t n) {
    unsigned char *d = host(dst, 4 * n);
    if (!d) return hipErrorInvalidValue;
    for (size_t i = 0; i < n; i++) memcpy(d + 4 * i, &v, 4);
    copies[3]++;
    return hipSuccess;
}

/* ---------------------------------------------------------------- modules */

/** The dynamic symbol `name` of a code object, or NULL. */
static const Elf64_Sym *symbol(const struct module *m, const char *name) {
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *) m->elf;
    if (eh->e_shoff == 0 || eh->e_shoff + (uint64_t) eh->e_shnum * sizeof(Elf64_Shdr) > m->size) return NULL;
    const Elf64_Shdr *sh = (const Elf64_Shdr *) (m->elf + eh->e_shoff);
    for (int i = 0; i < eh->e_shnum; i++) {
        if (sh[i].sh_type != SHT_DYNSYM || sh[i].sh_link >= eh->e_shnum) continue;
        const Elf64_Shdr *str = &sh[sh[i].sh_link];
        if (sh[i].sh_offset + sh[i].sh_size > m->size || str->sh_offset + str->sh_size > m->size) return NULL;
        const Elf64_Sym *syms = (const Elf64_Sym *) (m->elf + sh[i].sh_offset);
        size_t n = sh[i].sh_size / sizeof(Elf64_Sym);
        for (size_t k = 0; k < n; k++) {
            if (syms[k].st_name >= str->sh_size) continue;
            if (strcmp((const char *) m->elf + str->sh_offset + syms[k].st_name, name) == 0) return &syms[k];
        }
    }
    return NULL;
}

EXPORT int hipModuleLoadData(void **module, const void *image) {
    if (!module || !image || nmodules == MAX_MODULES) return hipErrorInvalidValue;
    const Elf64_Ehdr *eh = image;
    if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_ident[EI_CLASS] != ELFCLASS64) return hipErrorInvalidImage;
    if (eh->e_machine != 224 || eh->e_ident[EI_OSABI] != 64) return hipErrorInvalidImage;   /* EM_AMDGPU, ELFOSABI_AMDGPU_HSA */
    /* the image's size: the end of the section header table, which ld.lld puts last */
    size_t size = eh->e_shoff + (size_t) eh->e_shnum * eh->e_shentsize;
    struct module *m = &modules[nmodules];
    m->elf = malloc(size);
    memcpy(m->elf, image, size);
    m->size = size;
    m->live = 1;
    m->e_flags = eh->e_flags;
    *module = (void *) (uintptr_t) (0x7a000 + 16 * ++nmodules);
    return hipSuccess;
}

static struct module *moduleOf(void *h) {
    uintptr_t v = (uintptr_t) h;
    if (v < 0x7a010 || (v - 0x7a000) % 16) return NULL;
    int i = (int) ((v - 0x7a000) / 16) - 1;
    return i < nmodules && modules[i].live ? &modules[i] : NULL;
}

EXPORT int hipModuleUnload(void *h) {
    struct module *m = moduleOf(h);
    if (!m) return hipErrorInvalidHandle;
    m->live = 0;
    free(m->elf);
    m->elf = NULL;
    return hipSuccess;
}

EXPORT int hipModuleGetFunction(void **f, void *h, const char *name) {
    struct module *m = moduleOf(h);
    if (!m) return hipErrorInvalidHandle;
    if (!f || !name || strlen(name) > 200 || nfuncs == MAX_FUNCS) return hipErrorInvalidValue;
    char kd[256];
    snprintf(kd, sizeof kd, "%s.kd", name);
    if (!symbol(m, kd)) return hipErrorNotFound;
    funcs[nfuncs].module = (int) (m - modules);
    snprintf(funcs[nfuncs].name, sizeof funcs[nfuncs].name, "%s", name);
    *f = (void *) (uintptr_t) (0x7f000 + 16 * ++nfuncs);
    return hipSuccess;
}

static struct func *funcOf(void *h) {
    uintptr_t v = (uintptr_t) h;
    if (v < 0x7f010 || (v - 0x7f000) % 16) return NULL;
    int i = (int) ((v - 0x7f000) / 16) - 1;
    return i < nfuncs ? &funcs[i] : NULL;
}

EXPORT int hipModuleGetGlobal(uint64_t *dptr, size_t *bytes, void *h, const char *name) {
    (void) dptr; (void) bytes; (void) name;
    return moduleOf(h) ? hipErrorNotSupported : hipErrorInvalidHandle;
}

EXPORT int hipFuncGetAttribute(int *v, int attr, void *f) {
    if (!v || !funcOf(f)) return hipErrorInvalidValue;
    switch (attr) {
        case 0: *v = 1024; return hipSuccess;   /* HIP_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK */
        case 4: *v = 24; return hipSuccess;     /* NUM_REGS */
        default: *v = 0; return hipSuccess;
    }
}

/* ---------------------------------------------------------------- streams and events */

static long streamIndex(void *s) {
    uintptr_t v = (uintptr_t) s;
    if (v == 0) return 0;
    if (v < 0x5000 || (v - 0x5000) % 16) return -1;
    return (long) ((v - 0x5000) / 16);
}

EXPORT int hipStreamCreateWithPriority(void **s, unsigned flags, int priority) {
    (void) priority;
    if (!s || flags > 1) return hipErrorInvalidValue;
    *s = (void *) (uintptr_t) (0x5000 + 16 * ++nstreams);
    streamsLive++;
    return hipSuccess;
}

EXPORT int hipStreamDestroy(void *s) { if (streamIndex(s) <= 0) return hipErrorInvalidHandle; streamsLive--; return hipSuccess; }
EXPORT int hipStreamSynchronize(void *s) { if (streamIndex(s) < 0) return hipErrorInvalidHandle; syncs[1]++; return hipSuccess; }
EXPORT int hipStreamQuery(void *s) { return streamIndex(s) < 0 ? hipErrorInvalidHandle : hipSuccess; }
EXPORT int hipDeviceSynchronize(void) { syncs[0]++; return hipSuccess; }

static int eventIndex(void *e) {
    uintptr_t v = (uintptr_t) e;
    if (v < 0x6010 || (v - 0x6000) % 16) return -1;
    int i = (int) ((v - 0x6000) / 16);
    return i <= nevents ? i : -1;
}

EXPORT int hipEventCreateWithFlags(void **e, unsigned flags) {
    if (!e || flags > 7 || nevents == 256) return hipErrorInvalidValue;
    *e = (void *) (uintptr_t) (0x6000 + 16 * ++nevents);
    eventStream[nevents - 1] = -1;
    eventSeq[nevents - 1] = 0;
    eventsLive++;
    return hipSuccess;
}

EXPORT int hipEventDestroy(void *e) { if (eventIndex(e) < 0) return hipErrorInvalidHandle; eventsLive--; return hipSuccess; }

EXPORT int hipEventRecord(void *e, void *s) {
    int i = eventIndex(e);
    long si = streamIndex(s);
    if (i < 0 || si < 0) return hipErrorInvalidHandle;
    eventStream[i - 1] = si;
    eventSeq[i - 1] = ++recordSeq;
    return hipSuccess;
}

EXPORT int hipEventSynchronize(void *e) { if (eventIndex(e) < 0) return hipErrorInvalidHandle; syncs[2]++; return hipSuccess; }
EXPORT int hipEventQuery(void *e) { return eventIndex(e) < 0 ? hipErrorInvalidHandle : hipSuccess; }

/** Elapsed time: 1.5 ms per hipEventRecord between the two records. */
EXPORT int hipEventElapsedTime(float *ms, void *a, void *b) {
    int i = eventIndex(a), j = eventIndex(b);
    if (!ms || i < 0 || j < 0) return hipErrorInvalidHandle;
    if (!eventSeq[i - 1] || !eventSeq[j - 1]) return hipErrorInvalidHandle;
    *ms = 1.5f * (float) (eventSeq[j - 1] - eventSeq[i - 1]);
    return hipSuccess;
}

EXPORT int hipStreamWaitEvent(void *s, void *e, unsigned flags) {
    if (streamIndex(s) < 0 || eventIndex(e) < 0 || flags) return hipErrorInvalidHandle;
    lastWaitStream = streamIndex(s);
    lastWaitEvent = eventIndex(e);
    return hipSuccess;
}

/* ---------------------------------------------------------------- launches */

EXPORT int hipModuleLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                                 unsigned shared, void *stream, void **params, void **extra) {
    struct func *fn = funcOf(f);
    if (!fn || !modules[fn->module].live) return hipErrorInvalidHandle;
    if (params || !extra || nlaunches == MAX_LAUNCHES || streamIndex(stream) < 0) return hipErrorInvalidValue;
    void *buf = NULL;
    size_t *size = NULL;
    for (int i = 0; ; i += 2) {
        uintptr_t key = (uintptr_t) extra[i];
        if (key == 3) break;                       /* HIP_LAUNCH_PARAM_END */
        if (key == 1) buf = extra[i + 1];          /* HIP_LAUNCH_PARAM_BUFFER_POINTER */
        else if (key == 2) size = extra[i + 1];    /* HIP_LAUNCH_PARAM_BUFFER_SIZE */
        else return hipErrorInvalidValue;
        if (i > 16) return hipErrorInvalidValue;
    }
    if (!buf || !size || *size > MAX_ARGS) return hipErrorInvalidValue;
    struct launch *l = &launches[nlaunches++];
    snprintf(l->name, sizeof l->name, "%s", fn->name);
    unsigned d[6] = {gx, gy, gz, bx, by, bz};
    memcpy(l->dims, d, sizeof d);
    l->shared = shared;
    l->stream = streamIndex(stream);
    l->argSize = *size;
    memcpy(l->args, buf, *size);
    return hipSuccess;
}

/*
 * zluda's NVIDIA pass-through tracer: dist/lib/trace/libcuda.so.1.
 *
 * A program that loads this library instead of NVIDIA's libcuda.so.1 (zluda run --nvidia-trace puts
 * dist/lib/trace first on LD_LIBRARY_PATH) gets every CUDA driver function forwarded to the target
 * driver — ZLUDA_CUDA_LIB when set, else NVIDIA's libcuda.so.1 found on the loader's usual paths,
 * never this library itself — and every call recorded into a capture (trace-format/FORMAT.md)
 * in ZLUDA's layout: $ZLUDA_LOG_DIR/<exe>[_N]/capture.zcap and manifest.json (ZLUDA_LOG_DIR
 * defaults to ./zluda-logs). ZLUDA_CAPTURE_LEVEL=calls (default) records calls and the data of
 * typed pointers; =replay also records host buffers (host-to-device copies...) as blobs.
 * ZLUDA_CAPTURE_MAX_BYTES bounds the capture file (default 64 GiB).
 * ZLUDA_CAPTURE_KERNELS=REGEX adds kernel snapshots of the matching launches (kernels.c); the
 * export tables of cuGetExportTable are wrapped and their slots recorded (export_tables.c).
 * ZLUDA_CAPTURE_RANGE=profiler records only from each cuProfilerStart to the next cuProfilerStop
 * (both recorded; what the program does outside is forwarded and not recorded), as profilers'
 * capture ranges do (cudaProfilerStart/Stop, torch.cuda.profiler.start/stop).
 *
 * It never changes what the program computes: if the capture cannot be written, calls keep
 * flowing and one warning goes to stderr. A forked child writes its own capture.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "tracer.h"

#ifndef ZT_VERSION
#define ZT_VERSION "0.1.0"
#endif

static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_int state;            /* 0 not started, 1 ready */
static void *target;
static void **real_fns;
static zcap_writer *writer;
static int level_replay;
static char capture_dir[PATH_MAX];
static char target_path[PATH_MAX];
/* ZLUDA_CAPTURE_RANGE=profiler: recording only between cuProfilerStart and cuProfilerStop; the two
 * fids are UINT32_MAX (never matched) otherwise */
static atomic_int recording = 1;
static uint32_t fid_range_start = UINT32_MAX, fid_range_stop = UINT32_MAX;
static int range_profiler;
/* initial-exec: one instruction to reach them, where the default model calls __tls_get_addr */
#define ZT_TLS __thread __attribute__((tls_model("initial-exec")))
static ZT_TLS uint32_t depth;
static ZT_TLS zcap_thread *tls_thread;   /* this thread's state in tls_writer */
static ZT_TLS zcap_writer *tls_writer;

static void warn(const char *fmt, const char *a, const char *b) {
    fprintf(stderr, "[ZLUDA_TRACE] ");
    fprintf(stderr, fmt, a ? a : "", b ? b : "");
    fputc('\n', stderr);
}

static int own_path(char *buf, size_t cap) {
    Dl_info info;
    if (!dladdr((void *)&zt_real, &info) || !info.dli_fname) return 0;
    if (!realpath(info.dli_fname, buf)) snprintf(buf, cap, "%s", info.dli_fname);
    return 1;
}

/* Exported so that a tracer can recognise another copy of itself among the candidates. */
ZT_EXPORT const int zluda_tracer_marker = 1;

/* dlopen a candidate unless it is this library (or another copy of this tracer). */
static void *try_target(const char *path, const char *self) {
    char real[PATH_MAX];
    if (!realpath(path, real)) return NULL;
    if (self[0] && strcmp(real, self) == 0) return NULL;
    void *h = dlopen(real, RTLD_NOW | RTLD_LOCAL);
    if (!h) return NULL;
    if (dlsym(h, "zluda_tracer_marker") || !dlsym(h, "cuInit")) {
        dlclose(h);
        return NULL;
    }
    snprintf(target_path, sizeof target_path, "%s", real);
    return h;
}

static void *find_target(void) {
    char self[PATH_MAX] = "";
    own_path(self, sizeof self);
    const char *env = getenv("ZLUDA_CUDA_LIB");
    if (env && *env) {
        void *h = try_target(env, self);
        if (!h) warn("ZLUDA_CUDA_LIB=%s cannot be loaded (or is this tracer)%s", env, NULL);
        return h;
    }
    const char *ld = getenv("LD_LIBRARY_PATH");
    if (ld) {
        char *copy = strdup(ld), *save = NULL;
        for (char *d = strtok_r(copy, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
            char p[PATH_MAX];
            snprintf(p, sizeof p, "%s/libcuda.so.1", d);
            void *h = try_target(p, self);
            if (h) { free(copy); return h; }
        }
        free(copy);
    }
    static const char *const paths[] = {"/usr/local/nvidia/lib64/libcuda.so.1", "/usr/lib/x86_64-linux-gnu/libcuda.so.1",
                                        "/usr/lib64/libcuda.so.1", "/lib/x86_64-linux-gnu/libcuda.so.1", "/lib/libcuda.so.1",
                                        "/usr/lib/wsl/lib/libcuda.so.1"};
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
        void *h = try_target(paths[i], self);
        if (h) return h;
    }
    warn("no target driver found: set ZLUDA_CUDA_LIB to NVIDIA's libcuda.so.1%s%s", NULL, NULL);
    return NULL;
}

/* The first function id of each library of zt_libraries in this capture's table (-1: not in it). */
#define ZT_MAX_LIBRARIES 16
static int64_t library_base[ZT_MAX_LIBRARIES] = {-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1};
/* The real libraries the library tracers forward to, by zt_libraries index (for the manifest). */
static char library_path[ZT_MAX_LIBRARIES][PATH_MAX];

static void json_string(FILE *f, const char *s) {
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\') fprintf(f, "\\%c", *p);
        else if (*p < 0x20) fprintf(f, "\\u%04x", *p);
        else fputc(*p, f);
    }
    fputc('"', f);
}

static char manifest_exe[PATH_MAX];
/* The target driver's cuDriverGetVersion, asked once when the target is loaded (before the program's
 * first call reaches it, so before its cuInit): the manifest is rewritten whenever a library tracer
 * finds its library, often after cuInit, and a driver call of the tracer's own there would be counted by
 * a profiler (CUPTI) as the program's. */
static int driver_version;

static void write_manifest(const char *exe) {
    if (exe != manifest_exe) snprintf(manifest_exe, sizeof manifest_exe, "%s", exe);
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/manifest.json", capture_dir);
    FILE *f = fopen(path, "w");
    if (!f) return;
    char cwd[PATH_MAX] = "", host[256] = "", when[64] = "";
    if (!getcwd(cwd, sizeof cwd)) cwd[0] = 0;
    gethostname(host, sizeof host - 1);
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
    fprintf(f, "{\n  \"formatVersion\": \"1.0\",\n  \"program\": ");
    json_string(f, exe);
    fprintf(f, ",\n  \"arguments\": [");
    FILE *cl = fopen("/proc/self/cmdline", "r");
    if (cl) {
        char arg[4096];
        int idx = 0, c, n = 0;
        while ((c = fgetc(cl)) != EOF) {
            if (c == 0 || n == (int)sizeof arg - 1) {
                arg[n] = 0;
                if (idx++ > 0) {
                    if (idx > 2) fputs(", ", f);
                    json_string(f, arg);
                }
                n = 0;
            } else {
                arg[n++] = (char)c;
            }
        }
        fclose(cl);
    }
    fprintf(f, "],\n  \"workingDirectory\": ");
    json_string(f, cwd);
    fprintf(f, ",\n  \"pid\": %d,\n  \"startTime\": \"%s\",\n  \"host\": ", (int)getpid(), when);
    json_string(f, host);
    fprintf(f, ",\n  \"driver\": {\"name\": \"%s\", \"version\": %d, \"library\": ",
            strstr(target_path, "zluda") || strstr(target_path, "/dist/lib/") ? "zluda" : "nvidia", driver_version);
    json_string(f, target_path);
    fprintf(f, "},\n  \"tool\": {\"name\": \"zluda nvidia-capture\", \"version\": \"%s\"},\n", ZT_VERSION);
    fprintf(f, "  \"capture\": {\"data\": \"%s\", \"chunkSize\": 262144%s}", level_replay ? "replay" : "calls",
            range_profiler ? ", \"range\": \"profiler\"" : "");
    /* the libraries whose calls the library tracers recorded into this capture, with the real library
     * each forwarded to (FORMAT.md 7) */
    int any = 0;
    for (int l = 0; l < zt_library_count && l < ZT_MAX_LIBRARIES; l++) {
        if (!library_path[l][0]) continue;
        fprintf(f, "%s\n    {\"name\": \"%s\", \"soname\": \"%s\", \"library\": ", any++ ? "," : ",\n  \"libraries\": [", zt_libraries[l].library,
                zt_libraries[l].soname);
        json_string(f, library_path[l]);
        fputc('}', f);
    }
    fprintf(f, "%s\n}\n", any ? "\n  ]" : "");
    fclose(f);
}

/* Set once the process exits: calls made after that (by atexit handlers registered before ours,
 * such as cudart's teardown) each end with another PROCESS_END, so the last record stays one. */
static atomic_int exiting;

static void at_exit(void) {
    zcap_writer *w = writer;
    atomic_store(&exiting, 1);
    if (w) zcap_process_end(w, ZCAP_END_EXIT, -1);
}

static void child_after_fork(void) {
    /* the parent's mapping is shared: the child must not write into it; it starts its own capture */
    writer = NULL;
    atomic_store(&state, 0);
    pthread_mutex_init(&init_lock, NULL);
}

static int make_capture_dir(const char *log_dir, const char *exe_name) {
    char tmp[PATH_MAX];
    snprintf(tmp, sizeof tmp, "%s", log_dir);
    for (char *p = tmp + 1; *p; p++) {
        if (*p == '/') { *p = 0; mkdir(tmp, 0777); *p = '/'; }
    }
    mkdir(tmp, 0777);
    for (int n = 0; n < 100000; n++) {
        if (n == 0) snprintf(capture_dir, sizeof capture_dir, "%s/%s", log_dir, exe_name);
        else snprintf(capture_dir, sizeof capture_dir, "%s/%s_%d", log_dir, exe_name, n);
        if (mkdir(capture_dir, 0777) == 0) return 1;
        if (errno != EEXIST) return 0;
    }
    return 0;
}

static void init(void) {
    pthread_mutex_lock(&init_lock);
    if (atomic_load(&state)) { pthread_mutex_unlock(&init_lock); return; }
    static int registered;
    if (!registered) {
        registered = 1;
        atexit(at_exit);
        pthread_atfork(NULL, NULL, child_after_fork);
    }
    if (!target) {
        target = find_target();
        real_fns = calloc((size_t)zt_function_count, sizeof(void *));
        if (target && real_fns) {
            for (int i = 0; i < zt_function_count; i++) real_fns[i] = dlsym(target, zt_functions[i].name);
        }
        int (*ver)(int *) = target ? (int (*)(int *))dlsym(target, "cuDriverGetVersion") : NULL;
        if (ver && ver(&driver_version) != 0) driver_version = 0;
    }
    const char *range = getenv("ZLUDA_CAPTURE_RANGE");
    if (range && strcmp(range, "profiler") == 0) {
        range_profiler = 1;
        atomic_store(&recording, 0);
        for (int i = 0; i < zt_function_count; i++) {
            if (strcmp(zt_functions[i].name, "cuProfilerStart") == 0) fid_range_start = (uint32_t)i;
            if (strcmp(zt_functions[i].name, "cuProfilerStop") == 0) fid_range_stop = (uint32_t)i;
        }
    } else if (range && *range && strcmp(range, "all") != 0) {
        warn("ZLUDA_CAPTURE_RANGE=%s is not 'all' or 'profiler': every call is recorded%s", range, NULL);
    }
    const char *lvl = getenv("ZLUDA_CAPTURE_LEVEL");
    level_replay = lvl && strcmp(lvl, "replay") == 0;
    const char *log_dir = getenv("ZLUDA_LOG_DIR");
    if (!log_dir || !*log_dir) log_dir = "zluda-logs";
    char exe[PATH_MAX] = "app";
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) exe[n] = 0;
    const char *base = strrchr(exe, '/');
    base = base ? base + 1 : exe;
    if (!make_capture_dir(log_dir, base)) {
        warn("cannot create a capture directory in %s: %s; calls are not recorded", log_dir, strerror(errno));
    } else {
        char path[PATH_MAX + 16], err[256] = "";
        snprintf(path, sizeof path, "%s/capture.zcap", capture_dir);
        zcap_options opts = {0};
        opts.spec_hash = zt_spec_hash;
        const char *max = getenv("ZLUDA_CAPTURE_MAX_BYTES");   /* default 64 GiB of address space */
        if (max && *max) opts.max_size = strtoull(max, NULL, 0);
        /* the spec's functions (ids = spec ids), then the export-table slots (export_tables.c), then the
         * functions the library tracers record (library_functions.c; FORMAT.md 6.10, "Library functions") */
        zcap_function *ext = NULL;
        int next = zt_export_functions((uint32_t)zt_function_count, &ext);
        int nlib = 0;
        for (int l = 0; l < zt_library_count; l++) nlib += zt_libraries[l].count;
        static zcap_function *all;
        if (!all) all = malloc(sizeof *all * (size_t)(zt_function_count + (next > 0 ? next : 0) + nlib));
        size_t nall = (size_t)zt_function_count;
        const zcap_function *table = zt_functions;
        if (all) {
            memcpy(all, zt_functions, sizeof *all * (size_t)zt_function_count);
            if (next > 0) memcpy(all + zt_function_count, ext, sizeof *all * (size_t)next);
            table = all;
            nall += (size_t)(next > 0 ? next : 0);
            for (int l = 0; l < zt_library_count; l++) {
                library_base[l] = (int64_t)nall;
                memcpy(all + nall, zt_libraries[l].functions, sizeof *all * (size_t)zt_libraries[l].count);
                nall += (size_t)zt_libraries[l].count;
            }
        }
        writer = zcap_open(path, &opts, table, nall, err, sizeof err);
        if (!writer) warn("cannot write %s: %s; calls are not recorded", path, err);
        else write_manifest(exe);
    }
    atomic_store(&state, 1);
    pthread_mutex_unlock(&init_lock);
}

void *zt_real(uint32_t fid) {
    if (!atomic_load(&state)) init();
    return real_fns && (int)fid < zt_function_count ? real_fns[fid] : NULL;
}

void zt_begin(zt_call *c, uint32_t fid, const uint64_t *args) {
    if (!atomic_load(&state)) init();
    c->fid = fid;
    c->args = args;
    c->enter_seq = -1;
    c->nitems = 0;
    c->kernel = NULL;
    c->graph = NULL;
    zcap_writer *w = writer;
    if (__builtin_expect(fid == fid_range_start, 0)) atomic_store(&recording, 1);
    if (w && tls_writer != w) {
        tls_thread = zcap_thread_current(w);
        tls_writer = w;
    }
    c->thread = w && atomic_load_explicit(&recording, memory_order_relaxed) ? tls_thread : NULL;
    if (__builtin_expect(fid == fid_range_start, 0)) zt_marker(c, "capture range (ZLUDA_CAPTURE_RANGE=profiler): recording from this cuProfilerStart");
}

static void add_item(zt_call *c, uint32_t param, uint8_t kind, const void *data, uint64_t len, uint64_t hash, uint64_t size) {
    if (c->nitems >= ZT_MAX_ITEMS) return;
    c->items[c->nitems++] = (zcap_item){.param = (uint8_t)param, .kind = kind, .data = data, .len = len, .hash = hash, .size = size};
}

void zt_data(zt_call *c, uint32_t param, const void *p, uint64_t n) {
    if (!c->thread || !p || n == 0) return;
    if (n <= 4096) add_item(c, param, ZCAP_INLINE, p, n, 0, n);
    else add_item(c, param, ZCAP_BLOB, NULL, 0, zcap_blob(c->thread, p, n, zcap_now()), n);
}

void zt_buffer(zt_call *c, uint32_t param, const void *p, uint64_t n) {
    if (!c->thread || !p || n == 0 || !level_replay) return;
    add_item(c, param, ZCAP_BLOB, NULL, 0, zcap_blob(c->thread, p, n, zcap_now()), n);
}

void zt_string(zt_call *c, uint32_t param, const void *p, uint64_t cap) {
    if (!c->thread || !p) return;
    size_t n = strnlen((const char *)p, cap ? cap : 4096);
    add_item(c, param, ZCAP_INLINE, p, n, 0, n);
}

/* The capture stopped growing (disk full, no space left in its size limit): said once. */
static void capture_full(void) {
    static atomic_int said;
    if (writer && zcap_full(writer) && !atomic_exchange(&said, 1)) {
        warn("%s/capture.zcap cannot grow any more (disk full or ZLUDA_CAPTURE_MAX_BYTES reached): later calls are not recorded; "
             "the program continues%s", capture_dir, NULL);
    }
}

void zt_enter(zt_call *c) {
    if (c->thread) {
        c->enter_seq = zcap_enter_now(c->thread, c->fid, depth, c->args, c->items, c->nitems);
        if (c->enter_seq < 0) capture_full();
    }
    c->nitems = 0;
    depth++;
}

void zt_after(zt_call *c) {
    depth--;
    c->nitems = 0;
}

void zt_end(zt_call *c, int result) {
    if (c->thread && c->enter_seq >= 0) {
        zcap_leave_now(c->thread, (uint64_t)c->enter_seq, (uint32_t)result, c->items, c->nitems);
        if (__builtin_expect(atomic_load_explicit(&exiting, memory_order_relaxed), 0) && writer) zcap_process_end(writer, ZCAP_END_EXIT, -1);
    }
    if (__builtin_expect(c->fid == fid_range_stop, 0)) {
        zt_marker(c, "capture range (ZLUDA_CAPTURE_RANGE=profiler): not recording after this cuProfilerStop");
        atomic_store(&recording, 0);
    }
}

void *zt_real_by_name(const char *name) {
    if (!atomic_load(&state)) init();
    return target ? dlsym(target, name) : NULL;
}

void zt_marker(zt_call *c, const char *text) {
    if (c->thread) zcap_marker(c->thread, text, zcap_now());
}

const char *zt_capture_dir(void) {
    return writer ? capture_dir : "";
}

void zt_wrap_proc_address(void **pfn) {
    if (!pfn || !*pfn || !real_fns) return;
    for (int i = 0; i < zt_function_count; i++) {
        if (real_fns[i] == *pfn) {
            *pfn = zt_wrappers[i];
            return;
        }
    }
}

/* ---------------------------------------------------------------- library tracers (libtracer.c)
 * The library tracers (dist/lib/trace/libcublas.so.13, ...) record through these, into this capture
 * and with this thread's nesting depth, so that the driver calls a library makes are the children of
 * the library call that made them. */

/* The first function id of a library's recorded functions, or -1 when this tracer does not know it
 * or knows a different number of functions (a library tracer built from another spec). */
ZT_EXPORT int64_t zluda_trace_library_base(const char *library, int count) {
    if (!atomic_load(&state)) init();
    for (int l = 0; l < zt_library_count && l < ZT_MAX_LIBRARIES; l++) {
        if (strcmp(zt_libraries[l].library, library) == 0) return zt_libraries[l].count == count ? library_base[l] : -1;
    }
    return -1;
}

/* A library tracer found its real library at path: listed in the manifest. */
ZT_EXPORT void zluda_trace_library_loaded(const char *library, const char *path) {
    if (!atomic_load(&state)) init();
    pthread_mutex_lock(&init_lock);
    for (int l = 0; l < zt_library_count && l < ZT_MAX_LIBRARIES; l++) {
        if (strcmp(zt_libraries[l].library, library) == 0) snprintf(library_path[l], sizeof library_path[l], "%s", path);
    }
    if (writer) write_manifest(manifest_exe);
    pthread_mutex_unlock(&init_lock);
}

ZT_EXPORT void zluda_trace_begin(zt_call *c, uint32_t fid, const uint64_t *args) { zt_begin(c, fid, args); }
ZT_EXPORT void zluda_trace_data(zt_call *c, uint32_t param, const void *p, uint64_t n) { zt_data(c, param, p, n); }
ZT_EXPORT void zluda_trace_string(zt_call *c, uint32_t param, const void *p, uint64_t cap) { zt_string(c, param, p, cap); }
ZT_EXPORT void zluda_trace_enter(zt_call *c) { zt_enter(c); }
ZT_EXPORT void zluda_trace_after(zt_call *c) { zt_after(c); }
ZT_EXPORT void zluda_trace_end(zt_call *c, int result) { zt_end(c, result); }

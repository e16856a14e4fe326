/*
 * The run-time part of every library tracer (libtracer.h): finding the real library, filling the
 * forwarding slots, and recording through the driver tracer.
 *
 * The real library is, in order: $ZLUDA_<LIBRARY>_LIB (ZLUDA_CUBLAS_LIB, ZLUDA_CUBLASLT_LIB,
 * ZLUDA_CUFFT_LIB, ZLUDA_CUSPARSE_LIB, ZLUDA_CUDNN_LIB, ZLUDA_NVML_LIB), else the first file named
 * like the soname in the directories the loader would search: LD_LIBRARY_PATH, the RUNPATH/RPATH of
 * every object already loaded ($ORIGIN expanded: how PyTorch finds the libraries of its nvidia-*
 * wheels), the directories of /etc/ld.so.conf(.d) and the usual ones (/usr/local/cuda/lib64,
 * /usr/local/nvidia/lib64, ...) — never this library or another copy of a zluda tracer. It is loaded
 * when the tracer is (a constructor), so that every slot is filled before any call arrives.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <ctype.h>
#include <dirent.h>
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libtracer.h"

/* Exported, so that a tracer can recognise another copy of a zluda library tracer among candidates. */
LT_EXPORT const int zluda_library_tracer_marker = 1;

static void *real;
static void **real_fns;
static char real_path[PATH_MAX];

static void warn(const char *fmt, const char *a) {
    fprintf(stderr, "[ZLUDA_TRACE] %s: ", lt_library);
    fprintf(stderr, fmt, a ? a : "");
    fputc('\n', stderr);
}

static int own_path(char *buf, size_t cap) {
    Dl_info info;
    if (!dladdr((void *)&lt_fid, &info) || !info.dli_fname) return 0;
    if (!realpath(info.dli_fname, buf)) snprintf(buf, cap, "%s", info.dli_fname);
    return 1;
}

/* Why the candidates looked at so far were not taken (the loader's reason, or what disqualified them),
 * printed when no real library is found: "cannot be loaded" alone would leave the user guessing. */
static char rejected[2048];

static void reject(const char *path, const char *why) {
    const char *parts[] = {"\n    ", path, ": ", why};
    size_t n = strlen(rejected);
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
        for (const char *c = parts[i]; *c && n < sizeof rejected - 1; c++) rejected[n++] = *c;
    }
    rejected[n] = 0;
}

/* Whether the object h itself defines name: dlsym(h, name) also searches h's dependencies (NVIDIA's
 * libcublas.so.13 NEEDs libcublasLt.so.13, which in a traced process is the libcublasLt tracer). */
static int defines_itself(void *h, const char *name) {
    struct link_map *self = NULL, *owner = NULL;
    void *s = dlsym(h, name);
    Dl_info info;
    if (!s || dlinfo(h, RTLD_DI_LINKMAP, &self) != 0 || !self) return 0;
    if (!dladdr1(s, &info, (void **)&owner, RTLD_DL_LINKMAP) || !owner) return 0;
    return owner == self;
}

/* The real libraries of the other zluda library tracers in this process, made global so that a real
 * library that needs one of their exports that its tracer lacks (a newer library than the exports list
 * the tracer was generated from) finds it: the loader looks a symbol up in the global scope first. */
static int promote_dependencies(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    int *promoted = data;
    if (!info->dlpi_name || !info->dlpi_name[0]) return 0;
    void *h = dlopen(info->dlpi_name, RTLD_NOW | RTLD_NOLOAD);
    if (!h) return 0;
    const char *(*real_of)(void) = defines_itself(h, "zluda_library_tracer_real") ? (const char *(*)(void))dlsym(h, "zluda_library_tracer_real") : NULL;
    const char *path = real_of ? real_of() : NULL;
    if (path && path[0] && dlopen(path, RTLD_NOW | RTLD_NOLOAD | RTLD_GLOBAL)) (*promoted)++;
    dlclose(h);
    return 0;
}

/* dlopen a candidate unless it is this library or another zluda tracer, and it has the library's functions. */
static void *try_path(const char *path, const char *self) {
    char rp[PATH_MAX];
    if (!realpath(path, rp)) {
        if (errno != ENOENT) reject(path, strerror(errno));
        return NULL;
    }
    if (self[0] && strcmp(rp, self) == 0) {
        reject(rp, "this tracer itself");
        return NULL;
    }
    void *h = dlopen(rp, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        /* the loader's reason, without the path it usually starts with */
        char why[1024];
        const char *e = dlerror();
        size_t n = strlen(rp);
        if (e && strncmp(e, rp, n) == 0 && strncmp(e + n, ": ", 2) == 0) e += n + 2;
        snprintf(why, sizeof why, "%s", e ? e : "dlopen failed");
        int promoted = 0;
        if (strstr(why, "undefined symbol")) {
            /* a symbol that another tracer in front of this library's dependency lacks: retry with the
             * real dependencies global (those exports are then called untraced) */
            dl_iterate_phdr(promote_dependencies, &promoted);
            if (promoted && (h = dlopen(rp, RTLD_NOW | RTLD_LOCAL)) != NULL)
                fprintf(stderr, "[ZLUDA_TRACE] %s: %s needs a symbol that a zluda tracer in front of its dependency does not export (%s): "
                        "loaded with the real dependencies made global, so that those functions are called untraced\n", lt_library, rp, why);
        }
        if (!h) {
            reject(rp, why);
            return NULL;
        }
    }
    if (defines_itself(h, "zluda_library_tracer_marker")) {
        reject(rp, "a zluda library tracer, not the real library");
        dlclose(h);
        return NULL;
    }
    if (lt_recorded_count > 0 && !defines_itself(h, lt_recorded_names[0])) {
        char why[256];
        snprintf(why, sizeof why, "does not define %s: not %s", lt_recorded_names[0], lt_soname);
        reject(rp, why);
        dlclose(h);
        return NULL;
    }
    snprintf(real_path, sizeof real_path, "%s", rp);
    return h;
}

/* The real library's path ("" when none was found), for another tracer that needs its exports global. */
LT_EXPORT const char *zluda_library_tracer_real(void) { return real_path; }

static void *try_dir(const char *dir, size_t len, const char *self) {
    if (len == 0 || len > PATH_MAX - 64) return NULL;
    char p[PATH_MAX];
    snprintf(p, sizeof p, "%.*s/%s", (int)len, dir, lt_soname);
    return try_path(p, self);
}

/* Every directory of a ':'-separated list. */
static void *try_list(const char *list, const char *origin, const char *self) {
    for (const char *s = list; s && *s;) {
        const char *e = strchr(s, ':');
        size_t n = e ? (size_t)(e - s) : strlen(s);
        char dir[PATH_MAX];
        if (n < sizeof dir) {
            memcpy(dir, s, n);
            dir[n] = 0;
            char *o = strstr(dir, "$ORIGIN");
            if (!o) o = strstr(dir, "${ORIGIN}");
            if (o && origin) {
                char expanded[PATH_MAX];
                size_t skip = o[1] == '{' ? 9 : 7;
                snprintf(expanded, sizeof expanded, "%.*s%s%s", (int)(o - dir), dir, origin, o + skip);
                snprintf(dir, sizeof dir, "%s", expanded);
            }
            void *h = try_dir(dir, strlen(dir), self);
            if (h) return h;
        }
        s = e ? e + 1 : NULL;
    }
    return NULL;
}

struct runpath_search {
    const char *self;
    void *found;
};

/* The RUNPATH/RPATH of one loaded object. */
static int runpath_of(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    struct runpath_search *s = data;
    if (s->found) return 1;
    const ElfW(Dyn) *dyn = NULL;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        if (info->dlpi_phdr[i].p_type == PT_DYNAMIC) dyn = (const ElfW(Dyn) *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
    }
    if (!dyn) return 0;
    const char *strtab = NULL;
    ElfW(Xword) runpath = 0, rpath = 0;
    int has_runpath = 0, has_rpath = 0;
    for (const ElfW(Dyn) *d = dyn; d->d_tag != DT_NULL; d++) {
        if (d->d_tag == DT_STRTAB) strtab = (const char *)d->d_un.d_ptr;
        if (d->d_tag == DT_RUNPATH) { runpath = d->d_un.d_val; has_runpath = 1; }
        if (d->d_tag == DT_RPATH) { rpath = d->d_un.d_val; has_rpath = 1; }
    }
    if (!strtab || (!has_runpath && !has_rpath)) return 0;
    /* DT_STRTAB is usually relocated by the loader; where it is not, it is relative to the load address */
    if ((uintptr_t)strtab < info->dlpi_addr) strtab += info->dlpi_addr;
    char origin[PATH_MAX] = "";
    const char *name = info->dlpi_name && info->dlpi_name[0] ? info->dlpi_name : NULL;
    char exe[PATH_MAX];
    if (!name) {
        ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
        if (n > 0) { exe[n] = 0; name = exe; }
    }
    if (name) {
        char rp[PATH_MAX];
        if (realpath(name, rp)) {
            char *slash = strrchr(rp, '/');
            if (slash) { *slash = 0; snprintf(origin, sizeof origin, "%s", rp); }
        }
    }
    if (has_runpath) s->found = try_list(strtab + runpath, origin, s->self);
    if (!s->found && has_rpath) s->found = try_list(strtab + rpath, origin, s->self);
    return s->found != NULL;
}

static void *try_ld_so_conf(const char *file, const char *self, int depth) {
    FILE *f = fopen(file, "r");
    if (!f) return NULL;
    char line[PATH_MAX];
    void *h = NULL;
    while (!h && fgets(line, sizeof line, f)) {
        char *p = line;
        while (isspace((unsigned char)*p)) p++;
        p[strcspn(p, "#\r\n")] = 0;
        size_t n = strlen(p);
        while (n > 0 && isspace((unsigned char)p[n - 1])) p[--n] = 0;
        if (!n) continue;
        if (strncmp(p, "include", 7) == 0 && isspace((unsigned char)p[7]) && depth < 2) {
            /* include /etc/ld.so.conf.d/ *.conf */
            char *pat = p + 8;
            while (isspace((unsigned char)*pat)) pat++;
            char dir[PATH_MAX];
            snprintf(dir, sizeof dir, "%s", pat);
            char *slash = strrchr(dir, '/');
            if (!slash) continue;
            *slash = 0;
            DIR *d = opendir(dir);
            if (!d) continue;
            struct dirent *e;
            while (!h && (e = readdir(d)) != NULL) {
                size_t l = strlen(e->d_name);
                if (l > 5 && strcmp(e->d_name + l - 5, ".conf") == 0) {
                    char path[PATH_MAX + 256];
                    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
                    h = try_ld_so_conf(path, self, depth + 1);
                }
            }
            closedir(d);
        } else {
            h = try_dir(p, n, self);
        }
    }
    fclose(f);
    return h;
}

static void *find_real(void) {
    char self[PATH_MAX] = "";
    own_path(self, sizeof self);
    char env[64] = "ZLUDA_";
    size_t k = strlen(env);
    for (const char *c = lt_library; *c && k < sizeof env - 5; c++) env[k++] = (char)toupper((unsigned char)*c);
    memcpy(env + k, "_LIB", 5);
    const char *given = getenv(env);
    if (given && *given) {
        void *h = try_path(given, self);
        if (!h) fprintf(stderr, "[ZLUDA_TRACE] %s: %s=%s is not taken as the real %s:%s\n", lt_library, env, given, lt_soname,
                        rejected[0] ? rejected : "\n    no such file or directory");
        return h;
    }
    void *h = try_list(getenv("LD_LIBRARY_PATH"), NULL, self);
    if (h) return h;
    struct runpath_search s = {self, NULL};
    dl_iterate_phdr(runpath_of, &s);
    if (s.found) return s.found;
    if ((h = try_ld_so_conf("/etc/ld.so.conf", self, 0)) != NULL) return h;
    static const char *const dirs[] = {"/usr/local/cuda/lib64", "/usr/local/cuda/targets/x86_64-linux/lib", "/usr/local/nvidia/lib64",
                                       "/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/lib/x86_64-linux-gnu", "/usr/lib", "/lib"};
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
        if ((h = try_dir(dirs[i], strlen(dirs[i]), self)) != NULL) return h;
    }
    return NULL;
}

/* What a forwarded export does when the real library lacks it (or was not found). */
static int lt_missing(void) {
    static atomic_int said;
    if (!atomic_exchange(&said, 1)) warn("a function the real library lacks was called: it returns 'not supported'%s", NULL);
    return lt_not_supported;
}

__attribute__((constructor)) static void lt_load(void) {
    real = find_real();
    real_fns = calloc((size_t)(lt_recorded_count > 0 ? lt_recorded_count : 1), sizeof(void *));
    if (!real) {
        char env[64] = "ZLUDA_";
        size_t k = strlen(env);
        for (const char *c = lt_library; *c && k < sizeof env - 5; c++) env[k++] = (char)toupper((unsigned char)*c);
        memcpy(env + k, "_LIB", 5);
        if (!getenv(env) || !*getenv(env))
            fprintf(stderr, "[ZLUDA_TRACE] %s: no real %s found (set %s, or LD_LIBRARY_PATH to its directory): its functions answer 'not supported'%s%s\n",
                    lt_library, lt_soname, env, rejected[0] ? "; candidates not taken:" : "", rejected);
        else
            fprintf(stderr, "[ZLUDA_TRACE] %s: without the real %s its functions answer 'not supported'\n", lt_library, lt_soname);
    }
    for (int i = 0; i < lt_recorded_count && real_fns; i++) real_fns[i] = real ? dlsym(real, lt_recorded_names[i]) : NULL;
    for (int i = 0; i < lt_forwarded_count; i++) {
        void *f = real ? dlsym(real, lt_forwarded_names[i]) : NULL;
        lt_slots[i] = f ? f : (void *)lt_missing;
    }
}

void *lt_real(int k) {
    return real_fns && k >= 0 && k < lt_recorded_count ? real_fns[k] : NULL;
}

/* ---------------------------------------------------------------- recording through the driver tracer */

static pthread_once_t hooks_once = PTHREAD_ONCE_INIT;
static int64_t base = -1;
static void (*h_begin)(zt_call *, uint32_t, const uint64_t *);
static void (*h_data)(zt_call *, uint32_t, const void *, uint64_t);
static void (*h_string)(zt_call *, uint32_t, const void *, uint64_t);
static void (*h_enter)(zt_call *);
static void (*h_after)(zt_call *);
static void (*h_end)(zt_call *, int);

static void hooks(void) {
    void *drv = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (!drv) drv = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
    int64_t (*lib_base)(const char *, int) = drv ? (int64_t (*)(const char *, int))dlsym(drv, "zluda_trace_library_base") : NULL;
    if (!lib_base) {
        warn("the libcuda.so.1 this process loads is not zluda's tracer (dist/lib/trace/libcuda.so.1): calls are forwarded, not recorded%s", NULL);
        return;
    }
    int64_t b = lib_base(lt_library, lt_recorded_count);
    if (b < 0) {
        warn("the driver tracer was built from another %s spec: calls are forwarded, not recorded", lt_library);
        return;
    }
    h_begin = (void (*)(zt_call *, uint32_t, const uint64_t *))dlsym(drv, "zluda_trace_begin");
    h_data = (void (*)(zt_call *, uint32_t, const void *, uint64_t))dlsym(drv, "zluda_trace_data");
    h_string = (void (*)(zt_call *, uint32_t, const void *, uint64_t))dlsym(drv, "zluda_trace_string");
    h_enter = (void (*)(zt_call *))dlsym(drv, "zluda_trace_enter");
    h_after = (void (*)(zt_call *))dlsym(drv, "zluda_trace_after");
    h_end = (void (*)(zt_call *, int))dlsym(drv, "zluda_trace_end");
    void (*loaded)(const char *, const char *) = (void (*)(const char *, const char *))dlsym(drv, "zluda_trace_library_loaded");
    if (!h_begin || !h_data || !h_string || !h_enter || !h_after || !h_end) return;
    if (loaded && real) loaded(lt_library, real_path);
    base = b;
}

uint32_t lt_fid(int k) {
    pthread_once(&hooks_once, hooks);
    return base < 0 ? UINT32_MAX : (uint32_t)(base + k);
}

/* The zt_* calls of the generated wrappers (tracer.h), forwarded to the driver tracer. A call whose id is
 * UINT32_MAX (no recording) only keeps its nesting balanced: nothing is written. */
void zt_begin(zt_call *c, uint32_t fid, const uint64_t *args) {
    c->fid = fid;
    c->thread = NULL;
    c->nitems = 0;
    c->enter_seq = -1;
    c->kernel = NULL;
    c->args = args;
    if (fid != UINT32_MAX && h_begin) h_begin(c, fid, args);
}
void zt_data(zt_call *c, uint32_t param, const void *p, uint64_t n) { if (c->fid != UINT32_MAX && h_data) h_data(c, param, p, n); }
/* a library's host buffers are descriptors and attributes, small: recorded at every level */
void zt_buffer(zt_call *c, uint32_t param, const void *p, uint64_t n) { zt_data(c, param, p, n); }
void zt_string(zt_call *c, uint32_t param, const void *p, uint64_t cap) { if (c->fid != UINT32_MAX && h_string) h_string(c, param, p, cap); }
void zt_enter(zt_call *c) { if (c->fid != UINT32_MAX && h_enter) h_enter(c); }
void zt_after(zt_call *c) { if (c->fid != UINT32_MAX && h_after) h_after(c); }
void zt_end(zt_call *c, int result) { if (c->fid != UINT32_MAX && h_end) h_end(c, result); }

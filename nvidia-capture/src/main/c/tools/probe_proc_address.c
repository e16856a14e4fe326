/*
 * probe_proc_address: measures which function NVIDIA's libcuda.so.1 returns from
 * cuGetProcAddress_v2 for every base name, CUDA version and flags value.
 *
 * Usage: probe_proc_address [LIBCUDA] < names.txt > table.tsv
 *   names.txt: one base name per line (e.g. every cu* export of the driver and every base name of
 *   cuda.h, with _vN/_ptds/_ptsz suffixes removed) and every exported name the driver has, so that
 *   returned pointers can be named.
 * For each name and flags value in 0..7 it asks every cudaVersion from 1000 to 13000 in steps
 * of 10 and prints a row only where the answer changes:
 *   base <TAB> flags <TAB> fromVersion <TAB> CUresult <TAB> symbolStatus <TAB> symbol
 * symbol is the exported name whose address equals the returned pointer ("-" for none, "?" for a
 * pointer that is no export). Lines starting with '#' describe the run.
 * Semantics: CUDA Driver API, cuGetProcAddress (Driver Entry Point Access).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
typedef CUresult (*cuInit_t)(unsigned int);
typedef CUresult (*cuDriverGetVersion_t)(int *);
typedef CUresult (*cuGetProcAddress_v2_t)(const char *, void **, int, uint64_t, int *);

#define MAX_NAMES 8192

static char *names[MAX_NAMES];
static void *addrs[MAX_NAMES];
static int n_names;

static const char *base_of(const char *s, char *buf, size_t cap) {
    snprintf(buf, cap, "%s", s);
    size_t n = strlen(buf);
    if (n > 5 && (strcmp(buf + n - 5, "_ptds") == 0 || strcmp(buf + n - 5, "_ptsz") == 0)) buf[n - 5] = 0;
    char *u = strrchr(buf, '_');
    if (u && u[1] == 'v' && u[2] >= '0' && u[2] <= '9') *u = 0;
    return buf;
}

/* The exported name at this address, preferring one whose base name is `base`. */
static const char *name_of(void *p, const char *base) {
    const char *any = NULL;
    char buf[256];
    for (int i = 0; i < n_names; i++) {
        if (addrs[i] != p) continue;
        if (strcmp(base_of(names[i], buf, sizeof buf), base) == 0) return names[i];
        if (!any) any = names[i];
    }
    return any ? any : "?";
}

int main(int argc, char **argv) {
    const char *lib = argc > 1 ? argv[1] : "libcuda.so.1";
    void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    if (!h) { fprintf(stderr, "probe_proc_address: cannot load %s: %s\n", lib, dlerror()); return 1; }
    cuInit_t cuInit = (cuInit_t)dlsym(h, "cuInit");
    cuDriverGetVersion_t cuDriverGetVersion = (cuDriverGetVersion_t)dlsym(h, "cuDriverGetVersion");
    cuGetProcAddress_v2_t gpa = (cuGetProcAddress_v2_t)dlsym(h, "cuGetProcAddress_v2");
    if (!cuInit || !cuDriverGetVersion || !gpa) { fprintf(stderr, "probe_proc_address: %s lacks cuInit/cuDriverGetVersion/cuGetProcAddress_v2\n", lib); return 1; }
    int drv = 0;
    CUresult init = cuInit(0);
    cuDriverGetVersion(&drv);
    char line[512];
    while (fgets(line, sizeof line, stdin) && n_names < MAX_NAMES) {
        line[strcspn(line, "\r\n \t")] = 0;
        if (!line[0]) continue;
        int dup = 0;
        for (int i = 0; i < n_names; i++) if (strcmp(names[i], line) == 0) { dup = 1; break; }
        if (dup) continue;
        names[n_names] = strdup(line);
        addrs[n_names] = dlsym(h, line);
        n_names++;
    }
    char info[1024] = "?";
    Dl_info di;
    if (dladdr((void *)gpa, &di) && di.dli_fname) snprintf(info, sizeof info, "%s", di.dli_fname);
    printf("# cuGetProcAddress_v2 answers of %s (driver version %d, cuInit(0) -> %d)\n", info, drv, init);
    printf("# versions 1000..13000 step 10, flags 0..7; a row per change of answer\n");
    printf("# base\tflags\tfromVersion\tCUresult\tsymbolStatus\tsymbol\n");
    /* every distinct base name, in input order */
    static char *bases[MAX_NAMES];
    int n_bases = 0;
    char bbuf[256];
    for (int i = 0; i < n_names; i++) {
        const char *b = base_of(names[i], bbuf, sizeof bbuf);
        int dup = 0;
        for (int j = 0; j < n_bases; j++) if (strcmp(bases[j], b) == 0) { dup = 1; break; }
        if (!dup) bases[n_bases++] = strdup(b);
    }
    for (int i = 0; i < n_bases; i++) {
        const char *base = bases[i];
        for (int flags = 0; flags <= 7; flags++) {
            int last_res = -12345, last_status = -12345;
            void *last_fn = (void *)1;
            for (int v = 1000; v <= 13000; v += 10) {
                void *fn = NULL;
                int status = -1;
                CUresult r = gpa(base, &fn, v, (uint64_t)flags, &status);
                if (r != last_res || status != last_status || fn != last_fn) {
                    printf("%s\t%d\t%d\t%d\t%d\t%s\n", base, flags, v, r, status, fn ? name_of(fn, base) : "-");
                    last_res = r; last_status = status; last_fn = fn;
                }
            }
        }
    }
    return 0;
}

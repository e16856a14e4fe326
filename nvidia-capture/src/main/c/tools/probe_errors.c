/*
 * probe_errors: records what NVIDIA's driver answers that a replacement driver must answer the
 * same way: cuGetErrorName and cuGetErrorString for every CUresult value 0..1100, and the
 * status-less cuGetProcAddress (v1) for an unknown name, a too-old version and bad flags.
 *
 * Usage: probe_errors [LIBCUDA] > errors.tsv
 * Rows: function <TAB> argument <TAB> CUresult <TAB> text (strings as returned; "-" for NULL).
 * Semantics: CUDA Driver API, Error Handling; Driver Entry Point Access.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>

typedef int (*err_fn)(int, const char **);
typedef int (*gpa1_fn)(const char *, void **, int, uint64_t);

int main(int argc, char **argv) {
    const char *lib = argc > 1 ? argv[1] : "libcuda.so.1";
    void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    if (!h) { fprintf(stderr, "probe_errors: cannot load %s: %s\n", lib, dlerror()); return 1; }
    err_fn name = (err_fn)dlsym(h, "cuGetErrorName");
    err_fn str = (err_fn)dlsym(h, "cuGetErrorString");
    gpa1_fn gpa1 = (gpa1_fn)dlsym(h, "cuGetProcAddress");
    int (*init)(unsigned) = (int (*)(unsigned))dlsym(h, "cuInit");
    if (!name || !str || !gpa1 || !init) { fprintf(stderr, "probe_errors: missing exports\n"); return 1; }
    /* before cuInit: error names need no initialization */
    const char *s = NULL;
    int r = name(0, &s);
    printf("cuGetErrorName(before cuInit)\t0\t%d\t%s\n", r, s ? s : "-");
    init(0);
    for (int e = 0; e <= 1100; e++) {
        const char *n = NULL, *t = NULL;
        int rn = name(e, &n);
        int rs = str(e, &t);
        if (rn == 0 || rs == 0) {
            printf("cuGetErrorName\t%d\t%d\t%s\n", e, rn, n ? n : "-");
            printf("cuGetErrorString\t%d\t%d\t%s\n", e, rs, t ? t : "-");
        }
    }
    const char *n = (const char *)1;
    r = name(12345, &n);
    printf("cuGetErrorName\t12345\t%d\t%s\n", r, n == (const char *)1 ? "(unchanged)" : n ? n : "-");
    void *fn = (void *)1;
    r = gpa1("cuNoSuchFunction", &fn, 13000, 0);
    printf("cuGetProcAddress\tcuNoSuchFunction,13000,0\t%d\t%s\n", r, fn == (void *)1 ? "(unchanged)" : fn ? "non-null" : "-");
    fn = (void *)1;
    r = gpa1("cuGetProcAddress", &fn, 11020, 0);
    printf("cuGetProcAddress\tcuGetProcAddress,11020,0\t%d\t%s\n", r, fn == (void *)1 ? "(unchanged)" : fn ? "non-null" : "-");
    fn = (void *)1;
    r = gpa1("cuInit", &fn, 13000, 4);
    printf("cuGetProcAddress\tcuInit,13000,4\t%d\t%s\n", r, fn == (void *)1 ? "(unchanged)" : fn ? "non-null" : "-");
    fn = (void *)1;
    r = gpa1("cuInit", &fn, 13000, 0);
    printf("cuGetProcAddress\tcuInit,13000,0\t%d\t%s\n", r, fn == (void *)1 ? "(unchanged)" : fn ? "non-null" : "-");
    fn = (void *)1;
    r = gpa1("", &fn, 13000, 0);
    printf("cuGetProcAddress\t(empty),13000,0\t%d\t%s\n", r, fn == (void *)1 ? "(unchanged)" : fn ? "non-null" : "-");
    return 0;
}

/*
 * A program linked against libcublas.so.13 and libcublasLt.so.13 as an nvcc-built one is: with the
 * library tracers first on LD_LIBRARY_PATH and the stand-ins (cublas.c, cublasLt.c) after them, it
 * exercises how the tracers find the real libraries. Prints what it got; exit code 0 when every call
 * answered CUBLAS_STATUS_SUCCESS. A test fixture for LibraryTracerTest.
 */
#include <stdio.h>

int cublasCreate_v2(void **h);
int cublasDestroy_v2(void *h);
int cublasLtCreate(void **h);
int cublasLtDestroy(void *h);

int main(void) {
    void *h = NULL, *lt = NULL;
    int a = cublasCreate_v2(&h);
    int b = a ? -1 : cublasDestroy_v2(h);
    int c = cublasLtCreate(&lt);
    int d = c ? -1 : cublasLtDestroy(lt);
    printf("cublasCreate_v2 -> %d, cublasDestroy_v2 -> %d, cublasLtCreate -> %d, cublasLtDestroy -> %d\n", a, b, c, d);
    return a || b || c || d;
}

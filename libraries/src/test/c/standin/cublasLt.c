/*
 * A stand-in for NVIDIA's libcublasLt.so.13 with the shape that matters to the library tracers:
 * soname libcublasLt.so.13, exports under the version node libcublasLt.so.13 (cublasLt.map), a
 * function of cublasLt.h (cublasLtCreate, recorded by the tracer), exports of NVIDIA's list that no
 * header declares (cublasLtACCMatmul, cublasLtShutdownCtx: forwarded unrecorded) and one that is not
 * even in the list the tracer was generated from (cublasLtStandInUnlisted: what a newer cuBLASLt may
 * add). A test fixture for LibraryTracerTest, not a library.
 */
#include <stdint.h>

#define EXPORT __attribute__((visibility("default")))

static int handle;

EXPORT int cublasLtCreate(void **h) { if (!h) return 7; *h = &handle; return 0; }
EXPORT int cublasLtDestroy(void *h) { return h == &handle ? 0 : 7; }
EXPORT int cublasLtACCMatmul(void) { return 1042; }
EXPORT int cublasLtShutdownCtx(void) { return 0; }
EXPORT int cublasLtStandInUnlisted(void) { return 2042; }

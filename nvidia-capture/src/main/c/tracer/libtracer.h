/*
 * The library tracers (dist/lib/trace/libcublas.so.13, libcublasLt.so.13, libcufft.so.12,
 * libcusparse.so.12, libcudnn.so.9, libnvidia-ml.so.1): every export of NVIDIA's library, generated
 * from its spec (lt_<library>.c: recording wrappers; lt_<library>_tramp.S: jumps for the exports
 * forwarded unrecorded), forwarding to the real library (libtracer.c finds it by the loader's
 * search, skipping itself) and recording through the driver tracer (dist/lib/trace/libcuda.so.1),
 * into the same capture and with the same per-thread nesting depth, so that the driver calls a library
 * function makes are recorded as its children.
 *
 * The wrappers use the zt_* calls of tracer.h; here they forward to the driver tracer's exported
 * zluda_trace_* functions, or do nothing (the call is forwarded unrecorded) when the driver tracer is
 * not the libcuda.so.1 the process loads.
 */
#ifndef ZLUDA_LIBTRACER_H
#define ZLUDA_LIBTRACER_H

#include <stdint.h>
#include "tracer.h"

#define LT_EXPORT __attribute__((visibility("default")))

/* Generated (lt_<library>.c). */
extern const char lt_library[];               /* cublas, cublasLt, ... */
extern const char lt_soname[];                /* libcublas.so.13, ... */
extern const int lt_not_supported;            /* what a function returns when the real library lacks it */
extern const int lt_recorded_count;
extern const char *const lt_recorded_names[];
extern const int lt_forwarded_count;
extern const char *const lt_forwarded_names[];
extern void *lt_slots[];

/* The capture function id of recorded function k (the library's first id + k). */
uint32_t lt_fid(int k);
/* The real library's recorded function k, or NULL. */
void *lt_real(int k);

#endif

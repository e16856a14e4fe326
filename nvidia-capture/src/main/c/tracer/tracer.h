/*
 * The NVIDIA pass-through tracer (dist/lib/trace/libcuda.so.1): every exported CUDA function
 * (trace_wrappers.c, generated from the API spec) records ENTER, calls the same function of the
 * target driver and records LEAVE, through the helpers declared here (tracer.c).
 */
#ifndef ZLUDA_TRACER_H
#define ZLUDA_TRACER_H

#include <stddef.h>
#include <stdint.h>

#include "zcap.h"

#define ZT_EXPORT __attribute__((visibility("default")))
/* What a wrapper returns when the target driver lacks the function: CUDA_ERROR_NOT_SUPPORTED. */
#define ZT_NOT_FOUND_IN_TARGET 801
#define ZT_MAX_ITEMS 16

/* One call in progress on this thread. */
typedef struct {
    uint32_t fid;
    const uint64_t *args;
    int64_t enter_seq;     /* -1 when not recorded (tracing off, or the capture is full) */
    zcap_thread *thread;
    struct zt_kernel *kernel;  /* a kernel snapshot in progress (kernels.c), or NULL */
    struct zt_graph_launch *graph;  /* the kernel snapshots of a graph launch in progress (kernels.c), or NULL */
    size_t nitems;
    zcap_item items[ZT_MAX_ITEMS];
} zt_call;

/* Starts a call: fid is the spec id, args the raw argument values. */
void zt_begin(zt_call *c, uint32_t fid, const uint64_t *args);
/* Input or output data of a parameter: n bytes at p (a non-void pointee: recorded at every level). */
void zt_data(zt_call *c, uint32_t param, const void *p, uint64_t n);
/* A host buffer of n bytes (void *): recorded only at level replay, as a blob. */
void zt_buffer(zt_call *c, uint32_t param, const void *p, uint64_t n);
/* A NUL-terminated string of at most cap bytes. */
void zt_string(zt_call *c, uint32_t param, const void *p, uint64_t cap);
/* Writes ENTER with the data collected so far and enters the nesting level. */
void zt_enter(zt_call *c);
/* Back from the target driver: leaves the nesting level and starts collecting output data. */
void zt_after(zt_call *c);
/* Writes LEAVE with the result and the output data. */
void zt_end(zt_call *c, int result);
/* The target driver's function for spec id fid, or NULL. */
void *zt_real(uint32_t fid);
/* Stores a module image (or, with is_file, the file it names) and dumps it into the capture directory. */
void zt_module(zt_call *c, const void *image, uint64_t handle, int is_file);
/* The capture directory, or "" when nothing is recorded. */
const char *zt_capture_dir(void);
/* Replaces a function pointer returned by the target's cuGetProcAddress with our wrapper for it. */
void zt_wrap_proc_address(void **pfn);

/* The target driver's function of that name (untraced), or NULL. */
void *zt_real_by_name(const char *name);
/* A MARKER record (an annotation by the tracer) on the calling thread. */
void zt_marker(zt_call *c, const char *text);

/* Export tables (export_tables.c). The function-table entries of export-table slots, with ids from
 * `first` on: fills *out and returns their count (built once). */
int zt_export_functions(uint32_t first, zcap_function **out);
/* After a successful cuGetExportTable: replaces *pp, the target's table for that GUID, by a copy
 * whose slots are recorded. */
void zt_wrap_export_table(void **pp, const void *guid);

/* Kernel snapshots (kernels.c): before the launch's ENTER (function, stream, kernelParams, extra
 * of cuLaunchKernel / cuLaunchKernelEx) and after its LEAVE. Nothing happens unless
 * ZLUDA_CAPTURE_KERNELS names the kernel. */
void zt_kernel_before(zt_call *c, uint64_t f, uint64_t stream, void **params, void **extra);
void zt_kernel_after(zt_call *c, int result);

/* Kernel snapshots of graph launches (kernels.c): the tracer learns each executable graph's kernel nodes when it
 * is made (instantiated from a graph, updated from another, a kernel node's parameters set), from the target
 * driver's own queries of the graph, and snapshots their buffers around cuGraphLaunch: before-images before the
 * launch, after-images after it has completed, one KERNEL record (with its launch section) per kernel node in
 * dependency order. Nothing happens unless ZLUDA_CAPTURE_KERNELS is set. */
void zt_graph_instantiated(uint64_t exec, uint64_t graph);
void zt_graph_updated(uint64_t exec, uint64_t graph);
void zt_graph_kernel_params(uint64_t exec, uint64_t node, const void *params, int v2);
void zt_graph_node_params(uint64_t exec, uint64_t node, const void *params);
void zt_graph_destroyed(uint64_t exec);
void zt_graph_before(zt_call *c, uint64_t exec, uint64_t stream);
void zt_graph_after(zt_call *c, int result);

/* The functions of a library whose tracer (lt_<library>.c, libtracer.c) records into this capture:
 * generated from the library specs (library_functions.c). */
typedef struct {
    const char *library;          /* cublas, cublasLt, cufft, cusparse, cudnn, nvml */
    const char *soname;           /* libcublas.so.13 ... */
    int count;
    const zcap_function *functions;
} zt_library;
extern const zt_library zt_libraries[];
extern const int zt_library_count;

/* Generated. */
extern const uint64_t zt_spec_hash;   /* the capture header's specHash: XXH64 of the spec resources */
extern const int zt_function_count;
extern const zcap_function zt_functions[];
extern void *const zt_wrappers[];

#endif

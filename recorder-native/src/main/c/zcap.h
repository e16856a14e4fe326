/*
 * zcap: the native writer of the zluda capture format (trace-format/FORMAT.md, version 1.0).
 *
 * Records go into a MAP_SHARED mapping of the capture file. Each thread writes into chunks it
 * reserves lock-free with one atomic add on the shared ticket (unit << 40 | seq); a record counts
 * once its length word is published (release store), so a process killed at any instant leaves
 * every completed record readable. Sequence numbers come from the same ticket and give one total
 * order across threads.
 *
 * Thread safety: zcap_thread_current() gives the calling thread its own state; every record
 * function takes that state and must be called only by its thread. zcap_open/zcap_close are not
 * concurrent with anything else.
 */
#ifndef ZCAP_H
#define ZCAP_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct zcap_writer zcap_writer;
typedef struct zcap_thread zcap_thread;

/* One entry of the function table: ENTER records refer to functions by their index in it. */
typedef struct {
    const char *name;
    uint8_t param_count;
} zcap_function;

/* Options; zero fields take the defaults. */
typedef struct {
    uint32_t chunk_size;   /* bytes per unit, power of two 4096..16 MiB; default 256 KiB */
    uint64_t grow_step;    /* the file grows by this many bytes at once (fallocate); default 8 MiB */
    uint64_t max_size;     /* address space reserved for the mapping; default 64 GiB */
    uint64_t spec_hash;    /* header specHash */
} zcap_options;

/* Data item kinds (FORMAT.md 6.13). */
enum { ZCAP_INLINE = 0, ZCAP_BLOB = 1, ZCAP_STRING = 2, ZCAP_HASH_ONLY = 3, ZCAP_UNREADABLE = 4, ZCAP_TRUNCATED = 5 };
/* PROCESS_END reasons. */
enum { ZCAP_END_EXIT = 0, ZCAP_END_SIGNAL = 1, ZCAP_END_CLOSED = 2 };
/* MODULE kinds. */
enum { ZCAP_MODULE_PTX = 1, ZCAP_MODULE_ELF = 2, ZCAP_MODULE_FATBIN = 3, ZCAP_MODULE_OTHER = 4 };

/* The data behind one pointer parameter. Fields used per kind: INLINE data+len; BLOB and
 * HASH_ONLY hash+size; STRING string_id; TRUNCATED size (full) + data+len (kept). */
typedef struct {
    uint8_t param;
    uint8_t kind;
    const void *data;
    uint64_t len;
    uint64_t hash;
    uint64_t size;
    uint32_t string_id;
} zcap_item;

/* Creates (truncates) the capture file at path, writes the header and the function table.
 * Returns NULL and a message in err on failure. */
zcap_writer *zcap_open(const char *path, const zcap_options *opts, const zcap_function *fns, size_t nfns,
                       char *err, size_t errlen);

/* Writes PROCESS_END, seals every thread's chunk, trims the file to its last unit and frees
 * the writer. Call it once no other thread writes. Returns 0 or -1 (errno set). */
int zcap_close(zcap_writer *w, int reason, int64_t status);

/* Writes PROCESS_END from the calling thread and flushes, without sealing other threads'
 * chunks (they may still be running): for atexit handlers and fatal signals. */
void zcap_process_end(zcap_writer *w, int reason, int64_t status);

/* The calling thread's state (created on first use; its thread id is gettid()). */
zcap_thread *zcap_thread_current(zcap_writer *w);

/* CLOCK_MONOTONIC in ns. */
uint64_t zcap_now(void);

/* XXH64 with seed 0. */
uint64_t zcap_hash(const void *data, size_t len);

/* Record writers. Each returns the record's sequence number, or -1 when the capture is full
 * (the record is dropped). args holds the function's param_count raw values. */
int64_t zcap_enter(zcap_thread *t, uint32_t fid, uint32_t depth, uint64_t ts, const uint64_t *args,
                   const zcap_item *items, size_t nitems);
int64_t zcap_leave(zcap_thread *t, uint64_t enter_seq, uint64_t ts, uint32_t result,
                   const zcap_item *items, size_t nitems);
/* zcap_enter and zcap_leave timestamped by the writer itself (zcap_now()'s clock, read inline):
 * the same records, without a separate call for the clock. */
int64_t zcap_enter_now(zcap_thread *t, uint32_t fid, uint32_t depth, const uint64_t *args, const zcap_item *items,
                       size_t nitems);
int64_t zcap_leave_now(zcap_thread *t, uint64_t enter_seq, uint32_t result, const zcap_item *items, size_t nitems);
/* Stores data once per capture (by XXH64); returns its hash. */
uint64_t zcap_blob(zcap_thread *t, const void *data, size_t len, uint64_t ts);
int64_t zcap_module(zcap_thread *t, uint32_t library, uint32_t index, uint8_t kind, uint64_t image_hash,
                    uint64_t size, uint64_t handle, const char *file_name, uint64_t ts);
/* One device buffer of a KERNEL record: hashes of blobs written before (0 = not taken). */
typedef struct {
    uint64_t device_pointer, size, before, after;
} zcap_kernel_buffer;
/* KERNEL (FORMAT.md 6.5): a kernel snapshot for the launch whose ENTER has seq launch_seq. */
int64_t zcap_kernel(zcap_thread *t, uint64_t launch_seq, uint64_t function, const char *name, const void *params,
                    size_t params_len, const zcap_kernel_buffer *buffers, size_t nbuffers, uint64_t ts);
/* The launch section of a KERNEL record (FORMAT.md 6.5): module image blob (0: not kept), grid and block
 * dimensions, dynamic shared memory in bytes, and the CUresult of the synchronisation after the kernel. */
typedef struct {
    uint64_t module;
    uint64_t grid[3], block[3];
    uint64_t shared_mem;
    uint64_t result;
} zcap_kernel_shape;
/* KERNEL with its launch section (a kernel whose launch call does not carry its shape: a graph's). */
int64_t zcap_kernel_launch(zcap_thread *t, uint64_t launch_seq, uint64_t function, const char *name, const void *params,
                           size_t params_len, const zcap_kernel_buffer *buffers, size_t nbuffers, const zcap_kernel_shape *shape,
                           uint64_t ts);
int64_t zcap_marker(zcap_thread *t, const char *text, uint64_t ts);
int64_t zcap_thread_name(zcap_thread *t, uint64_t thread_id, const char *name, uint64_t ts);
/* The id of a string, writing its STRING record the first time. */
uint32_t zcap_intern(zcap_thread *t, const char *s, uint64_t ts);

/* Whether a limit of the format was reached (records were dropped). */
int zcap_full(const zcap_writer *w);

#ifdef __cplusplus
}
#endif
#endif

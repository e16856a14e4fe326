/* The native entry of the zluda driver (dist/lib/libcuda.so.1). */
#ifndef ZLUDA_ENTRY_H
#define ZLUDA_ENTRY_H
#include <stdint.h>

#define ZL_EXPORT __attribute__((visibility("default")))

/* Calls spec function `id` in the Java driver with its arguments packed as 64-bit words
 * (EntryGenerator's conventions). Boots the JVM on first use. Returns a CUresult; never lets a
 * Java exception through (the Java side turns every Throwable into CUDA_ERROR_UNKNOWN). */
int zl_call(int id, uint64_t *words);

/* Forgets the calling thread's answers of the native fast path (entry.c): for calls into the Java driver that do not
 * pass zl_call (the export tables' slots), which may change the thread's current context. */
void zl_fast_forget(void);

/* Generated: the address of every export, indexed by spec function id. */
extern void *const zl_functions[];
extern const int zl_function_count;

#endif

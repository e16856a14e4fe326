/* The native writer of the zluda capture format: see zcap.h and trace-format/FORMAT.md. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "zcap.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <xxhash.h>

#define FILE_HEADER 64u
#define CHUNK_HEADER 40u
#define SEAL_RESERVE 16u
#define CHUNK_MAGIC 0x4B48435Au
#define SEQ_BITS 40
#define SEQ_MASK ((UINT64_C(1) << SEQ_BITS) - 1)
#define MAX_UNITS (UINT64_C(1) << (64 - SEQ_BITS))
#define SLOTS 64
#define SLOT_VALUES 16

enum { T_ENTER = 1, T_LEAVE = 2, T_BLOB = 3, T_MODULE = 4, T_KERNEL = 5, T_THREAD_NAME = 6, T_MARKER = 7, T_PROCESS_END = 8,
       T_STRING = 9, T_FUNCTION_TABLE = 10, T_SEAL = 11 };

/* The argument cache of ENTER (FORMAT.md: values are stored as differences from the previous
 * ENTER of the same function in slot fid % SLOTS). A slot's fid and its first values share a cache
 * line: a call with few arguments touches one line of it. */
typedef struct {
    int64_t fid;          /* -1: empty */
    uint64_t val[SLOT_VALUES];
    uint64_t pad[7];
} arg_slot;
_Static_assert(sizeof(arg_slot) % 64 == 0, "an argument slot is whole cache lines");

/* What every record touches comes first, in one cache line (the struct is 64-byte aligned). */
struct __attribute__((aligned(64))) zcap_thread {
    uint8_t *chunk;       /* start of the current chunk, NULL before the first */
    uint64_t pos, limit;  /* offsets inside the chunk */
    uint64_t prev_seq, prev_ts;
    zcap_writer *w;
    int finished;
    uint64_t tid;
    uint64_t chunk_bytes;
    struct zcap_thread *next;
    arg_slot cache[SLOTS];
};

struct strent { char *s; uint32_t id; };

/* What every ENTER reads (the ticket, full, the parameter counts) shares one cache line, which the
 * ticket's atomic add has just made this core's own. */
struct __attribute__((aligned(64))) zcap_writer {
    _Atomic uint64_t ticket;
    _Atomic int full;
    uint8_t *param_counts;
    size_t nfns;
    int fd;
    uint8_t *base;        /* mapping of the whole reserved range from file offset 0 */
    uint64_t max_size;
    uint32_t chunk_size;
    uint64_t grow_step;
    _Atomic uint64_t file_len;
    pthread_mutex_t lock;  /* growth, thread list, blob set, strings */
    zcap_thread *threads;
    uint64_t *blobs; size_t blob_cap, blob_n;       /* open addressing, 0 = empty */
    struct strent *strs; size_t str_cap, str_n;
    uint32_t next_string;
    pthread_key_t key;
    /* the prefault thread: keeps the pages ahead of the reserved units mapped and writable */
    pthread_t prefaulter;
    int prefaulting;
    pthread_mutex_t pf_lock;
    pthread_cond_t pf_cond;
    int pf_stop;
    uint64_t pf_done;       /* bytes from offset 0 already prefaulted */
};

static void put64(uint8_t *p, uint64_t v) { for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i)); }
static void put32(uint8_t *p, uint32_t v) { for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i)); }
static inline uint8_t *varint(uint8_t *p, uint64_t v) {
    while (v >= 0x80) { *p++ = (uint8_t)(v | 0x80); v >>= 7; }
    *p++ = (uint8_t)v;
    return p;
}
static uint64_t zigzag(int64_t v) { return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63); }
static uint8_t *str(uint8_t *p, const char *s, size_t n) { p = varint(p, n); memcpy(p, s, n); return p + n; }

static uint64_t mono_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * The clock: CLOCK_MONOTONIC in ns, read through the TSC where that is safe (x86-64 with an
 * invariant TSC: /proc/cpuinfo says constant_tsc and nonstop_tsc), which costs about half of a
 * clock_gettime on a VM. ns = mono0 + (tsc - tsc0) * mult / 2^32, with (tsc0, mono0) taken at the
 * first use and mult fitted over the whole time since (refitted whenever a chunk is opened, so its
 * error shrinks as the process runs). Until 20 ms have passed, and where the TSC is not safe (or
 * ZCAP_CLOCK=monotonic), clock_gettime is used. Per-thread timestamps never go backwards (seq_ts
 * clamps them).
 */
#define CALIBRATE_AFTER_NS 20000000u
static struct __attribute__((aligned(64))) {
    _Atomic int state;            /* 0 not set up, 1 clock_gettime only, 2 calibrating, 3 TSC */
    uint64_t tsc0, mono0;
    _Atomic uint64_t mult;        /* ns per TSC tick, 32.32 fixed point */
    pthread_mutex_t lock;
} clk = {.lock = PTHREAD_MUTEX_INITIALIZER};
static __thread uint32_t clk_tries;

#if defined(__x86_64__)
static inline uint64_t tsc(void) {
    uint32_t lo, hi;
    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
    return (uint64_t)hi << 32 | lo;
}

static int tsc_invariant(void) {
    const char *env = getenv("ZCAP_CLOCK");
    if (env && strcmp(env, "monotonic") == 0) return 0;
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return 0;
    char line[4096];
    int ok = 0;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "flags", 5) == 0) {
            ok = strstr(line, " constant_tsc") && strstr(line, " nonstop_tsc");
            break;
        }
    }
    fclose(f);
    return ok;
}

/* Fits mult over the time since (tsc0, mono0); switches to the TSC once enough time has passed. */
static void clock_fit(void) {
    if (pthread_mutex_trylock(&clk.lock) != 0) return;
    uint64_t m1 = mono_ns(), t1 = tsc(), m2 = mono_ns();
    uint64_t mid = m1 + (m2 - m1) / 2;
    if (m2 - m1 < 2000 && mid - clk.mono0 >= CALIBRATE_AFTER_NS && t1 > clk.tsc0) {
        unsigned __int128 num = (unsigned __int128)(mid - clk.mono0) << 32;
        atomic_store_explicit(&clk.mult, (uint64_t)(num / (t1 - clk.tsc0)), memory_order_relaxed);
        atomic_store_explicit(&clk.state, 3, memory_order_release);
    }
    pthread_mutex_unlock(&clk.lock);
}
#endif

static void clock_setup(void) {
    pthread_mutex_lock(&clk.lock);
    if (!atomic_load(&clk.state)) {
        int st = 1;
#if defined(__x86_64__)
        if (tsc_invariant()) {
            uint64_t m1 = mono_ns();
            clk.tsc0 = tsc();
            uint64_t m2 = mono_ns();
            clk.mono0 = m1 + (m2 - m1) / 2;
            st = 2;
        }
#endif
        atomic_store(&clk.state, st);
    }
    pthread_mutex_unlock(&clk.lock);
}

/* zcap_now's common case, inlined into the record writers that read the clock themselves. */
static inline uint64_t now_inline(void) {
#if defined(__x86_64__)
    if (__builtin_expect(atomic_load_explicit(&clk.state, memory_order_acquire) == 3, 1)) {
        uint64_t d = tsc() - clk.tsc0;
        return clk.mono0 + (uint64_t)(((unsigned __int128)d * atomic_load_explicit(&clk.mult, memory_order_relaxed)) >> 32);
    }
#endif
    return zcap_now();
}

uint64_t zcap_now(void) {
    int st = atomic_load_explicit(&clk.state, memory_order_acquire);
#if defined(__x86_64__)
    if (st == 3) {
        uint64_t d = tsc() - clk.tsc0;
        return clk.mono0 + (uint64_t)(((unsigned __int128)d * atomic_load_explicit(&clk.mult, memory_order_relaxed)) >> 32);
    }
    if (st == 2 && (++clk_tries & 255) == 0) clock_fit();
#endif
    if (st == 0) clock_setup();
    return mono_ns();
}

uint64_t zcap_hash(const void *data, size_t len) { return XXH64(data, len, 0); }

int zcap_full(const zcap_writer *w) { return atomic_load(&w->full); }

/* Makes the file at least `end` bytes long (rounded up to the growth step). */
static int ensure_len(zcap_writer *w, uint64_t end) {
    if (end <= atomic_load_explicit(&w->file_len, memory_order_acquire)) return 0;
    pthread_mutex_lock(&w->lock);
    int rc = 0;
    uint64_t cur = atomic_load(&w->file_len);
    if (end > cur) {
        uint64_t target = FILE_HEADER + ((end - FILE_HEADER + w->grow_step - 1) / w->grow_step) * w->grow_step;
        if (target > w->max_size) target = w->max_size;
        /* fallocate reserves the blocks, so that a full disk is an error here and never a SIGBUS
         * when a page of the mapping is first written; ftruncate where the file system cannot */
        if (target < end) {
            rc = -1;
        } else if (fallocate(w->fd, 0, (off_t)cur, (off_t)(target - cur)) != 0) {
            if (errno == ENOSPC || errno == EDQUOT || errno == EFBIG) {
                /* not a whole step left: just what is needed now, so the capture ends as late as it can */
                if (fallocate(w->fd, 0, (off_t)cur, (off_t)(end - cur)) == 0) target = end;
                else rc = -1;
            } else if (ftruncate(w->fd, (off_t)target) != 0) {
                rc = -1;
            }
        }
        if (rc == 0) atomic_store_explicit(&w->file_len, target, memory_order_release);
    }
    pthread_mutex_unlock(&w->lock);
    return rc;
}

static void seal(zcap_thread *t) {
    if (!t->chunk) return;
    uint8_t *c = t->chunk;
    uint64_t h = XXH64(c + CHUNK_HEADER, t->pos - CHUNK_HEADER, 0);
    c[t->pos + 4] = T_SEAL;
    put64(c + t->pos + 5, h);
    __atomic_store_n((uint32_t *)(c + t->pos), 9u, __ATOMIC_RELEASE);
    t->chunk = NULL;
}

/* A new chunk with room for `need` bytes of frame. 0 on success. */
static void prefault_wake(zcap_writer *w);

__attribute__((noinline, cold)) static int new_chunk(zcap_thread *t, uint64_t need, uint64_t ts) {
    zcap_writer *w = t->w;
#if defined(__x86_64__)
    if (atomic_load_explicit(&clk.state, memory_order_relaxed) >= 2) clock_fit();
#endif
    seal(t);
    uint64_t bytes = CHUNK_HEADER + need + SEAL_RESERVE;
    uint64_t span = (bytes + w->chunk_size - 1) / w->chunk_size;
    uint64_t old = atomic_fetch_add(&w->ticket, span << SEQ_BITS);
    uint64_t unit = old >> SEQ_BITS;
    uint64_t off = FILE_HEADER + unit * w->chunk_size;
    if (unit + span >= MAX_UNITS || off + span * w->chunk_size > w->max_size || ensure_len(w, off + span * w->chunk_size) != 0) {
        atomic_store(&w->full, 1);
        return -1;
    }
    uint8_t *c = w->base + off;
    put32(c + 4, (uint32_t)span);
    put64(c + 8, t->tid);
    put64(c + 16, old & SEQ_MASK);
    if (ts < t->prev_ts) ts = t->prev_ts;
    put64(c + 24, ts);
    put32(c + 32, (uint32_t)XXH64(c + 4, 28, 0));
    __atomic_store_n((uint32_t *)c, CHUNK_MAGIC, __ATOMIC_RELEASE);
    t->chunk = c;
    t->chunk_bytes = span * w->chunk_size;
    t->pos = CHUNK_HEADER;
    t->limit = t->chunk_bytes - SEAL_RESERVE;
    t->prev_seq = old & SEQ_MASK;
    t->prev_ts = ts;
    for (int i = 0; i < SLOTS; i++) t->cache[i].fid = -1;
    prefault_wake(w);
    return 0;
}

/*
 * Prefaulting: a page of a MAP_SHARED file mapping costs a fault (several µs) when first written,
 * ~100 ns per small record on average; a helper thread makes the next PREFAULT_AHEAD bytes past
 * the reserved units present and writable before any writer touches them: MADV_POPULATE_WRITE,
 * then one atomic no-op add per page from user space. The add matters on virtual machines whose
 * hypervisor maps a page for user space only at its first user-space access, however the kernel
 * populated it (seen on a development VM: 10 µs at the first write to each populated page, 90–124 ns
 * added per recorded call in bench_calls without the add, 56–69 ns with it; docs/benchmarks.md);
 * where the kernel lacks MADV_POPULATE_WRITE the add alone faults the page in. It never changes a
 * value: the add is atomic and adds 0.
 */
#define PREFAULT_AHEAD (4u << 20)

static void prefault_wake(zcap_writer *w) {
    if (!w->prefaulting) return;
    pthread_mutex_lock(&w->pf_lock);
    pthread_cond_signal(&w->pf_cond);
    pthread_mutex_unlock(&w->pf_lock);
}

static void *prefault_main(void *arg) {
    zcap_writer *w = arg;
    long page = sysconf(_SC_PAGESIZE);
    int madv_ok = 1;
    pthread_mutex_lock(&w->pf_lock);
    while (!w->pf_stop) {
        pthread_mutex_unlock(&w->pf_lock);
        uint64_t units = atomic_load(&w->ticket) >> SEQ_BITS;
        uint64_t want = FILE_HEADER + units * w->chunk_size + PREFAULT_AHEAD;
        if (want > w->max_size) want = w->max_size;
        if (want > w->pf_done && ensure_len(w, want) == 0) {
            uint64_t from = w->pf_done & ~(uint64_t)(page - 1);
            uint64_t len = want - from;
            if (madv_ok && madvise(w->base + from, len, 23 /* MADV_POPULATE_WRITE, Linux 5.14 */) != 0) madv_ok = 0;
            for (uint64_t o = from; o < want; o += (uint64_t)page) __atomic_fetch_add(w->base + o, 0, __ATOMIC_RELAXED);
            w->pf_done = want;
        }
        pthread_mutex_lock(&w->pf_lock);
        if (w->pf_stop) break;
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += 20000000;
        if (until.tv_nsec >= 1000000000) { until.tv_sec++; until.tv_nsec -= 1000000000; }
        pthread_cond_timedwait(&w->pf_cond, &w->pf_lock, &until);
    }
    pthread_mutex_unlock(&w->pf_lock);
    return NULL;
}

/* Room for a payload of at most `max` bytes; returns where the payload goes and the record's seq. */
static inline uint8_t *begin(zcap_thread *t, uint64_t max, uint64_t ts, uint64_t *seq) {
    zcap_writer *w = t->w;
    if (__builtin_expect(t->finished || atomic_load_explicit(&w->full, memory_order_relaxed), 0)) return NULL;
    uint64_t need = 4 + ((max + 3) & ~UINT64_C(3));
    if (__builtin_expect(!t->chunk || t->pos + need > t->limit, 0)) {
        if (new_chunk(t, need, ts) != 0) return NULL;
    }
    uint64_t s = atomic_fetch_add(&w->ticket, 1) & SEQ_MASK;
    if (__builtin_expect(s == SEQ_MASK, 0)) { atomic_store(&w->full, 1); return NULL; }
    *seq = s;
    return t->chunk + t->pos + 4;
}

static inline uint8_t *seq_ts(zcap_thread *t, uint8_t *p, uint64_t seq, uint64_t ts) {
    p = varint(p, seq - t->prev_seq);
    if (ts < t->prev_ts) ts = t->prev_ts;
    p = varint(p, ts - t->prev_ts);
    t->prev_seq = seq;
    t->prev_ts = ts;
    return p;
}

static inline void commit(zcap_thread *t, uint8_t *payload, uint8_t *end) {
    uint32_t len = (uint32_t)(end - payload);
    __atomic_store_n((uint32_t *)(t->chunk + t->pos), len, __ATOMIC_RELEASE);
    t->pos += 4 + ((len + 3u) & ~3u);
}

static inline uint64_t items_max(const zcap_item *items, size_t n) {
    uint64_t m = 0;
    for (size_t i = 0; i < n; i++) m += 40 + (items[i].kind == ZCAP_INLINE || items[i].kind == ZCAP_TRUNCATED ? items[i].len : 0);
    return m;
}

/* Copies n bytes; the usual sizes of a driver call's output (4 and 8 bytes) without calling memcpy. */
static inline uint8_t *put_bytes(uint8_t *p, const void *d, uint64_t n) {
    switch (n) {
    case 4: __builtin_memcpy(p, d, 4); break;
    case 8: __builtin_memcpy(p, d, 8); break;
    default: memcpy(p, d, n); break;
    }
    return p + n;
}

/* One item of any kind (put_items inlines only the common INLINE case). */
__attribute__((noinline)) static uint8_t *put_item(uint8_t *p, const zcap_item *it) {
    p = varint(p, ((uint64_t)it->param << 3) | it->kind);
    switch (it->kind) {
    case ZCAP_INLINE: p = put_bytes(varint(p, it->len), it->data, it->len); break;
    case ZCAP_BLOB: case ZCAP_HASH_ONLY: put64(p, it->hash); p = varint(p + 8, it->size); break;
    case ZCAP_STRING: p = varint(p, it->string_id); break;
    case ZCAP_UNREADABLE: break;
    case ZCAP_TRUNCATED: p = varint(p, it->size); p = varint(p, it->len); memcpy(p, it->data, it->len); p += it->len; break;
    default: break;
    }
    return p;
}

__attribute__((always_inline)) static inline uint8_t *put_items(uint8_t *p, const zcap_item *items, size_t n) {
    for (size_t i = 0; i < n; i++) {
        const zcap_item *it = &items[i];
        if (__builtin_expect(it->kind == ZCAP_INLINE && it->len < 0x80 && it->param < 16, 1)) {
            p[0] = (uint8_t)(it->param << 3 | ZCAP_INLINE);
            p[1] = (uint8_t)it->len;
            p = put_bytes(p + 2, it->data, it->len);
        } else {
            p = put_item(p, it);
        }
    }
    return p;
}

/*
 * The ENTER and LEAVE writers, the tracer's path for every driver call: one function each with the
 * clock read, the reservation, the encoding and the publication inlined, and the rare cases (a new
 * chunk, other item kinds) out of line.
 */
__attribute__((always_inline)) static inline int64_t enter_at(zcap_thread *t, uint32_t fid, uint32_t depth, uint64_t ts,
                                                              const uint64_t *args, const zcap_item *items, size_t nitems) {
    zcap_writer *w = t->w;
    if (__builtin_expect(fid >= w->nfns, 0)) return -1;
    unsigned n = w->param_counts[fid];
    uint64_t seq;
    uint8_t *b = begin(t, 40 + (uint64_t)n * 10 + items_max(items, nitems), ts, &seq);
    if (__builtin_expect(!b, 0)) return -1;
    uint8_t *p = b;
    *p++ = (uint8_t)(1 | ((depth < 15 ? depth : 15) << 4));
    p = seq_ts(t, p, seq, ts);
    if (__builtin_expect(depth >= 15, 0)) p = varint(p, depth);
    p = varint(p, fid);
    /* the argument cache: differences from the previous ENTER of this function in its slot (none
     * when the slot holds another function's values); only the function's own values are kept */
    arg_slot *slot = &t->cache[fid & (SLOTS - 1)];
    uint64_t hit = -(uint64_t)(slot->fid == (int64_t)fid);
    unsigned cached = n < SLOT_VALUES ? n : SLOT_VALUES;
    for (unsigned i = 0; i < cached; i++) {
        uint64_t a = args[i];
        p = varint(p, zigzag((int64_t)(a - (slot->val[i] & hit))));
        slot->val[i] = a;
    }
    for (unsigned i = cached; i < n; i++) p = varint(p, zigzag((int64_t)args[i]));
    slot->fid = (int64_t)fid;
    p = put_items(p, items, nitems);
    commit(t, b, p);
    return (int64_t)seq;
}

__attribute__((always_inline)) static inline int64_t leave_at(zcap_thread *t, uint64_t enter_seq, uint64_t ts, uint32_t result,
                                                              const zcap_item *items, size_t nitems) {
    uint64_t seq;
    uint8_t *b = begin(t, 40 + items_max(items, nitems), ts, &seq);
    if (__builtin_expect(!b, 0)) return -1;
    uint8_t *p = b;
    *p++ = T_LEAVE;
    p = seq_ts(t, p, seq, ts);
    p = varint(p, seq - enter_seq);
    p = varint(p, result);
    p = put_items(p, items, nitems);
    commit(t, b, p);
    return (int64_t)seq;
}

int64_t zcap_enter(zcap_thread *t, uint32_t fid, uint32_t depth, uint64_t ts, const uint64_t *args,
                   const zcap_item *items, size_t nitems) {
    return enter_at(t, fid, depth, ts, args, items, nitems);
}

int64_t zcap_leave(zcap_thread *t, uint64_t enter_seq, uint64_t ts, uint32_t result,
                   const zcap_item *items, size_t nitems) {
    return leave_at(t, enter_seq, ts, result, items, nitems);
}

__attribute__((hot)) int64_t zcap_enter_now(zcap_thread *t, uint32_t fid, uint32_t depth, const uint64_t *args,
                                            const zcap_item *items, size_t nitems) {
    return enter_at(t, fid, depth, now_inline(), args, items, nitems);
}

__attribute__((hot)) int64_t zcap_leave_now(zcap_thread *t, uint64_t enter_seq, uint32_t result, const zcap_item *items,
                                            size_t nitems) {
    return leave_at(t, enter_seq, now_inline(), result, items, nitems);
}

static int64_t simple_text(zcap_thread *t, int type, const char *text, uint64_t ts) {
    size_t n = strlen(text);
    uint64_t seq;
    uint8_t *b = begin(t, 32 + n, ts, &seq);
    if (!b) return -1;
    uint8_t *p = b;
    *p++ = (uint8_t)type;
    p = seq_ts(t, p, seq, ts);
    p = str(p, text, n);
    commit(t, b, p);
    return (int64_t)seq;
}

int64_t zcap_marker(zcap_thread *t, const char *text, uint64_t ts) { return simple_text(t, T_MARKER, text, ts); }

int64_t zcap_thread_name(zcap_thread *t, uint64_t thread_id, const char *name, uint64_t ts) {
    size_t n = strlen(name);
    uint64_t seq;
    uint8_t *b = begin(t, 40 + n, ts, &seq);
    if (!b) return -1;
    uint8_t *p = b;
    *p++ = T_THREAD_NAME;
    p = seq_ts(t, p, seq, ts);
    p = varint(p, thread_id);
    p = str(p, name, n);
    commit(t, b, p);
    return (int64_t)seq;
}

int64_t zcap_module(zcap_thread *t, uint32_t library, uint32_t index, uint8_t kind, uint64_t image_hash,
                    uint64_t size, uint64_t handle, const char *file_name, uint64_t ts) {
    size_t n = strlen(file_name);
    uint64_t seq;
    uint8_t *b = begin(t, 80 + n, ts, &seq);
    if (!b) return -1;
    uint8_t *p = b;
    *p++ = T_MODULE;
    p = seq_ts(t, p, seq, ts);
    p = varint(p, library);
    p = varint(p, index);
    *p++ = kind;
    put64(p, image_hash);
    p = varint(p + 8, size);
    p = varint(p, handle);
    p = str(p, file_name, n);
    commit(t, b, p);
    return (int64_t)seq;
}

static int64_t kernel_record(zcap_thread *t, uint64_t launch_seq, uint64_t function, const char *name, const void *params,
                             size_t params_len, const zcap_kernel_buffer *buffers, size_t nbuffers, const zcap_kernel_shape *shape,
                             uint64_t ts) {
    size_t n = strlen(name);
    uint64_t seq;
    uint8_t *b = begin(t, 64 + n + params_len + 36 * (uint64_t)nbuffers + (shape ? 8 + 9 * 10 : 0), ts, &seq);
    if (!b) return -1;
    uint8_t *p = b;
    *p++ = T_KERNEL;
    p = seq_ts(t, p, seq, ts);
    p = varint(p, seq - launch_seq);
    p = varint(p, function);
    p = str(p, name, n);
    p = varint(p, params_len);
    if (params_len) memcpy(p, params, params_len);
    p += params_len;
    p = varint(p, nbuffers);
    for (size_t i = 0; i < nbuffers; i++) {
        p = varint(p, buffers[i].device_pointer);
        p = varint(p, buffers[i].size);
        put64(p, buffers[i].before);
        put64(p + 8, buffers[i].after);
        p += 16;
    }
    if (shape) {
        put64(p, shape->module);
        p += 8;
        for (int i = 0; i < 3; i++) p = varint(p, shape->grid[i]);
        for (int i = 0; i < 3; i++) p = varint(p, shape->block[i]);
        p = varint(p, shape->shared_mem);
        p = varint(p, shape->result);
    }
    commit(t, b, p);
    return (int64_t)seq;
}

int64_t zcap_kernel(zcap_thread *t, uint64_t launch_seq, uint64_t function, const char *name, const void *params,
                    size_t params_len, const zcap_kernel_buffer *buffers, size_t nbuffers, uint64_t ts) {
    return kernel_record(t, launch_seq, function, name, params, params_len, buffers, nbuffers, NULL, ts);
}

int64_t zcap_kernel_launch(zcap_thread *t, uint64_t launch_seq, uint64_t function, const char *name, const void *params,
                           size_t params_len, const zcap_kernel_buffer *buffers, size_t nbuffers, const zcap_kernel_shape *shape,
                           uint64_t ts) {
    return kernel_record(t, launch_seq, function, name, params, params_len, buffers, nbuffers, shape, ts);
}

/* Adds hash to the blob set; 1 when it was new. Caller holds the lock. */
static int blob_add(zcap_writer *w, uint64_t h) {
    if (h == 0) h = 1; /* 0 marks an empty slot; a collision with hash 1 only costs a duplicate-free miss */
    if ((w->blob_n + 1) * 2 > w->blob_cap) {
        size_t cap = w->blob_cap ? w->blob_cap * 2 : 1024;
        uint64_t *nb = calloc(cap, sizeof *nb);
        if (!nb) return 1;
        for (size_t i = 0; i < w->blob_cap; i++) {
            if (!w->blobs[i]) continue;
            size_t j = w->blobs[i] & (cap - 1);
            while (nb[j]) j = (j + 1) & (cap - 1);
            nb[j] = w->blobs[i];
        }
        free(w->blobs);
        w->blobs = nb;
        w->blob_cap = cap;
    }
    size_t j = h & (w->blob_cap - 1);
    while (w->blobs[j]) {
        if (w->blobs[j] == h) return 0;
        j = (j + 1) & (w->blob_cap - 1);
    }
    w->blobs[j] = h;
    w->blob_n++;
    return 1;
}

uint64_t zcap_blob(zcap_thread *t, const void *data, size_t len, uint64_t ts) {
    zcap_writer *w = t->w;
    uint64_t h = XXH64(data, len, 0);
    pthread_mutex_lock(&w->lock);
    int fresh = blob_add(w, h);
    pthread_mutex_unlock(&w->lock);
    if (!fresh) return h;
    uint64_t seq;
    uint8_t *b = begin(t, 40 + (uint64_t)len, ts, &seq);
    if (!b) return h;
    uint8_t *p = b;
    *p++ = T_BLOB;
    p = seq_ts(t, p, seq, ts);
    put64(p, h);
    p = varint(p + 8, len);
    *p++ = 0; /* stored uncompressed */
    memcpy(p, data, len);
    commit(t, b, p + len);
    return h;
}

uint32_t zcap_intern(zcap_thread *t, const char *s, uint64_t ts) {
    zcap_writer *w = t->w;
    uint64_t h = XXH64(s, strlen(s), 0);
    pthread_mutex_lock(&w->lock);
    if ((w->str_n + 1) * 2 > w->str_cap) {
        size_t cap = w->str_cap ? w->str_cap * 2 : 256;
        struct strent *ns = calloc(cap, sizeof *ns);
        for (size_t i = 0; ns && i < w->str_cap; i++) {
            if (!w->strs[i].s) continue;
            size_t j = XXH64(w->strs[i].s, strlen(w->strs[i].s), 0) & (cap - 1);
            while (ns[j].s) j = (j + 1) & (cap - 1);
            ns[j] = w->strs[i];
        }
        if (ns) { free(w->strs); w->strs = ns; w->str_cap = cap; }
    }
    size_t j = h & (w->str_cap - 1);
    while (w->strs[j].s) {
        if (strcmp(w->strs[j].s, s) == 0) { uint32_t id = w->strs[j].id; pthread_mutex_unlock(&w->lock); return id; }
        j = (j + 1) & (w->str_cap - 1);
    }
    uint32_t id = w->next_string++;
    /* the STRING record is written under the lock, so it precedes every use in sequence order */
    size_t n = strlen(s);
    uint64_t seq;
    uint8_t *b = begin(t, 32 + n, ts, &seq);
    if (b) {
        uint8_t *p = b;
        *p++ = T_STRING;
        p = seq_ts(t, p, seq, ts);
        p = varint(p, id);
        p = str(p, s, n);
        commit(t, b, p);
    }
    w->strs[j].s = strdup(s);
    w->strs[j].id = id;
    w->str_n++;
    pthread_mutex_unlock(&w->lock);
    return id;
}

static void process_end(zcap_thread *t, int reason, int64_t status) {
    uint64_t seq;
    uint8_t *b = begin(t, 40, zcap_now(), &seq);
    if (!b) return;
    uint8_t *p = b;
    *p++ = T_PROCESS_END;
    p = seq_ts(t, p, seq, zcap_now());
    *p++ = (uint8_t)reason;
    p = varint(p, zigzag(status));
    p = varint(p, atomic_load(&t->w->ticket) >> SEQ_BITS);
    commit(t, b, p);
}

zcap_thread *zcap_thread_current(zcap_writer *w) {
    zcap_thread *t = pthread_getspecific(w->key);
    if (t) return t;
    t = aligned_alloc(64, sizeof *t);
    if (!t) return NULL;
    memset(t, 0, sizeof *t);
    t->w = w;
    t->tid = (uint64_t)syscall(SYS_gettid);
    pthread_mutex_lock(&w->lock);
    t->next = w->threads;
    w->threads = t;
    pthread_mutex_unlock(&w->lock);
    pthread_setspecific(w->key, t);
    return t;
}

/*
 * The capture file is written without its name until the header and the function table are in it,
 * then linked (or renamed) under `path` in one step: a process killed at any instant leaves either no
 * file or one whose first record is the table (FORMAT.md 6.10), never one nothing can read. Where the
 * file system offers O_TMPFILE the file has no name at all until then (a kill leaves nothing behind);
 * elsewhere it is `path.<pid>.tmp`, renamed over `path`.
 */
static int open_unnamed(const char *path, char *tmp, size_t tmplen, int *unnamed) {
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash == dir) slash[1] = 0;
    else if (slash) *slash = 0;
    else snprintf(dir, sizeof dir, ".");
    snprintf(tmp, tmplen, "%s.%d.tmp", path, (int)getpid());
    int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0644);
    if (fd >= 0) {
        *unnamed = 1;
        return fd;
    }
    *unnamed = 0;
    return open(tmp, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
}

/* Gives the file its name `path` (replacing what was there, as O_TRUNC did); 0 or -1. */
static int publish_name(int fd, const char *path, const char *tmp, int unnamed) {
    if (unnamed) {
        char proc[64];
        snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
        unlink(tmp);
        if (linkat(AT_FDCWD, proc, AT_FDCWD, tmp, AT_SYMLINK_FOLLOW) != 0 && linkat(fd, "", AT_FDCWD, tmp, AT_EMPTY_PATH) != 0) return -1;
    }
    if (rename(tmp, path) != 0) {
        int e = errno;
        unlink(tmp);
        errno = e;
        return -1;
    }
    return 0;
}

static zcap_writer *open_writer(const char *path, const zcap_options *opts, const zcap_function *fns, size_t nfns,
                                char *err, size_t errlen, int allow_unnamed);

/* Frees a writer whose open failed (nothing was published under its name). */
static void discard(zcap_writer *w, uint64_t max_size) {
    if (w->base && w->base != MAP_FAILED) munmap(w->base, max_size);
    close(w->fd);
    pthread_setspecific(w->key, NULL);
    pthread_key_delete(w->key);
    zcap_thread *t = w->threads;
    while (t) { zcap_thread *n = t->next; free(t); t = n; }
    pthread_mutex_destroy(&w->lock);
    free(w->param_counts);
    free(w);
}

zcap_writer *zcap_open(const char *path, const zcap_options *opts, const zcap_function *fns, size_t nfns,
                       char *err, size_t errlen) {
    zcap_writer *w = open_writer(path, opts, fns, nfns, err, errlen, 1);
    /* an unnamed file that cannot be linked (no /proc, no CAP_DAC_READ_SEARCH): again, under a temporary name */
    if (!w && errno == ENOLINK) w = open_writer(path, opts, fns, nfns, err, errlen, 0);
    return w;
}

static zcap_writer *open_writer(const char *path, const zcap_options *opts, const zcap_function *fns, size_t nfns,
                                char *err, size_t errlen, int allow_unnamed) {
    zcap_options o = opts ? *opts : (zcap_options){0};
    if (!o.chunk_size) o.chunk_size = 256 * 1024;
    if (!o.grow_step) o.grow_step = 8u << 20;
    if (!o.max_size) o.max_size = UINT64_C(64) << 30;
    if (o.chunk_size < 4096 || o.chunk_size > (16u << 20) || (o.chunk_size & (o.chunk_size - 1))) {
        snprintf(err, errlen, "chunk size %u is not a power of two in 4096..16777216", o.chunk_size);
        return NULL;
    }
    if (o.max_size < FILE_HEADER + 2ull * o.chunk_size) o.max_size = FILE_HEADER + 2ull * o.chunk_size;
    if (o.grow_step > o.max_size - FILE_HEADER) o.grow_step = o.max_size - FILE_HEADER;
    o.grow_step = o.grow_step / o.chunk_size * o.chunk_size;
    zcap_writer *w = aligned_alloc(64, sizeof *w);   /* sizeof is a multiple of the alignment */
    if (!w) { snprintf(err, errlen, "out of memory"); return NULL; }
    memset(w, 0, sizeof *w);
    char tmp[4200];
    int unnamed = 0;
    if (allow_unnamed) {
        w->fd = open_unnamed(path, tmp, sizeof tmp, &unnamed);
    } else {
        snprintf(tmp, sizeof tmp, "%s.%d.tmp", path, (int)getpid());
        w->fd = open(tmp, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    }
    if (w->fd < 0) { snprintf(err, errlen, "%s: %s", path, strerror(errno)); free(w); return NULL; }
    w->chunk_size = o.chunk_size;
    w->grow_step = o.grow_step;
    w->max_size = o.max_size;
    pthread_mutex_init(&w->lock, NULL);
    pthread_key_create(&w->key, NULL);
    w->nfns = nfns;
    w->param_counts = malloc(nfns ? nfns : 1);
    for (size_t i = 0; i < nfns; i++) w->param_counts[i] = fns[i].param_count;

    uint8_t h[FILE_HEADER] = {0};
    memcpy(h, "ZLUDACAP", 8);
    h[8] = 1; h[10] = 0; h[12] = 8; h[13] = 1; h[14] = FILE_HEADER;
    put32(h + 16, o.chunk_size);
    put64(h + 24, o.spec_hash);
    struct timespec rt;
    clock_gettime(CLOCK_REALTIME, &rt);
    uint64_t mono = zcap_now();
    put64(h + 32, (uint64_t)rt.tv_sec * 1000000000u + (uint64_t)rt.tv_nsec);
    put64(h + 40, mono);
    put32(h + 48, (uint32_t)getpid());
    put32(h + 60, (uint32_t)XXH64(h, 60, 0));
    if (pwrite(w->fd, h, sizeof h, 0) != (ssize_t)sizeof h) goto fail;
    atomic_store(&w->file_len, FILE_HEADER);
    w->base = mmap(NULL, o.max_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, w->fd, 0);
    if (w->base == MAP_FAILED) goto fail;
    if (ensure_len(w, FILE_HEADER + o.chunk_size) != 0) goto fail;

    /* the function table: first record of the chunk at unit 0 */
    zcap_thread *t = zcap_thread_current(w);
    uint64_t size = 32;
    for (size_t i = 0; i < nfns; i++) size += 12 + strlen(fns[i].name);
    uint64_t seq;
    uint8_t *b = begin(t, size, mono, &seq);
    if (!b) goto fail;
    uint8_t *p = b;
    *p++ = T_FUNCTION_TABLE;
    p = seq_ts(t, p, seq, mono);
    p = varint(p, nfns);
    for (size_t i = 0; i < nfns; i++) {
        p = str(p, fns[i].name, strlen(fns[i].name));
        *p++ = fns[i].param_count;
    }
    commit(t, b, p);
    /* the table is published: now the file may have its name */
    if (getenv("ZCAP_TEST_KILL_BEFORE_NAME")) raise(SIGKILL); /* for the test that nothing is left behind */
    if (publish_name(w->fd, path, tmp, unnamed) != 0) {
        int e = errno;
        snprintf(err, errlen, "%s: %s", path, strerror(e));
        discard(w, o.max_size);
        errno = unnamed ? ENOLINK : e;
        return NULL;
    }
    pthread_mutex_init(&w->pf_lock, NULL);
    pthread_cond_init(&w->pf_cond, NULL);
    const char *pf = getenv("ZCAP_PREFAULT");
    if (!(pf && strcmp(pf, "0") == 0)) {
        /* the helper must not take signals meant for the program's threads */
        sigset_t all, old_mask;
        sigfillset(&all);
        pthread_sigmask(SIG_SETMASK, &all, &old_mask);
        w->prefaulting = pthread_create(&w->prefaulter, NULL, prefault_main, w) == 0;
        pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
        if (w->prefaulting) pthread_setname_np(w->prefaulter, "zcap-prefault");
    }
    return w;
fail:
    snprintf(err, errlen, "%s: %s", path, strerror(errno));
    if (!unnamed) unlink(tmp);
    discard(w, o.max_size);
    return NULL;
}

void zcap_process_end(zcap_writer *w, int reason, int64_t status) {
    zcap_thread *t = zcap_thread_current(w);
    if (t) process_end(t, reason, status);
    msync(w->base, atomic_load(&w->file_len), MS_ASYNC);
}

int zcap_close(zcap_writer *w, int reason, int64_t status) {
    if (w->prefaulting) {
        pthread_mutex_lock(&w->pf_lock);
        w->pf_stop = 1;
        pthread_cond_signal(&w->pf_cond);
        pthread_mutex_unlock(&w->pf_lock);
        pthread_join(w->prefaulter, NULL);
        w->prefaulting = 0;
    }
    zcap_thread *me = zcap_thread_current(w);
    if (me) process_end(me, reason, status);
    for (zcap_thread *t = w->threads; t; t = t->next) { seal(t); t->finished = 1; }
    uint64_t units = atomic_load(&w->ticket) >> SEQ_BITS;
    uint64_t end = FILE_HEADER + units * w->chunk_size;
    uint64_t len = atomic_load(&w->file_len);
    int rc = 0;
    if (msync(w->base, len, MS_SYNC) != 0) rc = -1;
    munmap(w->base, w->max_size);
    if (ftruncate(w->fd, (off_t)(end < len ? end : len)) != 0) rc = -1;
    if (close(w->fd) != 0) rc = -1;
    pthread_setspecific(w->key, NULL);
    pthread_key_delete(w->key);
    zcap_thread *t = w->threads;
    while (t) { zcap_thread *n = t->next; free(t); t = n; }
    for (size_t i = 0; i < w->str_cap; i++) free(w->strs[i].s);
    free(w->strs);
    free(w->blobs);
    free(w->param_counts);
    pthread_mutex_destroy(&w->lock);
    free(w);
    return rc;
}

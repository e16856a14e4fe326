#!/bin/bash
# What the clock reads and the ticket's locked add cost a PyTorch training step, without any timing
# inside the tracer (docs/benchmarks.md, "Clock, ticket and cache lines"). Makes variant trees of
# the committed tracer (never shipped) and runs the ones VARIANTS names with torch-steps.sh, each as
# `range` runs (in-process ratio of recorded to unrecorded steps):
#   as-is      the committed tracer
#   noclock    the ENTER/LEAVE writers take timestamps from a per-thread counter (no rdtsc)
#   lfence     the TSC read as lfence;rdtsc
#   nolock     the ticket taken with a plain load and store (no total order: measurement only)
#   ring       records written over and over into the first 64 KiB of the thread's chunk (the
#              capture is garbage: measurement only), so the memory they go to stays in the caches
#   pfw        prefetchw of the chunk's line 256 bytes past the write position after each record
#   leavenotime  LEAVE records take their thread's last timestamp (normally the ENTER's) instead of
#              reading the clock: what a LEAVE without a time of its own would save (measurement only)
#   leavediscard LEAVE reads the clock as shipped but records its thread's last timestamp: whether the
#              read itself or the use of its value costs (measurement only)
#   enternotime  ENTER records take their thread's last timestamp (normally the previous LEAVE's)
#              instead of reading the clock; LEAVE as shipped (measurement only)
# Usage, from a directory D as torch-steps.sh wants it (VARIANTS picks; the default is the first four;
# TORCH_DEMO_MODEL picks the network, STEPS the steps per process, default 620):
#   OUT=/some/dir [VARIANTS="as-is ring pfw"] bash D/nvidia-capture/src/test/device/ablation/clock-lock.sh D [ROUNDS]
set -u
D=$(cd "${1:-.}" && pwd)
ROUNDS=${2:-7}
WANT=${VARIANTS:-as-is noclock lfence nolock}
V=/tmp/zt-variants; rm -rf $V
for v in as-is noclock lfence nolock ring pfw leavenotime leavediscard enternotime; do
    mkdir -p $V/$v/zcap
    cp -r $D/nvidia-capture/src/main/c/tracer $V/$v/
    cp $D/recorder-native/src/main/c/zcap.[ch] $V/$v/zcap/
done
python3 - "$V" <<'PY' || exit 1
import sys
V = sys.argv[1]
def patch(v, a, b):
    p = f"{V}/{v}/zcap/zcap.c"; s = open(p).read()
    assert s.count(a) == 1, (v, a); open(p, "w").write(s.replace(a, b))
patch("lfence", '__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));', '__asm__ volatile("lfence\\n\\trdtsc" : "=a"(lo), "=d"(hi) :: "memory");')
patch("nolock", "uint64_t s = atomic_fetch_add(&w->ticket, 1) & SEQ_MASK;",
      "uint64_t s = atomic_load_explicit(&w->ticket, memory_order_relaxed); atomic_store_explicit(&w->ticket, s + 1, memory_order_relaxed); s &= SEQ_MASK;")
patch("noclock", "static inline uint64_t now_inline(void) {",
      "static inline uint64_t now_inline(void) {\n    static __thread uint64_t fake;\n    if (fake || 1) return (fake += 100) + (UINT64_C(1) << 50);")
patch("ring", "    return t->chunk + t->pos + 4;", "    if (t->pos > 65536) t->pos = CHUNK_HEADER;\n    return t->chunk + t->pos + 4;")
patch("pfw", "    t->pos += 4 + ((len + 3u) & ~3u);",
      "    t->pos += 4 + ((len + 3u) & ~3u);\n    __asm__ volatile(\"prefetchw (%0)\" : : \"r\"(t->chunk + t->pos + 256) : \"memory\");")
patch("leavenotime", "return leave_at(t, enter_seq, now_inline(), result, items, nitems);",
      "return leave_at(t, enter_seq, t->prev_ts, result, items, nitems);")
patch("leavediscard", "return leave_at(t, enter_seq, now_inline(), result, items, nitems);",
      "uint64_t now = now_inline();\n    __asm__ volatile(\"\" : : \"r\"(now));\n    return leave_at(t, enter_seq, t->prev_ts, result, items, nitems);")
patch("enternotime", "return enter_at(t, fid, depth, now_inline(), args, items, nitems);",
      "return enter_at(t, fid, depth, t->prev_ts, args, items, nitems);")
PY
BLOCK=${BLOCK:-50} EXTRA_RANGE=1 VARIANTS=" " bash $D/nvidia-capture/src/test/device/torch-steps.sh $D ${STEPS:-620} $ROUNDS $(for v in $WANT; do echo $V/$v; done)

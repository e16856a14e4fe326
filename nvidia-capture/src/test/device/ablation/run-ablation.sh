#!/bin/bash
# Where the tracer's time goes inside a PyTorch training step, on a machine with an NVIDIA GPU
# (docs/benchmarks.md, "Where a recorded call's time goes"). Builds a measurement tracer — the
# sources patched with PATCH, never shipped — and runs torch_blocks.py under it in fresh processes,
# pinned like torch-steps.sh. The measurement build records the steps of profiler block k in mode
# (k + ZT_ABL_OFFSET) % K, so every process measures every mode against its own unrecorded steps,
# and it times each call between entering and leaving the wrapper, less the target driver's call
# (4 TSC reads a call, in every mode and outside the range too).
#   ablation.patch (against commit 8e1630f, the tracer before the change below), K = 8: full
#     recording; no clock reads; no shared sequence counter (a per-thread one); no argument cache;
#     no output data; no payload (ticket and clock only); no writer at all; prefetchw of the next
#     chunk lines. ZCAP_PREFAULT_TOUCH=1 also touches every prefaulted page (alternate runs).
#   ab.patch (against the tracer with the change), K = 4: the committed writer as it was (one
#     clock call per record, then zcap_enter/zcap_leave), the new ENTER/LEAVE writers, the same
#     with branch-free varints, the same with branch-free varints only for the long fields.
# Usage, from a directory D holding nvidia-capture/src, recorder-native/src/main/c,
# gen/trace_wrappers.c and include/xxhash.h (as torch-steps.sh):
#   OUT=/some/dir bash D/nvidia-capture/src/test/device/ablation/run-ablation.sh D ablation.patch|ab.patch [RUNS [SECONDS]]
# then: python3 D/nvidia-capture/src/test/device/ablation/analyse.py $OUT/ablation.txt $OUT/steps.jsonl K
set -u
D=$(cd "${1:-.}" && pwd)
PATCH=${2:-ablation.patch}
RUNS=${3:-16}
SECONDS_MAX=${4:-235}
PIN=${PIN:-2-9}
HERE=$D/nvidia-capture/src/test/device/ablation
K=8; [ "$PATCH" = ab.patch ] && K=4
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
exec > >(tee $OUT/ablation.txt) 2>&1
T0=$(date +%s)
el() { echo $(( $(date +%s) - T0 )); }
S=/tmp/zt-abl-src; B=/tmp/zt-abl; W=/tmp/zt-abl-work
rm -rf $S $B $W; mkdir -p $S/nvidia-capture/src/main/c $S/recorder-native/src/main/c $B $W
cp -r $D/nvidia-capture/src/main/c/tracer $S/nvidia-capture/src/main/c/
cp $D/recorder-native/src/main/c/zcap.[ch] $S/recorder-native/src/main/c/
( cd $S && patch -s -p1 < $HERE/$PATCH ) || exit 1
gcc -O2 -g -std=gnu11 -Wall -Wno-unused-parameter -fPIC -fvisibility=hidden -DXXH_INLINE_ALL -D_GNU_SOURCE -I$D/include \
    -I$S/nvidia-capture/src/main/c/tracer -I$S/recorder-native/src/main/c -shared -Wl,-soname,libcuda.so.1 -o $B/libcuda.so.1 \
    $S/nvidia-capture/src/main/c/tracer/*.c $S/nvidia-capture/src/main/c/tracer/*.S $D/gen/trace_wrappers.c \
    $S/recorder-native/src/main/c/zcap.c -ldl -lpthread || exit 1
echo "$PATCH built at $(el) s, K=$K"
for i in $(seq 0 $((RUNS - 1))); do
    [ $(el) -lt "$SECONDS_MAX" ] || { echo "time up before run $i"; break; }
    if [ $K = 8 ]; then touch=$((i % 2)); off=$(( (i / 2) % K )); else touch=0; off=$((i % K)); fi
    ( cd $W && ZCAP_PREFAULT_TOUCH=$touch ZT_ABL_OFFSET=$off LD_LIBRARY_PATH=$B ZLUDA_LOG_DIR=$W/cap ZLUDA_CAPTURE_MODULES=0 \
      ZLUDA_CAPTURE_RANGE=profiler timeout 60 taskset -c $PIN python3 $HERE/torch_blocks.py 2420 25 > $W/o.txt 2> $W/e.txt )
    echo "run $i touch $touch offset $off rc $? at $(el) s"
    grep "^ABL " $W/e.txt | sed "s/^/run $i touch $touch: /"
    grep -v "^ABL " $W/e.txt | tail -3
    grep "^ABLSTEPS " $W/o.txt | sed "s/^ABLSTEPS /{\"run\": $i, \"touch\": $touch, \"data\": /; s/\$/}/" >> $OUT/steps.jsonl
    rm -rf $W/cap
done
echo "done at $(el) s"

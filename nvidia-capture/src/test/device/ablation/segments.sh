#!/bin/bash
# Where a recorded call's time goes inside a PyTorch training step, segment by segment, on a machine
# with an NVIDIA GPU (docs/benchmarks.md, "Clock, ticket and cache lines"). Builds the tracer with
# segments.patch (never shipped: six lfence;rdtsc reads per call) and runs
#   bench_calls (the call loop of run-h200.sh), then torch_demo.py (small CNN, 620 steps, blocks of 50
#   in and out of the profiler range) under ZT_SEG_MODE 0 (as shipped), 2 (no locked add for the
#   ticket) and 3 (no clock reads in the writers), ROUNDS processes each, then resnet18-cifar once.
# Each process prints SEG lines at exit: p50/p90 per segment for recorded and not recorded calls.
# Usage, from a directory D as torch-steps.sh wants it (nvidia-capture/src, recorder-native/src/main/c,
# gen/trace_wrappers.c, include/xxhash.h):
#   OUT=/some/dir bash D/nvidia-capture/src/test/device/ablation/segments.sh D [ROUNDS]
set -u
D=$(cd "${1:-.}" && pwd)
ROUNDS=${2:-2}
PIN=${PIN:-2-9}
HERE=$D/nvidia-capture/src/test/device/ablation
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
exec > >(tee $OUT/segments.txt) 2>&1
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
grep -m1 "model name" /proc/cpuinfo; cat /sys/devices/system/clocksource/clocksource0/current_clocksource
B=/tmp/zt-seg; W=/tmp/zt-seg-work; rm -rf $B $W; mkdir -p $B/src/nvidia-capture/src/main/c $B/src/recorder-native/src/main/c $W
make -s -C "$D/nvidia-capture/src/main/c" BUILD=$B/new GEN="$D/gen" REPO="$D" CFLAGS="-O2 -g -std=gnu11 -Wall -I$D/include" 2>&1 | grep -v "^make" | head
cp -r $D/nvidia-capture/src/main/c/tracer $B/src/nvidia-capture/src/main/c/
cp $D/recorder-native/src/main/c/zcap.[ch] $B/src/recorder-native/src/main/c/
( cd $B/src && patch -s -p1 < $HERE/segments.patch ) || exit 1
S=$B/src/nvidia-capture/src/main/c/tracer
mkdir -p $B/seg
gcc -O2 -g -std=gnu11 -Wno-unused-parameter -fPIC -fvisibility=hidden -DXXH_INLINE_ALL -D_GNU_SOURCE -I$D/include -I$S \
    -I$B/src/recorder-native/src/main/c -shared -Wl,-soname,libcuda.so.1 -o $B/seg/libcuda.so.1 \
    $S/*.c $S/*.S $D/gen/trace_wrappers.c $B/src/recorder-native/src/main/c/zcap.c -ldl -lpthread || exit 1
echo "== bench_calls, mode 0"
ZLUDA_LOG_DIR=$W/b timeout 60 $B/new/test/bench_calls 300000 $B/seg/libcuda.so.1 2>&1 | grep -E "SEG.*(all recorded|empty)|added"
rm -rf $W/b
for r in $(seq 1 "$ROUNDS"); do for m in 0 2 3; do
    echo "== torch_demo small, round $r, mode $m, at $(el) s"
    ( cd $W && ZT_SEG_MODE=$m LD_LIBRARY_PATH=$B/seg ZLUDA_LOG_DIR=$W/t ZLUDA_CAPTURE_MODULES=0 ZLUDA_CAPTURE_RANGE=profiler \
      timeout 60 taskset -c $PIN python3 $D/nvidia-capture/src/test/device/torch_demo.py 620 50 2>&1 | grep -E "torch_demo|SEG" )
    rm -rf $W/t
done; done
echo "== torch_demo resnet18-cifar, mode 0, at $(el) s"
( cd $W && TORCH_DEMO_MODEL=resnet18-cifar LD_LIBRARY_PATH=$B/seg ZLUDA_LOG_DIR=$W/t ZLUDA_CAPTURE_MODULES=0 ZLUDA_CAPTURE_RANGE=profiler \
  timeout 90 taskset -c $PIN python3 $D/nvidia-capture/src/test/device/torch_demo.py 420 50 2>&1 | grep -E "torch_demo|SEG" )
echo "done at $(el) s"

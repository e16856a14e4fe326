#!/bin/bash
# The PyTorch training step time under the tracer, by variant, on a machine with an NVIDIA GPU:
#   untraced      NVIDIA's driver alone
#   passthrough   the tracer in front of it, recording nothing (its capture directory cannot be made)
#   no-export     the tracer recording calls, export tables not wrapped (ZLUDA_TRACE_EXPORT_TABLES=0)
#   traced        the tracer as `zluda run --nvidia-trace` uses it (level calls, modules not stored)
#   range         the same with ZLUDA_CAPTURE_RANGE=profiler: torch_demo.py's steps alternate, in blocks
#                 of BLOCK, between recorded (inside torch.cuda.profiler.start/stop) and not recorded,
#                 in one process: the ratio of the two medians is free of the differences between
#                 processes (which core, which memory), which are larger than the tracer's cost
# Each variant runs torch_demo.py STEPS BLOCK in a fresh process (every variant makes the same
# profiler calls), ROUNDS rounds, the order of the variants rotated every round, pinned to the cores
# PIN names (taskset; default 2-9); prints one line per run and the medians per variant, with the
# ratio to untraced.
#
# Usage, from a directory D holding nvidia-capture/src, recorder-native/src/main/c,
# gen/trace_wrappers.c (TracerGenerator's output) and include/xxhash.h:
#   OUT=/some/dir bash D/nvidia-capture/src/test/device/torch-steps.sh D [STEPS [ROUNDS [TRACERS...]]]
# (BLOCK=50 by default; VARIANTS="untraced traced range" by default, the others by name)
# TRACERS: extra tracer source trees (directories with tracer/ and zcap/), each built and run as a
# further variant named after its directory, to compare a change with the committed tracer.
set -u
D=$(cd "${1:-.}" && pwd)
STEPS=${2:-300}
ROUNDS=${3:-5}
BLOCK=${BLOCK:-50}
PIN=${PIN:-2-9}
shift 3 2>/dev/null || shift $#
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
exec > >(tee -a "$OUT/steps.txt") 2>&1
B=/tmp/zt-steps; W=/tmp/zt-steps-work
rm -rf $B $W; mkdir -p $B $W
nvidia-smi -L; grep -m1 "model name" /proc/cpuinfo; nproc
python3 -c "import torch; print('torch', torch.__version__, 'cuda', torch.version.cuda)" 2>&1 | tail -1
make -s -C "$D/nvidia-capture/src/main/c" BUILD=$B GEN="$D/gen" REPO="$D" CFLAGS="-O2 -g -std=gnu11 -Wall -I$D/include" 2>&1 | grep -v "^make" | head -20
ls $B/trace/libcuda.so.1 || exit 1
VARIANTS=${VARIANTS:-untraced traced range}
for t in "$@"; do
    name=$(basename "$t")
    mkdir -p $B/$name/trace
    gcc -O2 -g -std=gnu11 -Wno-unused-parameter -fPIC -fvisibility=hidden -DXXH_INLINE_ALL -D_GNU_SOURCE -I$D/include \
        -I"$t/tracer" -I"$t/zcap" -shared -Wl,-soname,libcuda.so.1 -o $B/$name/trace/libcuda.so.1 \
        "$t"/tracer/*.c "$t"/tracer/*.S "$D/gen/trace_wrappers.c" "$t/zcap/zcap.c" -ldl -lpthread && VARIANTS="$VARIANTS $name"
done
run() {
    local v=$1 lib=$B/trace
    local demo="taskset -c $PIN python3 $D/nvidia-capture/src/test/device/torch_demo.py $STEPS $BLOCK"
    case $v in
    untraced) env -u LD_LIBRARY_PATH $demo ;;
    passthrough) LD_LIBRARY_PATH=$lib ZLUDA_LOG_DIR=/proc/zluda-no-capture $demo ;;
    no-export) LD_LIBRARY_PATH=$lib ZLUDA_LOG_DIR=$W/$v ZLUDA_CAPTURE_MODULES=0 ZLUDA_TRACE_EXPORT_TABLES=0 $demo ;;
    traced) LD_LIBRARY_PATH=$lib ZLUDA_LOG_DIR=$W/$v ZLUDA_CAPTURE_MODULES=0 $demo ;;
    range) LD_LIBRARY_PATH=$lib ZLUDA_LOG_DIR=$W/$v ZLUDA_CAPTURE_MODULES=0 ZLUDA_CAPTURE_RANGE=profiler $demo ;;
    *) LD_LIBRARY_PATH=$B/$v/trace ZLUDA_LOG_DIR=$W/$v ZLUDA_CAPTURE_MODULES=0 $demo ;;
    esac 2>&1 | grep -v "ZLUDA_TRACE.*cannot create"
}
set -- $VARIANTS
n=$#
for r in $(seq 1 "$ROUNDS"); do
    for k in $(seq 0 $((n - 1))); do
        idx=$(( (k + r - 1) % n + 1 ))
        v=${!idx}
        line=$(cd $W && run "$v" | grep torch_demo)
        echo "round $r $v: $line"
    done
done | tee $W/runs.txt
echo
echo "variant            runs  median step (us)  ratio  median CPU/step (us)  ratio   (medians over the runs)"
python3 - "$W/runs.txt" $VARIANTS <<'EOF'
import re, statistics, sys
runs = {}
for line in open(sys.argv[1]):
    m = re.match(r"round \d+ (\S+): .*median step ([\d.]+) us .*cpu ([\d.]+) us", line)
    if m:
        runs.setdefault(m.group(1), []).append((float(m.group(2)), float(m.group(3))))
base = runs.get("untraced")
for v in sys.argv[2:]:
    r = runs.get(v)
    if not r:
        print(f"{v:18s} no runs"); continue
    wall = statistics.median(x for x, _ in r); cpu = statistics.median(y for _, y in r)
    bw = statistics.median(x for x, _ in base) if base else wall
    bc = statistics.median(y for _, y in base) if base else cpu
    print(f"{v:18s} {len(r):4d}  {wall:16.1f}  {wall / bw:5.3f}  {cpu:20.1f}  {cpu / bc:5.3f}")
pairs = {}
for line in open(sys.argv[1]):
    m = re.match(r"round \d+ (\S+): .*in profiler range ([\d.]+) us, outside ([\d.]+) us", line)
    if m:
        pairs.setdefault(m.group(1), []).append(float(m.group(2)) / float(m.group(3)))
print()
for v, r in pairs.items():
    print(f"{v:18s} steps inside / outside the profiler range, per process: " + " ".join(f"{x:.3f}" for x in r)
          + f"; median {statistics.median(r):.3f}")
EOF
for v in traced range no-export; do
    cap=$(ls -d $W/$v/*/ 2>/dev/null | head -1)
    [ -n "$cap" ] && { echo "== $v: $cap"; python3 "$D/nvidia-capture/src/test/device/capture_counts.py" --durations "$cap" 2>/dev/null | head -14; }
done

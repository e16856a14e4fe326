#!/bin/bash
# The tracer's evidence on a machine with an NVIDIA GPU (no Java needed): builds the tracer, its
# benchmark, the samples, a cudart program and a CUPTI call counter there, then
#   1. bench_calls: cheap calls untraced and traced in the same process (and with the TSC clock or
#      the prefaulting turned off, to see what each is worth);
#   2. traces the nvcc-built cudart program (static and shared cudart), a driver-API sample, a CuPy
#      program and a PyTorch program, each with cupti_counter.so counting the driver calls of the
#      same run, and compares the counts per function (capture_counts.py);
#   3. kernel snapshots of vectorAdd on the GPU, checked (c == a + b in the after images);
#   4. the PyTorch training step time untraced and traced.
# Writes results.txt and captures.tar.xz to $OUT.
#
# Usage, from a directory D holding nvidia-capture/src, recorder-native/src/main/c,
# samples/src/main/{c,ptx}, gen/trace_wrappers.c (TracerGenerator's output) and include/xxhash.h:
#   OUT=/some/dir bash D/nvidia-capture/src/test/device/run-h200.sh D
# ONLY="kernels steps" runs just those parts (names: bench, programs, kernels, python, steps).
set -u
want() { [ -z "${ONLY:-}" ] || [[ " $ONLY " == *" $1 "* ]]; }
D=$(cd "${1:-.}" && pwd)
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
exec > >(tee "$OUT/results.txt") 2>&1
B=/tmp/zt-build; S=/tmp/zt-samples; C=/tmp/zt-caps; W=/tmp/zt-work
rm -rf $B $S $C $W; mkdir -p $B $S $C $W
CUDA=${CUDA_HOME:-/usr/local/cuda}
T0=$(date +%s)
step() { echo; echo "=== [$(( $(date +%s) - T0 )) s] $*"; }
left() { [ $(( $(date +%s) - T0 )) -lt "$1" ]; }

step "machine"
nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader
uname -r; grep -m1 "model name" /proc/cpuinfo; grep -o -w -m1 "constant_tsc\|nonstop_tsc" /proc/cpuinfo | sort -u | tr '\n' ' '; echo
python3 -c "import torch; print('torch', torch.__version__, 'cuda', torch.version.cuda)" 2>&1 | tail -1
python3 -c "import cupy; print('cupy', cupy.__version__)" 2>&1 | tail -1

step "build"
make -s -C "$D/nvidia-capture/src/main/c" BUILD=$B GEN="$D/gen" REPO="$D" CFLAGS="-O2 -g -std=gnu11 -Wall -I$D/include" 2>&1 | grep -v "^make" | head -20
make -s -C "$D/samples/src/main/c" BUILD=$S 2>&1 | grep -iv "^make\|^cc\|^gcc" | head -5
$CUDA/bin/nvcc -O2 -o $B/cudart_demo "$D/nvidia-capture/src/test/device/cudart_demo.cu"
$CUDA/bin/nvcc -O2 -cudart shared -o $B/cudart_demo_shared "$D/nvidia-capture/src/test/device/cudart_demo.cu"
CUPTI_LIB=""
for d in $CUDA/lib64 $CUDA/extras/CUPTI/lib64 $CUDA/targets/x86_64-linux/lib $CUDA/lib; do
    [ -e "$d/libcupti.so" ] && { CUPTI_LIB=$d; break; }
done
CUPTI_INC=$CUDA/include; [ -e $CUDA/extras/CUPTI/include/cupti.h ] && CUPTI_INC=$CUDA/extras/CUPTI/include
gcc -O2 -shared -fPIC -I$CUPTI_INC "$D/nvidia-capture/src/test/device/cupti_counter.c" -L$CUPTI_LIB -lcupti -Wl,-rpath,$CUPTI_LIB -o $B/cupti_counter.so \
    && echo "cupti_counter.so built against $CUPTI_LIB"
ls $B/trace/libcuda.so.1 $B/test/bench_calls $S/bin/vectorAdd $B/cudart_demo || exit 1
CC="python3 $D/nvidia-capture/src/test/device/capture_counts.py"

if want bench; then
step "1. overhead: bench_calls, untraced and traced in the same process (level calls, capture on /tmp)"
$B/test/md2_test | tail -1
ZLUDA_LOG_DIR=$W/bench timeout 120 $B/test/bench_calls 1000000 $B/trace/libcuda.so.1
step "1b. the same with the TSC clock off (ZCAP_CLOCK=monotonic) and with prefaulting off (ZCAP_PREFAULT=0)"
ZCAP_CLOCK=monotonic ZLUDA_LOG_DIR=$W/bench timeout 60 $B/test/bench_calls 300000 $B/trace/libcuda.so.1 | tail -3
ZCAP_PREFAULT=0 ZLUDA_LOG_DIR=$W/bench timeout 60 $B/test/bench_calls 300000 $B/trace/libcuda.so.1 | tail -3
ZCAP_CLOCK=monotonic ZCAP_PREFAULT=0 ZLUDA_LOG_DIR=$W/bench timeout 60 $B/test/bench_calls 300000 $B/trace/libcuda.so.1 | tail -3
rm -rf $W/bench
fi

# trace APP...: runs it through the tracer with the CUPTI counter; NAME is the capture directory's name
trace() {
    local name=$1; shift
    echo "\$ $*"
    ( cd $W && env LD_LIBRARY_PATH=$B/trace:$CUPTI_LIB${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} ZLUDA_LOG_DIR=$C/$name \
        CUDA_INJECTION64_PATH=$B/cupti_counter.so CUPTI_COUNTS_OUT=$C/$name.cupti.tsv timeout 180 "$@" )
    echo "exit code $?"
    local cap; cap=$(ls -d $C/$name/*/ 2>/dev/null | head -1)
    [ -n "$cap" ] || { echo "no capture"; return; }
    du -sh "$cap" | cut -f1 | sed 's/^/capture size: /'
    if [ -s $C/$name.cupti.tsv ]; then $CC "$cap" $C/$name.cupti.tsv; cp $C/$name.cupti.tsv "$cap/cupti_counts.tsv"; else $CC "$cap" | head -30; echo "(no CUPTI counts)"; fi
}

if want programs; then
step "2a. cudart program, static cudart (export tables wrapped, integrity check recomputed)"
trace cudart_demo $B/cudart_demo 4096
step "2b. cudart program, shared cudart"
trace cudart_demo_shared $B/cudart_demo_shared 4096
step "2c. driver-API sample vectorAdd"
trace vectorAdd $S/bin/vectorAdd 4096
fi

if want kernels; then
step "3. kernel snapshots (ZLUDA_CAPTURE_KERNELS=vectorAdd) of the driver-API sample and the cudart program"
( cd $W && LD_LIBRARY_PATH=$B/trace ZLUDA_LOG_DIR=$C/kernels ZLUDA_CAPTURE_KERNELS=vectorAdd timeout 60 $S/bin/vectorAdd 4096; echo "exit code $?" )
( cd $W && LD_LIBRARY_PATH=$B/trace ZLUDA_LOG_DIR=$C/kernels ZLUDA_CAPTURE_KERNELS=vectorAdd timeout 60 $B/cudart_demo 4096; echo "exit code $?" )
for cap in $C/kernels/*/; do echo "$cap"; $CC --kernels "$cap"; done
fi

if want python; then
step "2d. CuPy"
left 330 && trace cupy python3 "$D/nvidia-capture/src/test/device/cupy_demo.py"
step "2e. PyTorch: matmul, convolution, 30 training steps of a small CNN (module images not stored: ZLUDA_CAPTURE_MODULES=0)"
left 360 && trace torch env ZLUDA_CAPTURE_MODULES=0 python3 "$D/nvidia-capture/src/test/device/torch_demo.py" 30
fi

if want steps; then
step "4. PyTorch training step time, untraced and traced alternately, 3 times (300 steps each; median of steps 21-300)"
if left 430; then
    for i in 1 2 3; do
        ( cd $W && timeout 90 python3 "$D/nvidia-capture/src/test/device/torch_demo.py" 300 | sed 's/^/untraced: /' )
        ( cd $W && LD_LIBRARY_PATH=$B/trace ZLUDA_LOG_DIR=$W/steps ZLUDA_CAPTURE_MODULES=0 timeout 90 python3 "$D/nvidia-capture/src/test/device/torch_demo.py" 300 | sed 's/^/traced:   /' )
    done
    cap=$(ls -d $W/steps/*/ | head -1)
    du -sh "$cap"; $CC --durations "$cap" | head -12
fi
fi

step "pack"
# small captures whole; of larger ones (module images of cuBLAS/cuDNN) only the manifest and the counts
cd $C
: > $W/list
for cap in */*/; do
    kb=$(du -sk "$cap" | cut -f1)
    if [ "$kb" -lt 20000 ]; then echo "$cap" >> $W/list; else echo "$cap: ${kb} KiB, only manifest.json and counts packed"; ls "$cap"manifest.json "$cap"cupti_counts.tsv 2>/dev/null >> $W/list; fi
done
ls *.tsv >> $W/list 2>/dev/null
tar -cJf $OUT/captures.tar.xz -T $W/list; ls -la $OUT
step "done"

#!/bin/bash
# llama.cpp's CUDA backend on an NVIDIA H200, in one go (no Java needed there):
#   1. builds test-backend-ops and llama-simple with build-llama.sh and packs BUILD/bin into
#      llama-bin.tar.xz (split into parts of 15 MiB: llama-bin.tar.xz.part-aa, -ab, ...), the binaries
#      zluda's driver then runs unchanged;
#   2. test-backend-ops (mode test) on CUDA0, every case's verdict into backend-ops-h200.txt.xz
#      (OPS: only these operations, each with -o), leaving RESERVE seconds (default 90) for step 3;
#   3. llama-simple on the tiny random model (make-tiny-model.py), greedy, fixed prompt: untraced
#      (tokens and tokens/s), then recorded by zluda's NVIDIA tracer at level calls: 4 tokens with
#      snapshots of the rms_norm kernels with GGML_CUDA_PDL=0 (on compute capability >= 9.0 llama.cpp
#      launches through cuLaunchKernelEx with programmatic dependent launch, on zluda (8.6) through
#      cuLaunchKernel), the same with llama.cpp's default (cuLaunchKernelEx, which the diff pairs with
#      zluda's cuLaunchKernel), and the whole run without kernel snapshots (GGML_CUDA_PDL=0);
#   0. first, when D/conf/ exists (exp.tar.gz, conformance_harness.c, record-h200.sh of zluda-runtime's
#      conformance suite): records the conformance export on this GPU (results in misc.tar.xz, conf/).
# Everything but results.txt, backend-ops-h200.txt.xz and the binaries' parts is in misc.tar.xz
# (build.log, captures, conformance results), to stay within 8 files.
# Usage: OUT=/some/dir bash D/h200.sh D
# where D holds: llama-src.tar.xz (export-source.sh's output), build-llama.sh, glibc-compat.c,
# tiny.gguf, and trace/ (dist/lib/trace: the tracer libcuda.so.1 and the library tracers).
# Stops starting new steps when DEADLINE seconds (default 575) are near, so that what was made is
# always packed. Environment: BUILD_DEADLINE (seconds after the start by which the build must end,
# default 470), GGML_CUDA_FA (ON/OFF, default ON), GGML_CUDA_GRAPHS (ON/OFF, default ON), CUDA_ARCHS
# (default "86-virtual;90-real"), OPS (space-separated operation names; default: every operation).
set -u
D=$(cd "${1:?usage: h200.sh D}" && pwd)
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
exec > >(tee "$OUT/results.txt") 2>&1
T0=$(date +%s)
W=/tmp/llama-work; rm -rf $W; mkdir -p $W/caps
DEADLINE=${DEADLINE:-575}
RESERVE=${RESERVE:-90}
step() { echo; echo "=== [$(( $(date +%s) - T0 )) s] $*"; }
left() { echo $(( DEADLINE - ($(date +%s) - T0) )); }
cap() { local l=$(( $(left) - 20 )); echo $(( l < $1 ? l : $1 )); }   # a step's time limit: at most $1 s, ending 20 s before DEADLINE
PROMPT="The capital of France is"

step "machine"
nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader
grep -m1 "model name" /proc/cpuinfo; nproc; ldd --version | head -1; gcc --version | head -1
cmake --version | head -1; ninja --version; /usr/local/cuda/bin/nvcc --version | tail -1
ls /usr/local/cuda/lib64/libcublas.so* 2>&1 | head -3

if [ -d "$D/conf" ]; then
    step "0. conformance recording (zluda-runtime's record-h200.sh)"
    mkdir -p $W/misc/conf
    ( cd "$D/conf" && OUT=$W/misc/conf timeout 120 bash record-h200.sh; echo "exit code $?" )
    tail -3 $W/misc/conf/harness.txt; cat $W/misc/conf/smi.txt
fi

step "source"
mkdir -p $W/src && tar -xJf "$D/llama-src.tar.xz" -C $W/src && cat $W/src/COMMIT 2>/dev/null

step "1. build (deadline $((${BUILD_DEADLINE:-470})) s after the start)"
B=$W/build
budget=$(( ${BUILD_DEADLINE:-470} - ($(date +%s) - T0) ))
CUDA_ARCHS=${CUDA_ARCHS:-86-virtual;90-real} GGML_CUDA_FA=${GGML_CUDA_FA:-ON} GGML_CUDA_GRAPHS=${GGML_CUDA_GRAPHS:-ON} NVCC_FLAGS=--threads=2 \
    timeout "$budget" bash "$D/build-llama.sh" $W/src $B > $W/build.log 2>&1
rc=$?
echo "build exit $rc after $(( $(date +%s) - T0 )) s"
grep -E "patched|cuBLAS from|Using CMAKE_CUDA_ARCH|error|Error" $W/build.log | head -20
sed -n '/^== built/,$p' $W/build.log
tail -5 $W/build.log
mkdir -p $W/misc && cp $W/build.log $W/misc/
if [ -x $B/bin/test-backend-ops ] || [ -x $B/bin/llama-simple ]; then
    ( cd $B/bin && tar -cf - --exclude='*.a' . ) | xz -T0 -6 > $W/llama-bin.tar.xz
    ls -la $W/llama-bin.tar.xz
    split -b 15M -a 2 $W/llama-bin.tar.xz "$OUT/llama-bin.tar.xz.part-"
    sha256sum $W/llama-bin.tar.xz
fi
[ -x $B/bin/llama-simple ] && [ -x $B/bin/test-backend-ops ] || { step "no binaries: stopping"; ls -la "$OUT"; exit 1; }

step "2. test-backend-ops -b CUDA0 (mode test) ${OPS:-every operation}, $(( $(left) - RESERVE )) s at most"
if [ -n "${OPS:-}" ]; then
    : > $W/backend-ops-h200.txt
    for op in $OPS; do
        [ "$(left)" -gt $(( RESERVE + 15 )) ] || { echo "no time left for $op"; break; }
        ( cd $W && timeout $(( $(left) - RESERVE )) $B/bin/test-backend-ops test -b CUDA0 -j 8 -o "$op" >> $W/backend-ops-h200.txt 2>&1; echo "$op: exit code $?" )
    done
else
    ( cd $W && timeout $(( $(left) - RESERVE )) $B/bin/test-backend-ops test -b CUDA0 -j 8 > $W/backend-ops-h200.txt 2>&1; echo "exit code $?" )
fi
echo "OK: $(grep -c "mOK" $W/backend-ops-h200.txt)  FAIL: $(grep -c "mFAIL" $W/backend-ops-h200.txt)  not supported: $(grep -c "not supported" $W/backend-ops-h200.txt)"
tail -5 $W/backend-ops-h200.txt
xz -T0 -c $W/backend-ops-h200.txt > "$OUT/backend-ops-h200.txt.xz"

step "3. llama-simple, tiny random model, greedy, -n 32: untraced"
cp "$D/tiny.gguf" $W/tiny.gguf; sha256sum $W/tiny.gguf
( cd $W && timeout $(cap 60) $B/bin/llama-simple -m $W/tiny.gguf -n 32 -ngl 99 "$PROMPT" > $W/simple-h200.out 2> $W/simple-h200.err; echo "exit code $?" )
cat $W/simple-h200.out; echo; grep -E "eval time|decoded|speed|compute buffer|CUDA0" $W/simple-h200.err | head -20
cp $W/simple-h200.out $W/simple-h200.err $W/caps/

step "3b. recorded with kernel snapshots of rms_norm (4 tokens)"
[ "$(left)" -gt 40 ] && ( cd $W && GGML_CUDA_PDL=0 LD_LIBRARY_PATH="$D/trace" ZLUDA_LOG_DIR=$W/caps/simple-kernels ZLUDA_CAPTURE_LEVEL=calls ZLUDA_CAPTURE_MODULES=0 \
    ZLUDA_CAPTURE_KERNELS=rms_norm ZLUDA_CAPTURE_KERNELS_MAX_BYTES=$((64 << 20)) \
    timeout $(cap 90) $B/bin/llama-simple -m $W/tiny.gguf -n 4 -ngl 99 "$PROMPT" > $W/caps/simple-kernels.out 2> $W/caps/simple-kernels.err; echo "exit code $?" )
cat $W/caps/simple-kernels.out; echo; du -sh $W/caps/simple-kernels/* 2>/dev/null

step "3c. recorded with kernel snapshots of rms_norm (4 tokens), programmatic dependent launch as llama.cpp defaults"
[ "$(left)" -gt 40 ] && ( cd $W && LD_LIBRARY_PATH="$D/trace" ZLUDA_LOG_DIR=$W/caps/simple-kernels-pdl ZLUDA_CAPTURE_LEVEL=calls ZLUDA_CAPTURE_MODULES=0 \
    ZLUDA_CAPTURE_KERNELS=rms_norm ZLUDA_CAPTURE_KERNELS_MAX_BYTES=$((64 << 20)) \
    timeout $(cap 90) $B/bin/llama-simple -m $W/tiny.gguf -n 4 -ngl 99 "$PROMPT" > $W/caps/simple-kernels-pdl.out 2> $W/caps/simple-kernels-pdl.err; echo "exit code $?" )
cat $W/caps/simple-kernels-pdl.out; echo; du -sh $W/caps/simple-kernels-pdl/* 2>/dev/null

step "3d. recorded by the NVIDIA tracer at level calls (no kernel snapshots, module images not stored)"
[ "$(left)" -gt 40 ] && ( cd $W && GGML_CUDA_PDL=0 LD_LIBRARY_PATH="$D/trace" ZLUDA_LOG_DIR=$W/caps/simple-calls ZLUDA_CAPTURE_LEVEL=calls ZLUDA_CAPTURE_MODULES=0 \
    timeout $(cap 90) $B/bin/llama-simple -m $W/tiny.gguf -n 32 -ngl 99 "$PROMPT" > $W/caps/simple-calls.out 2> $W/caps/simple-calls.err; echo "exit code $?" )
cat $W/caps/simple-calls.out; echo; du -sh $W/caps/simple-calls/* 2>/dev/null

step "pack"
cp -r $W/caps $W/misc/captures
( cd $W/misc && tar -cJf "$OUT/misc.tar.xz" . )
ls -la "$OUT"
step "done"

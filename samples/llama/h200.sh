#!/bin/bash
# llama.cpp's CUDA backend on an NVIDIA H200, in one go (no Java needed there):
#   1. builds test-backend-ops and llama-simple with build-llama.sh and packs BUILD/bin into
#      llama-bin.tar.xz (split into parts of 15 MiB: llama-bin.tar.xz.part-aa, -ab, ...), the binaries
#      zluda's driver then runs unchanged;
#   2. llama-simple on the tiny random model (make-tiny-model.py), greedy, fixed prompt: untraced
#      (tokens and tokens/s), then recorded by zluda's NVIDIA tracer (level calls; once the whole
#      run without kernel snapshots, once 4 tokens with snapshots of the rms_norm kernels), the
#      recorded runs with GGML_CUDA_PDL=0: on compute capability >= 9.0 llama.cpp launches through
#      cuLaunchKernelEx with programmatic dependent launch, on zluda (8.6) through cuLaunchKernel, and
#      zluda diff pairs launches (and so kernel snapshots) only of the same function;
#   3. test-backend-ops (mode test) on CUDA0, every case's verdict into backend-ops-h200.txt.xz.
# Usage: OUT=/some/dir bash D/h200.sh D
# where D holds: llama-src.tar.xz (export-source.sh's output), build-llama.sh, glibc-compat.c,
# tiny.gguf, and trace/ (dist/lib/trace: the tracer libcuda.so.1 and the library tracers).
# Stops starting new steps when DEADLINE seconds (default 575) are near, so that what was made is
# always packed. Environment: BUILD_DEADLINE (seconds after the start by which the build must end,
# default 470), GGML_CUDA_FA (ON/OFF, default OFF), CUDA_ARCHS (default "86-virtual;90-real").
set -u
D=$(cd "${1:?usage: h200.sh D}" && pwd)
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
exec > >(tee "$OUT/results.txt") 2>&1
T0=$(date +%s)
W=/tmp/llama-work; rm -rf $W; mkdir -p $W/caps
DEADLINE=${DEADLINE:-575}
step() { echo; echo "=== [$(( $(date +%s) - T0 )) s] $*"; }
left() { echo $(( DEADLINE - ($(date +%s) - T0) )); }
PROMPT="The capital of France is"

step "machine"
nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader
grep -m1 "model name" /proc/cpuinfo; nproc; ldd --version | head -1; gcc --version | head -1
cmake --version | head -1; ninja --version; /usr/local/cuda/bin/nvcc --version | tail -1
ls /usr/local/cuda/lib64/libcublas.so* 2>&1 | head -3

step "source"
mkdir -p $W/src && tar -xJf "$D/llama-src.tar.xz" -C $W/src && cat $W/src/COMMIT 2>/dev/null

step "1. build (deadline $((${BUILD_DEADLINE:-470})) s after the start)"
B=$W/build
budget=$(( ${BUILD_DEADLINE:-470} - ($(date +%s) - T0) ))
CUDA_ARCHS=${CUDA_ARCHS:-86-virtual;90-real} GGML_CUDA_FA=${GGML_CUDA_FA:-OFF} NVCC_FLAGS=--threads=2 \
    timeout "$budget" bash "$D/build-llama.sh" $W/src $B > $W/build.log 2>&1
rc=$?
echo "build exit $rc after $(( $(date +%s) - T0 )) s"
grep -E "patched|cuBLAS from|Using CMAKE_CUDA_ARCH|error|Error" $W/build.log | head -20
sed -n '/^== built/,$p' $W/build.log
tail -5 $W/build.log
xz -T0 -c $W/build.log > "$OUT/build.log.xz"
if [ -x $B/bin/test-backend-ops ] || [ -x $B/bin/llama-simple ]; then
    ( cd $B/bin && tar -cf - --exclude='*.a' . ) | xz -T0 -6 > $W/llama-bin.tar.xz
    ls -la $W/llama-bin.tar.xz
    split -b 15M -a 2 $W/llama-bin.tar.xz "$OUT/llama-bin.tar.xz.part-"
    sha256sum $W/llama-bin.tar.xz
fi
[ -x $B/bin/llama-simple ] && [ -x $B/bin/test-backend-ops ] || { step "no binaries: stopping"; ls -la "$OUT"; exit 1; }

step "2. llama-simple, tiny random model, greedy, -n 32: untraced"
cp "$D/tiny.gguf" $W/tiny.gguf; sha256sum $W/tiny.gguf
( cd $W && timeout 60 $B/bin/llama-simple -m $W/tiny.gguf -n 32 -ngl 99 "$PROMPT" > $W/simple-h200.out 2> $W/simple-h200.err; echo "exit code $?" )
cat $W/simple-h200.out; echo; grep -E "eval time|decoded|speed|compute buffer|CUDA0" $W/simple-h200.err | head -20
cp $W/simple-h200.out $W/simple-h200.err $W/caps/

step "2b. recorded by the NVIDIA tracer at level calls (no kernel snapshots, module images not stored)"
( cd $W && GGML_CUDA_PDL=0 LD_LIBRARY_PATH="$D/trace" ZLUDA_LOG_DIR=$W/caps/simple-calls ZLUDA_CAPTURE_LEVEL=calls ZLUDA_CAPTURE_MODULES=0 \
    timeout 90 $B/bin/llama-simple -m $W/tiny.gguf -n 32 -ngl 99 "$PROMPT" > $W/caps/simple-calls.out 2> $W/caps/simple-calls.err; echo "exit code $?" )
cat $W/caps/simple-calls.out; echo; du -sh $W/caps/simple-calls/* 2>/dev/null

step "2c. recorded with kernel snapshots of rms_norm (4 tokens)"
( cd $W && GGML_CUDA_PDL=0 LD_LIBRARY_PATH="$D/trace" ZLUDA_LOG_DIR=$W/caps/simple-kernels ZLUDA_CAPTURE_LEVEL=calls ZLUDA_CAPTURE_MODULES=0 \
    ZLUDA_CAPTURE_KERNELS=rms_norm ZLUDA_CAPTURE_KERNELS_MAX_BYTES=$((64 << 20)) \
    timeout 90 $B/bin/llama-simple -m $W/tiny.gguf -n 4 -ngl 99 "$PROMPT" > $W/caps/simple-kernels.out 2> $W/caps/simple-kernels.err; echo "exit code $?" )
cat $W/caps/simple-kernels.out; echo; du -sh $W/caps/simple-kernels/* 2>/dev/null

step "3. test-backend-ops -b CUDA0 (mode test), $(( $(left) - 25 )) s at most"
( cd $W && timeout $(( $(left) - 25 )) $B/bin/test-backend-ops test -b CUDA0 -j 8 > $W/backend-ops-h200.txt 2>&1; echo "exit code $?" )
echo "OK: $(grep -c "mOK" $W/backend-ops-h200.txt)  FAIL: $(grep -c "mFAIL" $W/backend-ops-h200.txt)  not supported: $(grep -c "not supported" $W/backend-ops-h200.txt)"
tail -5 $W/backend-ops-h200.txt
xz -T0 -c $W/backend-ops-h200.txt > "$OUT/backend-ops-h200.txt.xz"

step "pack"
( cd $W/caps && tar -cJf "$OUT/captures.tar.xz" . )
ls -la "$OUT"
step "done"

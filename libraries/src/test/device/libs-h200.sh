#!/bin/bash
# The libraries' evidence on a machine with an NVIDIA GPU (no Java needed there), from the repository
# root with the built binaries in .device/libs (made by tools/device-libs.sh: the tracers of
# dist/lib/trace, zluda's libcublas/libcublasLt of dist/lib and blas_test):
#   1. blas_test on NVIDIA's cuBLAS (BLAS_TEST_BOUND: within the documented bound of the reference),
#      and on zluda's libraries on NVIDIA's driver (bit for bit): both dumps are the ground truth that
#      libraries/src/test/resources/h200 holds;
#   2. gemm_lt_demo (libraries/src/test/cuda, built here with nvcc) on NVIDIA's libraries, untraced and
#      traced, and on zluda's libraries through the tracers;
#   3. torch_libs.py (matmul, linear+GELU, fp16 matmul, convolution, FFT) with the library tracers;
#   4. blas_test traced on NVIDIA's cuBLAS (if time is left).
# Writes results.txt, the two dumps, gemm_lt_demo and captures.tar.xz to $OUT. Stops starting new
# steps once DEADLINE seconds (default 170) have passed, so that the captures are always packed.
set -u
D=$(pwd)
C=$D/.device/libs
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
exec > >(tee "$OUT/results.txt") 2>&1
W=/tmp/zl-work; CAPS=/tmp/zl-caps
rm -rf $W $CAPS; mkdir -p $W $CAPS
T0=$(date +%s)
step() { echo; echo "=== [$(( $(date +%s) - T0 )) s] $*"; }
left() { [ $(( $(date +%s) - T0 )) -lt $(( ${DEADLINE:-170} - $1 )) ]; }

step "machine"
nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader
# NVIDIA's libraries: the toolkit's (what nvcc-built programs link) and the Python wheels' (what PyTorch loads)
SP=$(python3 -c "import sys; print(' '.join(p for p in sys.path if p.endswith('-packages')))" 2>/dev/null)
declare -A REAL
for so in libcublas.so.13 libcublasLt.so.13 libcudnn.so.9 libcufft.so.12 libcusparse.so.12; do
    f=$(find $SP -path '*nvidia*' -name "$so" 2>/dev/null | head -1)
    [ -n "$f" ] || f=$(find $SP -path '*torch/lib*' -name "$so" 2>/dev/null | head -1)
    REAL[$so]=$f
    echo "wheel $so: ${f:-not found}"
done
NVLIB=$(dirname "$(ls /usr/local/cuda/lib64/libcublas.so.13 /usr/local/cuda/targets/x86_64-linux/lib/libcublas.so.13 2>/dev/null | head -1)" 2>/dev/null)
[ -n "$NVLIB" ] && [ "$NVLIB" != . ] || NVLIB=$(dirname "${REAL[libcublas.so.13]}")
echo "cuBLAS for nvcc-built programs: $NVLIB"
ls -la $NVLIB/libcublas.so.13 $NVLIB/libcublasLt.so.13
B=$C/bin/blas_test

step "1a. blas_test on NVIDIA's cuBLAS (within the bound), dumping the results"
LD_LIBRARY_PATH=$NVLIB BLAS_TEST_BOUND=1 BLAS_TEST_DUMP=$OUT/blas-nvidia-cublas.dump timeout 120 $B | grep -v "^PASS [a-z]"; echo "exit code ${PIPESTATUS[0]}"
step "1b. blas_test on zluda's libcublas/libcublasLt on NVIDIA's driver (bit for bit), dumping the results"
LD_LIBRARY_PATH=$C/zlib BLAS_TEST_ZLUDA=1 BLAS_TEST_DUMP=$OUT/blas-zluda-on-nvidia.dump timeout 120 $B | grep -v "^PASS [a-z]"; echo "exit code ${PIPESTATUS[0]}"
step "1c. NVIDIA's results against the reference (BLAS_TEST_WITHIN), zluda's libraries on NVIDIA's driver"
LD_LIBRARY_PATH=$C/zlib BLAS_TEST_WITHIN=$OUT/blas-nvidia-cublas.dump timeout 60 $B | grep -v "^PASS [a-z]"; echo "exit code ${PIPESTATUS[0]}"

step "2. gemm_lt_demo: nvcc here; NVIDIA's libraries untraced, traced; zluda's libraries traced"
NVCC=$(command -v nvcc || echo ${CUDA_HOME:-/usr/local/cuda}/bin/nvcc)
$NVCC --version | tail -1
timeout 90 $NVCC -O2 -o $W/gemm_lt_demo "$D/libraries/src/test/cuda/gemm_lt_demo.cu" -L$NVLIB -l:libcublasLt.so.13 -l:libcublas.so.13 && cp $W/gemm_lt_demo $OUT/
( cd $W && LD_LIBRARY_PATH=$NVLIB timeout 60 ./gemm_lt_demo; echo "exit code $?" )
( cd $W && LD_LIBRARY_PATH=$C/trace:$NVLIB ZLUDA_LOG_DIR=$CAPS/gemm_lt_demo-nvidia timeout 60 ./gemm_lt_demo; echo "exit code $?" )
( cd $W && LD_LIBRARY_PATH=$C/trace:$C/zlib ZLUDA_LOG_DIR=$CAPS/gemm_lt_demo-zluda-libs-on-nvidia timeout 60 ./gemm_lt_demo; echo "exit code $?" )

step "3. PyTorch with the library tracers (module images not stored: ZLUDA_CAPTURE_MODULES=0)"
# the tracers are preloaded (they come before PyTorch's RUNPATH) and given the wheels' libraries as the
# real ones; a library whose real file was not found is left alone (loaded and not traced)
PRE=""
ENVS=()
for so in libcublas.so.13 libcublasLt.so.13 libcudnn.so.9 libcufft.so.12 libcusparse.so.12; do
    [ -n "${REAL[$so]}" ] || continue
    PRE="$PRE${PRE:+:}$C/trace/$so"
    case $so in
        libcublas.so.13) ENVS+=("ZLUDA_CUBLAS_LIB=${REAL[$so]}");;
        libcublasLt.so.13) ENVS+=("ZLUDA_CUBLASLT_LIB=${REAL[$so]}");;
        libcudnn.so.9) ENVS+=("ZLUDA_CUDNN_LIB=${REAL[$so]}");;
        libcufft.so.12) ENVS+=("ZLUDA_CUFFT_LIB=${REAL[$so]}");;
        libcusparse.so.12) ENVS+=("ZLUDA_CUSPARSE_LIB=${REAL[$so]}");;
    esac
done
echo "LD_PRELOAD=$PRE ${ENVS[*]}"
T4=$(( ${DEADLINE:-170} - ($(date +%s) - T0) - 15 ))
[ $T4 -gt 20 ] && ( cd $W && timeout $T4 env "${ENVS[@]}" LD_PRELOAD=$PRE LD_LIBRARY_PATH=$C/trace ZLUDA_LOG_DIR=$CAPS/torch_libs ZLUDA_CAPTURE_MODULES=0 \
    PYTHONUNBUFFERED=1 python3 "$D/libraries/src/test/device/torch_libs.py"; echo "exit code $?" )
step "4. blas_test traced on NVIDIA's cuBLAS"
left 15 && ( cd $W && LD_LIBRARY_PATH=$C/trace:$NVLIB ZLUDA_LOG_DIR=$CAPS/blas_test-nvidia BLAS_TEST_BOUND=1 timeout 120 $B | tail -1; echo "exit code ${PIPESTATUS[0]}" )

for cap in $CAPS/*/*/; do echo "$cap: $(du -sh "$cap" | cut -f1)"; grep -A8 '"libraries"' "$cap/manifest.json" | head -8; done

step "pack"
cd $CAPS && tar -cJf $OUT/captures.tar.xz . && ls -la $OUT
step "done"

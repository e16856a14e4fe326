#!/bin/bash
# The libraries' evidence on a machine with an NVIDIA GPU (no Java needed there). Usage:
#   OUT=/some/dir bash D/libraries/src/test/device/libs-h200.sh D
# where D holds what tools/device-libs.sh D lays out: libs/trace (the tracers of dist/lib/trace),
# libs/zlib (zluda's libcublas.so.13 and libcublasLt.so.13 of dist/lib), libs/bin/blas_test, and
# copies of the sources it uses (D defaults to .device/libs). Steps (ONLY="..." runs just those; the
# default is all but ptx):
#   ptx       regenerate blas_kernels.ptx with nvcc (libraries/gen-ptx.sh) into $OUT
#   blas      blas_test on NVIDIA's cuBLAS (BLAS_TEST_BOUND: within the documented bound of the
#             reference) and on zluda's libraries on NVIDIA's driver (bit for bit): both dumps are the
#             ground truth that libraries/src/test/resources/h200 holds
#   blasnv    only the first of those (NVIDIA's cuBLAS)
#   blaszl    only the second (zluda's libraries; also those of D/libs/zlib-NAME, another build of
#             them, into blas-zluda-on-nvidia-NAME.dump), and NVIDIA's dump (the one blasnv just wrote,
#             or D/blas-nvidia-cublas.dump) against the reference
#   demo      gemm_lt_demo (built here with nvcc) on NVIDIA's libraries, untraced and traced, and on
#             zluda's libraries through the tracers
#   torch     torch_libs.py (matmul, linear+GELU, fp16 matmul, convolution, FFT) with the library
#             tracers, and CUPTI's count of its driver calls (nvidia-capture's cupti_counter.c, when
#             D/nvidia-capture/src/test/device holds it)
#   blastrace blas_test traced on NVIDIA's cuBLAS
# Writes results.txt, the dumps, gemm_lt_demo and captures.tar.xz to $OUT. Stops starting new steps
# once DEADLINE seconds (default 170) have passed, so that the captures are always packed.
set -u
D=$(cd "${1:-.device/libs}" && pwd)
C=$D/libs
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
exec > >(tee "$OUT/results.txt") 2>&1
W=/tmp/zl-work; CAPS=/tmp/zl-caps
rm -rf $W $CAPS; mkdir -p $W $CAPS
T0=$(date +%s)
step() { echo; echo "=== [$(( $(date +%s) - T0 )) s] $*"; }
left() { [ $(( $(date +%s) - T0 )) -lt $(( ${DEADLINE:-170} - $1 )) ]; }
want() { if [ -n "${ONLY:-}" ]; then [[ " $ONLY " == *" $1 "* ]]; else [ "$1" != ptx ]; fi; }

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
# what NVIDIA's libcublas needs from libcublasLt (the library tracer stands between them)
echo "libcublas.so.13 NEEDs: $(readelf -d $NVLIB/libcublas.so.13 | awk '/NEEDED/ {print $5}' | tr -d '[]' | tr '\n' ' ')"
nm -D --undefined-only $NVLIB/libcublas.so.13 | awk '/@libcublasLt/ {print $2}' > $OUT/libcublas-imports-from-libcublasLt.txt
echo "it imports $(wc -l < $OUT/libcublas-imports-from-libcublasLt.txt) symbols of libcublasLt.so.13 ($OUT/libcublas-imports-from-libcublasLt.txt)"
B=$C/bin/blas_test
NVCC=$(command -v nvcc || echo ${CUDA_HOME:-/usr/local/cuda}/bin/nvcc)

if want ptx; then
    step "ptx: libraries/gen-ptx.sh (and the variant with the epilogue on the unrounded value)"
    NVCC=$NVCC sh "$D/libraries/gen-ptx.sh" && cp "$D/libraries/src/main/ptx/blas_kernels.ptx" $OUT/
    $NVCC -ptx -arch=sm_75 -DZL_EPILOGUE_UNROUNDED -o $OUT/blas_kernels-unrounded.ptx "$D/libraries/src/main/cuda/blas_kernels.cu"
    ls -la $OUT/*.ptx
fi

if want blas || want blasnv; then
    step "1a. blas_test on NVIDIA's cuBLAS (within the bound), dumping the results"
    LD_LIBRARY_PATH=$NVLIB BLAS_TEST_BOUND=1 BLAS_TEST_DUMP=$OUT/blas-nvidia-cublas.dump timeout 120 $B | grep -v "^PASS [a-z]"; echo "exit code ${PIPESTATUS[0]}"
fi
if want blas || want blaszl; then
    # libs/zlib-NAME: another build of zluda's libraries (a variant of the kernels), dumped as blas-zluda-on-nvidia-NAME.dump
    for z in $C/zlib $C/zlib-*; do
        [ -d $z ] || continue
        step "1b. blas_test on zluda's libcublas/libcublasLt ($z) on NVIDIA's driver (bit for bit), dumping the results"
        LD_LIBRARY_PATH=$z BLAS_TEST_ZLUDA=1 BLAS_TEST_DUMP=$OUT/blas-zluda-on-nvidia${z#$C/zlib}.dump timeout 120 $B | grep -v "^PASS [a-z]"; echo "exit code ${PIPESTATUS[0]}"
    done
    NVDUMP=$OUT/blas-nvidia-cublas.dump; [ -s $NVDUMP ] || NVDUMP=$D/blas-nvidia-cublas.dump
    step "1c. NVIDIA's results ($NVDUMP) against the reference (BLAS_TEST_WITHIN), zluda's libraries on NVIDIA's driver"
    [ -s $NVDUMP ] && { LD_LIBRARY_PATH=$C/zlib BLAS_TEST_WITHIN=$NVDUMP timeout 60 $B | grep -v "^PASS [a-z]"; echo "exit code ${PIPESTATUS[0]}"; }
fi

if want demo; then
    step "2. gemm_lt_demo: nvcc here; NVIDIA's libraries untraced, traced; zluda's libraries traced"
    $NVCC --version | tail -1
    timeout 90 $NVCC -O2 -o $W/gemm_lt_demo "$D/libraries/src/test/cuda/gemm_lt_demo.cu" -L$NVLIB -l:libcublasLt.so.13 -l:libcublas.so.13 && cp $W/gemm_lt_demo $OUT/
    ( cd $W && LD_LIBRARY_PATH=$NVLIB timeout 60 ./gemm_lt_demo; echo "exit code $?" )
    # NVIDIA's libraries load hundreds of MB of module images (their fatbins): not stored (ZLUDA_CAPTURE_MODULES=0)
    ( cd $W && LD_LIBRARY_PATH=$C/trace:$NVLIB ZLUDA_LOG_DIR=$CAPS/gemm_lt_demo-nvidia ZLUDA_CAPTURE_MODULES=0 timeout 60 ./gemm_lt_demo; echo "exit code $?" )
    ( cd $W && LD_LIBRARY_PATH=$C/trace:$C/zlib ZLUDA_LOG_DIR=$CAPS/gemm_lt_demo-zluda-libs-on-nvidia timeout 60 ./gemm_lt_demo; echo "exit code $?" )
fi

if want torch && left 30; then
    step "3. PyTorch with the library tracers (module images not stored: ZLUDA_CAPTURE_MODULES=0), CUPTI counting"
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
    CUPTI=()
    CUDA=${CUDA_HOME:-/usr/local/cuda}
    CC_SRC=$D/nvidia-capture/src/test/device
    if [ -f $CC_SRC/cupti_counter.c ]; then
        CUPTI_LIB=""
        for d in $CUDA/lib64 $CUDA/extras/CUPTI/lib64 $CUDA/targets/x86_64-linux/lib; do [ -e "$d/libcupti.so" ] && { CUPTI_LIB=$d; break; }; done
        CUPTI_INC=$CUDA/include; [ -e $CUDA/extras/CUPTI/include/cupti.h ] && CUPTI_INC=$CUDA/extras/CUPTI/include
        gcc -O2 -shared -fPIC -I$CUPTI_INC $CC_SRC/cupti_counter.c -L$CUPTI_LIB -lcupti -Wl,-rpath,$CUPTI_LIB -o $W/cupti_counter.so \
            && CUPTI=(CUDA_INJECTION64_PATH=$W/cupti_counter.so CUPTI_COUNTS_OUT=$CAPS/torch_libs.cupti.tsv) && echo "cupti_counter.so built against $CUPTI_LIB"
    fi
    T4=$(( ${DEADLINE:-170} - ($(date +%s) - T0) - 15 ))
    ( cd $W && timeout $T4 env "${ENVS[@]}" "${CUPTI[@]}" LD_PRELOAD=$PRE LD_LIBRARY_PATH=$C/trace ZLUDA_LOG_DIR=$CAPS/torch_libs ZLUDA_CAPTURE_MODULES=0 \
        PYTHONUNBUFFERED=1 python3 "$D/libraries/src/test/device/torch_libs.py"; echo "exit code $?" )
    [ -f $CC_SRC/capture_counts.py ] && [ -s $CAPS/torch_libs.cupti.tsv ] && python3 $CC_SRC/capture_counts.py $CAPS/torch_libs/*/ $CAPS/torch_libs.cupti.tsv | tail -40
fi

if want blastrace && left 15; then
    step "4. blas_test traced on NVIDIA's cuBLAS"
    ( cd $W && LD_LIBRARY_PATH=$C/trace:$NVLIB ZLUDA_LOG_DIR=$CAPS/blas_test-nvidia ZLUDA_CAPTURE_MODULES=0 BLAS_TEST_BOUND=1 timeout 120 $B | tail -1; echo "exit code ${PIPESTATUS[0]}" )
fi

# a capture over 64 MiB (module images) is packed without its module files; the packing has its own time limit
for cap in $CAPS/*/*/; do
    [ -f "$cap/manifest.json" ] || continue
    echo "$cap: $(du -sh "$cap" | cut -f1)"; grep -A8 '"libraries"' "$cap/manifest.json" | head -8
    [ $(du -sm "$cap" | cut -f1) -gt 64 ] && { echo "  over 64 MiB: its module files are left out"; rm -f "$cap"/module_*; }
done

step "pack"
cd $CAPS && timeout 60 tar -c . | timeout 60 xz -1 -T0 > $OUT/captures.tar.xz; ls -la $OUT
step "done"

#!/bin/bash
# Builds NVIDIA's public cuda-samples with nvcc and runs each on zluda's driver (CPU emulator), writing
# a results table. The cuda-samples source is not part of this repository:
#
#   git clone https://github.com/NVIDIA/cuda-samples /tmp/cuda-samples     (or any export of it)
#   samples/cuda-samples/build-and-run.sh /tmp/cuda-samples [OUT]
#
# cppIntegration was removed from cuda-samples in commit 9d8f614 (Dec 2024); when the checkout
# lacks it, take it from the commit before:
#   git -C /tmp/cuda-samples archive ff264a798f4b3595cfd309e5ce7db10d9ba7f317 \
#       Samples/0_Introduction/cppIntegration | tar -x -C /tmp/cuda-samples
#
# The corpus: every sample of Samples/0_Introduction .. 6_Performance whose CMakeLists links no
# library beyond cudart (no cuBLAS, cuFFT, cuRAND, NPP, nvJPEG, NVRTC, the driver library, OpenGL,
# Vulkan, EGL, MPI or OpenMP); the ones in EXCLUDED below need such a library after all. 7_libNVVM
# needs libNVVM, 8_Platform_Specific a Tegra or Windows.
#
# OUT (default /tmp/cuda-samples-run) receives bin/<sample>, logs/<sample>.{build,run}.txt, run/<sample>/
# (the directory each sample runs in, with the sample's data/ folder when it has one) and results.md:
# one row per sample with the build result, the exit status, the sample's own verdict (the last line
# it prints that says passed/failed/waived/OK/error) and the run time. Each program is compiled
# directly from its .cu/.cpp files with `nvcc -I Common` for compute_75 as PTX (the emulator runs
# PTX; compute_80 where the sample's kernels need it) and for sm_90 as SASS (an H200 runs that one
# without a JIT) and cudart linked statically, then run under
# `zluda run`. The emulator executes about 10^8 thread-instructions per second, so samples whose
# sizes are fixed in the source are built from a copy (OUT/src/<sample>) in which a sed expression
# makes the problem smaller or repeats it fewer times (the PATCH column below; the sample's own check
# is unchanged); samples that take sizes on the command line get small ones. The same binaries run on
# an NVIDIA GPU under the NVIDIA tracer (NVIDIA_TRACER below; h200-corpus.sh does the whole GPU side), and
# diff-pairs.sh compares the two captures.
# The cuBLAS samples (flags @cublas) are compiled against NVIDIA's cublas_v2.h, found in CUBLAS_INCLUDE
# (default $CUDA_HOME/include), and linked against zluda's libcublas.so.13 in dist/lib, which
# `zluda run` puts on the loader's path.
#
# Environment: ZLUDA (default: dist/bin/zluda of this repository), CUDA_HOME (/usr/local/cuda, or
# where the nvcc on PATH lives), TIMEOUT per run in seconds (600), JOBS parallel compilations (2),
# RUNJOBS parallel runs (1), ONLY (space-separated names), GENCODE (nvcc's -gencode options; default
# PTX for compute_75 and SASS for sm_90), KERNELS (a regular expression: with TRACE, kernel snapshots
# of the launches of matching kernels, '.' for all), PRELOAD (a library to preload into each program on
# zluda's driver: glibc-compat.cc, for binaries built on a machine with a newer glibc, see glibc-compat.py),
# PHASE (build, run, all: the default, or table: see below), TRACE (a directory: record each run there, one capture per
# sample, as <dir>/<sample>/), NVIDIA_TRACER (a directory holding the NVIDIA tracer's libcuda.so.1,
# dist/lib/trace: run on NVIDIA's driver through it instead of on zluda's, with TRACE as its
# ZLUDA_LOG_DIR; the run phase then needs neither nvcc nor zluda, only OUT/bin and the checkout's
# data/ folders, so that the binaries built here run unchanged on a GPU machine).
set -uo pipefail
src=${1:?usage: build-and-run.sh CUDA_SAMPLES_CHECKOUT [OUT]}
src=$(cd "$src" && pwd)
out=${2:-/tmp/cuda-samples-run}
mkdir -p "$out" && out=$(cd "$out" && pwd)
repo=$(cd "$(dirname "$0")/../.." && pwd)
zluda=${ZLUDA:-$repo/dist/bin/zluda}
cuda=${CUDA_HOME:-/usr/local/cuda}
nvcc=$cuda/bin/nvcc
[ -x "$nvcc" ] || [ -z "$(command -v nvcc)" ] || nvcc=$(command -v nvcc)
timeout_s=${TIMEOUT:-600}
cublas_include=${CUBLAS_INCLUDE:-$cuda/include}
jobs=${JOBS:-2}
runjobs=${RUNJOBS:-1}
kernels=${KERNELS:-}
preload=${PRELOAD:-}
# PTX for compute_75 (what the emulator runs) and SASS for sm_90 (what an H200 runs without a JIT)
gencode=${GENCODE:--gencode arch=compute_75,code=compute_75 -gencode arch=compute_90,code=sm_90}
phase=${PHASE:-all}
trace=${TRACE:-}
tracer=${NVIDIA_TRACER:-}
mkdir -p "$out/bin" "$out/logs" "$out/run"
[ "$phase" = run ] || [ "$phase" = table ] || [ -x "$nvcc" ] || { echo "nvcc not found at $nvcc (set CUDA_HOME)" >&2; exit 2; }
[ "$phase" = build ] || [ -n "$tracer" ] || [ -x "$zluda" ] || { echo "zluda not found at $zluda (build the repository: mvn package)" >&2; exit 2; }
[ -z "$tracer" ] || [ -f "$tracer/libcuda.so.1" ] || { echo "no libcuda.so.1 in NVIDIA_TRACER=$tracer" >&2; exit 2; }

# name | folder under Samples | sources | run arguments | extra nvcc flags | PATCH: file:sed-expression, ";;" between several
samples=(
  "asyncAPI|0_Introduction/asyncAPI|asyncAPI.cu|||asyncAPI.cu:s/int n      = 16 \\* 1024 \\* 1024;/int n = 1024 * 1024;/"
  "clock|0_Introduction/clock|clock.cu|||"
  "fp16ScalarProduct|0_Introduction/fp16ScalarProduct|fp16ScalarProduct.cu|||"
  "matrixMul|0_Introduction/matrixMul|matrixMul.cu|-wA=64 -hA=64 -wB=64 -hB=64||matrixMul.cu:s/int nIter = 300;/int nIter = 2;/"
  "mergeSort|0_Introduction/mergeSort|mergeSort.cu main.cpp mergeSort_host.cpp mergeSort_validate.cpp|||main.cpp:s/const uint N         = 4 \\* 1048576;/const uint N = 65536;/"
  "simpleAWBarrier|0_Introduction/simpleAWBarrier|simpleAWBarrier.cu|||simpleAWBarrier.cu:s/int     size = 10000000;/int size = 100000;/"
  "simpleAssert|0_Introduction/simpleAssert|simpleAssert.cu|||"
  "simpleAtomicIntrinsics|0_Introduction/simpleAtomicIntrinsics|simpleAtomicIntrinsics.cu simpleAtomicIntrinsics_cpu.cpp|||"
  "simpleAttributes|0_Introduction/simpleAttributes|simpleAttributes.cu|||simpleAttributes.cu:s/dim3 blocks(deviceProp.maxGridSize\\[1\\], 1);/dim3 blocks(64, 1);/"
  "simpleCallback|0_Introduction/simpleCallback|simpleCallback.cu multithreading.cpp|||"
  "simpleCooperativeGroups|0_Introduction/simpleCooperativeGroups|simpleCooperativeGroups.cu|||"
  "simpleCubemapTexture|0_Introduction/simpleCubemapTexture|simpleCubemapTexture.cu|||"
  "simpleHyperQ|0_Introduction/simpleHyperQ|simpleHyperQ.cu|||"
  "simpleIPC|0_Introduction/simpleIPC|simpleIPC.cu @COMMON@/helper_multiprocess.cpp|||"
  "simpleLayeredTexture|0_Introduction/simpleLayeredTexture|simpleLayeredTexture.cu|||"
  "simpleMultiCopy|0_Introduction/simpleMultiCopy|simpleMultiCopy.cu|||simpleMultiCopy.cu:s/int nreps      = 10;/int nreps = 4;/"
  "simpleMultiGPU|0_Introduction/simpleMultiGPU|simpleMultiGPU.cu|||"
  "simpleOccupancy|0_Introduction/simpleOccupancy|simpleOccupancy.cu|||"
  "simpleP2P|0_Introduction/simpleP2P|simpleP2P.cu|||"
  "simplePitchLinearTexture|0_Introduction/simplePitchLinearTexture|simplePitchLinearTexture.cu|||simplePitchLinearTexture.cu:s/const int nx = 2048;/const int nx = 256;/;s/const int ny = 2048;/const int ny = 256;/;s/#define NUM_REPS 100/#define NUM_REPS 1/"
  "simplePrintf|0_Introduction/simplePrintf|simplePrintf.cu|||"
  "simpleStreams|0_Introduction/simpleStreams|simpleStreams.cu|||simpleStreams.cu:s/int   nreps       = 10;/int nreps = 1;/;s/int   n           = 16 \\* 1024 \\* 1024;/int n = 1024 * 1024;/"
  "simpleSurfaceWrite|0_Introduction/simpleSurfaceWrite|simpleSurfaceWrite.cu|||"
  "simpleTemplates|0_Introduction/simpleTemplates|simpleTemplates.cu|||"
  "simpleTexture|0_Introduction/simpleTexture|simpleTexture.cu|||"
  "simpleVoteIntrinsics|0_Introduction/simpleVoteIntrinsics|simpleVoteIntrinsics.cu|||"
  "simpleZeroCopy|0_Introduction/simpleZeroCopy|simpleZeroCopy.cu|||"
  "systemWideAtomics|0_Introduction/systemWideAtomics|systemWideAtomics.cu|||"
  "template|0_Introduction/template|template.cu template_cpu.cpp|||"
  "vectorAdd|0_Introduction/vectorAdd|vectorAdd.cu|||"
  "deviceQuery|1_Utilities/deviceQuery|deviceQuery.cpp|||"
  "topologyQuery|1_Utilities/topologyQuery|topologyQuery.cu|||"
  "MC_EstimatePiInlineP|2_Concepts_and_Techniques/MC_EstimatePiInlineP|src/main.cpp src/piestimator.cu src/test.cpp|||"
  "MC_SingleAsianOptionP|2_Concepts_and_Techniques/MC_SingleAsianOptionP|src/main.cpp src/pricingengine.cu src/test.cpp|||"
  "convolutionSeparable|2_Concepts_and_Techniques/convolutionSeparable|convolutionSeparable.cu convolutionSeparable_gold.cpp main.cpp|||main.cpp:s/const int imageW     = 3072;/const int imageW = 384;/;s/const int imageH     = 3072;/const int imageH = 384;/;s/const int iterations = 16;/const int iterations = 1;/"
  "convolutionTexture|2_Concepts_and_Techniques/convolutionTexture|convolutionTexture.cu convolutionTexture_gold.cpp main.cpp|||main.cpp:s/const int          imageW     = 3072;/const int imageW = 384;/;s|const int          imageH     = 3072 / 2;|const int imageH = 192;|;s/const unsigned int iterations = 10;/const unsigned int iterations = 1;/"
  "dct8x8|2_Concepts_and_Techniques/dct8x8|dct8x8.cu BmpUtil.cpp DCT8x8_Gold.cpp|||dct8x8.cu:s/const int numIterations = 100;/const int numIterations = 1;/;s/#define BENCHMARK_SIZE 10/#define BENCHMARK_SIZE 1/"
  "eigenvalues|2_Concepts_and_Techniques/eigenvalues|bisect_large.cu bisect_small.cu bisect_util.cu gerschgorin.cpp main.cu matlab.cpp|||main.cu:s/unsigned int iters_timing = 100;/unsigned int iters_timing = 1;/"
  "histogram|2_Concepts_and_Techniques/histogram|main.cpp histogram64.cu histogram256.cu histogram_gold.cpp|||main.cpp:s/64 \\* 1048576;/1048576;/;s/numRuns    = 16;/numRuns = 1;/"
  "inlinePTX|2_Concepts_and_Techniques/inlinePTX|inlinePTX.cu|||"
  "interval|2_Concepts_and_Techniques/interval|interval.cu|||interval.h:s/#define NUM_RUNS (100)/#define NUM_RUNS (1)/"
  "radixSortThrust|2_Concepts_and_Techniques/radixSortThrust|radixSortThrust.cu|-n=65536||radixSortThrust.cu:s/? 10 : 100;/? 10 : 1;/"
  "reduction|2_Concepts_and_Techniques/reduction|reduction.cpp reduction_kernel.cu|--n=65536||reduction.cpp:s/int testIterations = 100;/int testIterations = 1;/"
  "reductionMultiBlockCG|2_Concepts_and_Techniques/reductionMultiBlockCG|reductionMultiBlockCG.cu|||reductionMultiBlockCG.cu:s/int  size        = 1 << 25;/int size = 1 << 16;/;s/int testIterations = 100;/int testIterations = 1;/"
  "scalarProd|2_Concepts_and_Techniques/scalarProd|scalarProd.cu scalarProd_cpu.cpp|||"
  "scan|2_Concepts_and_Techniques/scan|main.cpp scan.cu scan_gold.cpp|||main.cpp:s|13 \\* 1048576 / 2;|262144;|;s/iCycles = 100;/iCycles = 1;/"
  "segmentationTreeThrust|2_Concepts_and_Techniques/segmentationTreeThrust|segmentationTree.cu|||"
  "shfl_scan|2_Concepts_and_Techniques/shfl_scan|shfl_scan.cu|||"
  "sortingNetworks|2_Concepts_and_Techniques/sortingNetworks|main.cpp bitonicSort.cu sortingNetworks_validate.cpp|||main.cpp:s/const uint N             = 1048576;/const uint N = 65536;/"
  "streamOrderedAllocation|2_Concepts_and_Techniques/streamOrderedAllocation|streamOrderedAllocation.cu|||"
  "streamOrderedAllocationP2P|2_Concepts_and_Techniques/streamOrderedAllocationP2P|streamOrderedAllocationP2P.cu|||"
  "threadFenceReduction|2_Concepts_and_Techniques/threadFenceReduction|threadFenceReduction.cu|--n=65536||"
  "StreamPriorities|3_CUDA_Features/StreamPriorities|StreamPriorities.cu|||StreamPriorities.cu:s/#define TOTAL_SIZE 256 \\* 1024 \\* 1024/#define TOTAL_SIZE 8 * 1024 * 1024/;s/#define EACH_SIZE  128 \\* 1024 \\* 1024/#define EACH_SIZE 4 * 1024 * 1024/"
  "bf16TensorCoreGemm|3_CUDA_Features/bf16TensorCoreGemm|bf16TensorCoreGemm.cu||-gencode arch=compute_80,code=compute_80|bf16TensorCoreGemm.cu:s/#define M_TILES 512/#define M_TILES 16/;s/#define N_TILES 512/#define N_TILES 16/;s/#define K_TILES 512/#define K_TILES 16/"
  "binaryPartitionCG|3_CUDA_Features/binaryPartitionCG|binaryPartitionCG.cu|||"
  "cudaTensorCoreGemm|3_CUDA_Features/cudaTensorCoreGemm|cudaTensorCoreGemm.cu|||cudaTensorCoreGemm.cu:s/#define M_TILES 256/#define M_TILES 16/;s/#define N_TILES 256/#define N_TILES 16/;s/#define K_TILES 256/#define K_TILES 16/"
  "dmmaTensorCoreGemm|3_CUDA_Features/dmmaTensorCoreGemm|dmmaTensorCoreGemm.cu||-gencode arch=compute_80,code=compute_80|dmmaTensorCoreGemm.cu:s/#define M_TILES 1024/#define M_TILES 16/;s/#define N_TILES 1024/#define N_TILES 16/;s/#define K_TILES 1024/#define K_TILES 16/"
  "globalToShmemAsyncCopy|3_CUDA_Features/globalToShmemAsyncCopy|globalToShmemAsyncCopy.cu|-wA=128 -hA=128 -wB=128 -hB=128||globalToShmemAsyncCopy.cu:s/int nIter = 100;/int nIter = 1;/"
  "graphConditionalNodes|3_CUDA_Features/graphConditionalNodes|graphConditionalNodes.cu|||"
  "graphMemoryFootprint|3_CUDA_Features/graphMemoryFootprint|graphMemoryFootprint.cu|||graphMemoryFootprint.cu:s/size_t bytes  = 64 \\* 1024 \\* 1024;/size_t bytes = 1024 * 1024;/;s/float                  kernelTime            = 5;/float kernelTime = 0;/"
  "graphMemoryNodes|3_CUDA_Features/graphMemoryNodes|graphMemoryNodes.cu|||graphMemoryNodes.cu:s/#define NUM_ELEMENTS       8000000/#define NUM_ELEMENTS 100000/"
  "immaTensorCoreGemm|3_CUDA_Features/immaTensorCoreGemm|immaTensorCoreGemm.cu|||immaTensorCoreGemm.cu:s/#define M_TILES 256/#define M_TILES 16/;s/#define N_TILES 256/#define N_TILES 16/;s/#define K_TILES 256/#define K_TILES 16/"
  "jacobiCudaGraphs|3_CUDA_Features/jacobiCudaGraphs|jacobi.cu main.cpp|||jacobi.h:s/#define N_ROWS 512/#define N_ROWS 64/"
  "newdelete|3_CUDA_Features/newdelete|newdelete.cu|||"
  "simpleCudaGraphs|3_CUDA_Features/simpleCudaGraphs|simpleCudaGraphs.cu|||simpleCudaGraphs.cu:s/size_t size      = 1 << 24;/size_t size = 1 << 16;/"
  "tf32TensorCoreGemm|3_CUDA_Features/tf32TensorCoreGemm|tf32TensorCoreGemm.cu||-gencode arch=compute_80,code=compute_80|tf32TensorCoreGemm.cu:s/#define M_TILES 512/#define M_TILES 16/;s/#define N_TILES 512/#define N_TILES 16/;s/#define K_TILES 512/#define K_TILES 16/"
  "warpAggregatedAtomicsCG|3_CUDA_Features/warpAggregatedAtomicsCG|warpAggregatedAtomicsCG.cu|||warpAggregatedAtomicsCG.cu:s/#define NUM_ELEMS             10000000/#define NUM_ELEMS 100000/"
  "lineOfSight|4_CUDA_Libraries/lineOfSight|lineOfSight.cu|||lineOfSight.cu:s/uint numIterations = 100;/uint numIterations = 1;/"
  "BlackScholes|5_Domain_Specific/BlackScholes|BlackScholes.cu BlackScholes_gold.cpp|||BlackScholes.cu:s/OPT_N          = 4000000;/OPT_N = 40000;/;s/NUM_ITERATIONS = 512;/NUM_ITERATIONS = 1;/"
  "FDTD3d|5_Domain_Specific/FDTD3d|src/FDTD3d.cpp src/FDTD3dGPU.cu src/FDTD3dReference.cpp|-dimx=96 -dimy=96 -dimz=96 -timesteps=1||"
  "HSOpticalFlow|5_Domain_Specific/HSOpticalFlow|flowCUDA.cu flowGold.cpp main.cpp|||main.cpp:s/const int nSolverIters = 500;/const int nSolverIters = 10;/"
  "NV12toBGRandResize|5_Domain_Specific/NV12toBGRandResize|bgr_resize.cu nv12_resize.cu nv12_to_bgr_planar.cu resize_convert_main.cpp utils.cu|||"
  "SobolQRNG|5_Domain_Specific/SobolQRNG|sobol_gold.cpp sobol_gpu.cu sobol_primitives.cpp sobol.cpp|-vectors=1000 -dimensions=10||"
  "binomialOptions|5_Domain_Specific/binomialOptions|binomialOptions.cpp binomialOptions_gold.cpp binomialOptions_kernel.cu|||binomialOptions_common.h:s/#define MAX_OPTIONS 1024/#define MAX_OPTIONS 64/"
  "dwtHaar1D|5_Domain_Specific/dwtHaar1D|dwtHaar1D.cu|||"
  "dxtc|5_Domain_Specific/dxtc|dxtc.cu|||"
  "fastWalshTransform|5_Domain_Specific/fastWalshTransform|fastWalshTransform.cu fastWalshTransform_gold.cpp|||fastWalshTransform.cu:s/log2Data   = 23;/log2Data = 16;/"
  "p2pBandwidthLatencyTest|5_Domain_Specific/p2pBandwidthLatencyTest|p2pBandwidthLatencyTest.cu|||"
  "quasirandomGenerator|5_Domain_Specific/quasirandomGenerator|quasirandomGenerator.cpp quasirandomGenerator_gold.cpp quasirandomGenerator_kernel.cu|||quasirandomGenerator.cpp:s/const int N = 1048576;/const int N = 65536;/;s/int numIterations = 20;/int numIterations = 1;/"
  "stereoDisparity|5_Domain_Specific/stereoDisparity|stereoDisparity.cu|||"
  "LargeKernelParameter|6_Performance/LargeKernelParameter|LargeKernelParameter.cu|||LargeKernelParameter.cu:s/#define TEST_ITERATIONS     (1000)/#define TEST_ITERATIONS (10)/"
  "UnifiedMemoryPerf|6_Performance/UnifiedMemoryPerf|helperFunctions.cpp matrixMultiplyPerf.cu commonKernels.cu|||matrixMultiplyPerf.cu:s/size_t maxSampleSizeInMb = 64;/size_t maxSampleSizeInMb = 1;/;s/int    numKernelRuns     = 20;/int numKernelRuns = 1;/"
  "alignedTypes|6_Performance/alignedTypes|alignedTypes.cu|||alignedTypes.cu:s/MEM_SIZE       = 50000000;/MEM_SIZE = 1000000;/;s/NUM_ITERATIONS = 32;/NUM_ITERATIONS = 1;/"
  "cudaGraphsPerfScaling|6_Performance/cudaGraphsPerfScaling|cudaGraphPerfScaling.cu|||"
  "transpose|6_Performance/transpose|transpose.cu|-dimX=128 -dimY=128||transpose.cu:s/#define NUM_REPS 100/#define NUM_REPS 1/"
  "cppIntegration|0_Introduction/cppIntegration|cppIntegration.cu cppIntegration_gold.cpp main.cpp|||"
)

# Samples of the folders above that need a library beyond cudart after all: not built, listed in results.md.
EXCLUDED=(
  "cdpAdvancedQuicksort|cudadevrt (CUDA dynamic parallelism: kernels launched from the device, nvcc -rdc)"
  "cdpBezierTessellation|cudadevrt (CUDA dynamic parallelism: kernels launched from the device, nvcc -rdc)"
  "cdpQuadtree|cudadevrt (CUDA dynamic parallelism: kernels launched from the device, nvcc -rdc)"
  "cdpSimplePrint|cudadevrt (CUDA dynamic parallelism: kernels launched from the device, nvcc -rdc)"
  "cdpSimpleQuicksort|cudadevrt (CUDA dynamic parallelism: kernels launched from the device, nvcc -rdc)"
  # cuBLAS: built against NVIDIA's cublas_v2.h (CUBLAS_INCLUDE) and linked against zluda's libcublas.so.13 (dist/lib)
  "simpleCUBLAS|4_CUDA_Libraries/simpleCUBLAS|simpleCUBLAS.cpp||@cublas|"
  "matrixMulCUBLAS|4_CUDA_Libraries/matrixMulCUBLAS|matrixMulCUBLAS.cpp|-sizemult=1|@cublas|"
  "batchCUBLAS|4_CUDA_Libraries/batchCUBLAS|batchCUBLAS.cpp||@cublas|"
)

names=()
for entry in "${samples[@]}"; do
  IFS='|' read -r name dir sources args flags patch <<<"$entry"
  if [ -n "${ONLY:-}" ] && [[ " $ONLY " != *" $name "* ]]; then continue; fi
  names+=("$name")
done

build() {
  local name=$1 dir=$2 sources=$3 flags=$4 patch=$5 d="$src/Samples/$2" files=()
  [ -d "$d" ] || { echo "missing: $d" > "$out/logs/$name.build.txt"; return 1; }
  local key="$sources|$flags|$patch"
  if [ -x "$out/bin/$name" ] && [ "$(cat "$out/logs/$name.build.key" 2>/dev/null)" = "$key" ]; then return 0; fi
  if [ -n "$patch" ]; then  # a patched copy of the sample's folder
    rm -rf "$out/src/$name" && mkdir -p "$out/src" && cp -r "$d" "$out/src/$name" && d="$out/src/$name"
    local IFS=$'\n'
    for p in $(echo "$patch" | sed 's/;;/\n/g'); do
      local file=${p%%:*} expr=${p#*:}
      cp "$d/$file" "$d/$file.orig"
      sed -i -e "$expr" "$d/$file"
      if cmp -s "$d/$file" "$d/$file.orig"; then echo "patch did not apply: $file: $expr" > "$out/logs/$name.build.txt"; return 1; fi
    done
    unset IFS
  fi
  for f in $sources; do
    case $f in @COMMON@/*) files+=("$src/Common/${f#@COMMON@/}") ;; *) files+=("$d/$f") ;; esac
  done
  flags=${flags//@cublas/-I$cublas_include -L$repo/dist/lib -lcublas}
  # shellcheck disable=SC2086
  local inc=()
  [ -d "$d/inc" ] && inc=(-I"$d/inc")  # samples with an inc/ folder (FDTD3d, MC_*)
  "$nvcc" -O2 -Wno-deprecated-gpu-targets -I"$src/Common" -I"$d" "${inc[@]}" $gencode $flags \
      -o "$out/bin/$name" "${files[@]}" > "$out/logs/$name.build.txt" 2>&1 && echo "$key" > "$out/logs/$name.build.key"
}

# compile, JOBS at a time
if [ "$phase" != run ] && [ "$phase" != table ]; then
  running=0
  for entry in "${samples[@]}"; do
    IFS='|' read -r name dir sources args flags patch <<<"$entry"
    [[ " ${names[*]} " == *" $name "* ]] || continue
    ( if build "$name" "$dir" "$sources" "$flags" "$patch"; then echo ok; else echo FAILED; fi > "$out/logs/$name.build.status" ) &
    running=$((running + 1))
    if [ "$running" -ge "$jobs" ]; then wait -n; running=$((running - 1)); fi
  done
  wait
fi
[ "$phase" = build ] && { echo "built into $out/bin"; exit 0; }

# The sample's verdict: the last line it prints that says so.
# (not zluda run's own lines: "zluda run: ..." and its indented capture summary)
program_output() { grep -vE '^zluda run: |^           ' "$1"; }
verdict_of() {
  program_output "$1" | grep -iE 'pass|fail|returned OK|success|mismatch|not supported|waiv|^ *OK$' | tail -1 | tr '|' '/' | sed 's/^[[:space:]]*//' | cut -c1-110
}

# Runs one sample and writes its results.md row to logs/<name>.row.
run_one() {
  local name=$1 dir=$2 args=$3 status code secs verdict ok start rundir
  status=$(cat "$out/logs/$name.build.status" 2>/dev/null || echo FAILED)
  [ -x "$out/bin/$name" ] && [ "$phase" = run ] && status=ok
  if [ "$status" != ok ]; then
    echo "| $name | no: $(grep -m1 -iE 'error|patch|missing' "$out/logs/$name.build.txt" | tr '|' '/' | cut -c1-120) | | | | |" > "$out/logs/$name.row"
    echo "$name: build FAILED"
    return
  fi
  # each sample runs in a directory of its own, with its data/ folder (sdkFindFilePath looks in ./data/)
  rundir="$out/run/$name"
  mkdir -p "$rundir"
  [ -d "$src/Samples/$dir/data" ] && [ ! -e "$rundir/data" ] && ln -s "$src/Samples/$dir/data" "$rundir/data"
  start=$(date +%s%N)
  if [ -n "$tracer" ]; then
    # shellcheck disable=SC2086
    ( cd "$rundir" && env LD_LIBRARY_PATH="$tracer${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" ${trace:+ZLUDA_LOG_DIR=$trace} \
        ${kernels:+ZLUDA_CAPTURE_KERNELS=$kernels} timeout "$timeout_s" "$out/bin/$name" $args ) > "$out/logs/$name.run.txt" 2>&1 < /dev/null
  elif [ -n "$trace" ]; then
    # shellcheck disable=SC2086
    # a folder of its own for each run (moved into TRACE after it), so that runs side by side never see each other's captures
    rm -rf "$trace/.$name" "$trace/$name" "$trace/${name}_"[0-9]*
    mkdir -p "$trace/.$name"
    ( cd "$rundir" && env ${preload:+LD_PRELOAD=$preload} timeout "$timeout_s" "$zluda" run --zluda-trace ${kernels:+--capture-kernels "$kernels"} -o "$trace/.$name" -- "$out/bin/$name" $args ) \
        > "$out/logs/$name.run.txt" 2>&1 < /dev/null
    code=$?
    mv "$trace/.$name"/* "$trace/" 2>/dev/null
    rmdir "$trace/.$name" 2>/dev/null
    (exit $code)
  else
    # shellcheck disable=SC2086
    ( cd "$rundir" && env ${preload:+LD_PRELOAD=$preload} timeout "$timeout_s" "$zluda" run -- "$out/bin/$name" $args ) > "$out/logs/$name.run.txt" 2>&1 < /dev/null
  fi
  code=$?
  secs=$(( ($(date +%s%N) - start) / 1000000 ))  # ms
  echo "$code $secs" > "$out/logs/$name.run.status"
  score "$name" "$code" "$secs"
}

# The results.md row of a run that has ended: exit status CODE after SECS ms, its output in logs/<name>.run.txt.
score() {
  local name=$1 code=$2 secs=$3 verdict ok
  verdict=$(verdict_of "$out/logs/$name.run.txt")
  ok=no
  # exit 0 and no line saying it failed (samples without a verdict line signal failure by their exit status);
  # a sample that waives (a feature the device lacks) passes nothing
  # (simpleAssert's device assertion, "Assertion `...` failed.", is what it checks for)
  if [ "$code" = 0 ] && ! program_output "$out/logs/$name.run.txt" | grep -v 'Assertion `.*` failed' \
      | grep -qiE 'test failed|fail(ed|ure)?[!:.]|[1-9][0-9]* failures|mismatch|not supported'; then ok=yes; fi
  if program_output "$out/logs/$name.run.txt" | grep -qiE 'waiv'; then ok=waived; fi
  [ "$code" = 124 ] && verdict="timed out after $((secs / 1000)) s"
  printf '| %s | yes | %s | %s | %s | %d.%d |\n' "$name" "$code" "$ok" "$verdict" $((secs / 1000)) $((secs % 1000 / 100)) > "$out/logs/$name.row"
  echo "$name: exit $code, passes: $ok, $verdict ($((secs / 1000)) s)"
}

# run, RUNJOBS at a time; the rows keep the table's order. PHASE=table runs nothing: it scores the runs
# that logs/ holds again (after a change of the rules above) and writes results.md.
running=0
for entry in "${samples[@]}"; do
  if [ "$phase" = table ]; then
    IFS='|' read -r name dir sources args flags patch <<<"$entry"
    [[ " ${names[*]} " == *" $name "* ]] || continue
    [ -f "$out/logs/$name.run.status" ] && read -r code secs < "$out/logs/$name.run.status" && score "$name" "$code" "$secs" > /dev/null
    continue
  fi
  IFS='|' read -r name dir sources args flags patch <<<"$entry"
  [[ " ${names[*]} " == *" $name "* ]] || continue
  rm -f "$out/logs/$name.row"
  run_one "$name" "$dir" "$args" &
  running=$((running + 1))
  if [ "$running" -ge "$runjobs" ]; then wait -n; running=$((running - 1)); fi
done
wait
{
  echo "| sample | built | exit | passes its own check | the sample's verdict (last line saying so) | time (s) |"
  echo "|---|---|---|---|---|---|"
  for name in "${names[@]}"; do cat "$out/logs/$name.row" 2>/dev/null || echo "| $name | | | not run | | |"; done
} > "$out/results.md"
for entry in "${EXCLUDED[@]}"; do
  IFS='|' read -r name why <<<"$entry"
  [ -n "${ONLY:-}" ] && [[ " $ONLY " != *" $name "* ]] && continue
  echo "| $name | not built: needs $why | | | | |" >> "$out/results.md"
done
echo "results: $out/results.md"

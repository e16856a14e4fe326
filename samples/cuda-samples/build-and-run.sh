#!/bin/bash
# Builds programs of NVIDIA's public cuda-samples with nvcc and runs each on zluda's driver (CPU
# emulator), writing a results table. The cuda-samples source is not part of this repository:
#
#   git clone https://github.com/NVIDIA/cuda-samples /tmp/cuda-samples     (or any export of it)
#   samples/cuda-samples/build-and-run.sh /tmp/cuda-samples [OUT]
#
# cppIntegration was removed from cuda-samples in commit 9d8f614 (Dec 2024); when the checkout
# lacks it, take it from the commit before:
#   git -C /tmp/cuda-samples archive ff264a798f4b3595cfd309e5ce7db10d9ba7f317 \
#       Samples/0_Introduction/cppIntegration | tar -x -C /tmp/cuda-samples
#
# OUT (default /tmp/cuda-samples-run) receives bin/<sample>, logs/<sample>.{build,run}.txt and
# results.md: one row per sample with the build result, the exit status, the sample's own verdict
# (the last line it prints that says passed/failed/OK/error) and the run time. Each program is
# compiled directly from its .cu/.cpp files with `nvcc -I Common` for compute_75 (PTX only: the
# emulator runs PTX) and cudart linked statically, then run under `zluda run`. The emulator
# executes about 10^8 thread-instructions per second, so samples whose sizes are fixed in the
# source are built from a copy (OUT/src/<sample>) in which a sed expression makes the problem
# smaller or repeats it fewer times (the PATCH column below; the sample's own check is unchanged);
# samples that take sizes on the command line get small ones.
# The cuBLAS samples (flags @cublas) are compiled against NVIDIA's cublas_v2.h, found in CUBLAS_INCLUDE
# (default $CUDA_HOME/include), and linked against zluda's libcublas.so.13 in dist/lib, which
# `zluda run` puts on the loader's path.
# Environment: ZLUDA (default: dist/bin/zluda of this repository), CUDA_HOME (/usr/local/cuda),
# TIMEOUT per run in seconds (600), JOBS parallel compilations (2), ONLY (space-separated names).
set -uo pipefail
src=${1:?usage: build-and-run.sh CUDA_SAMPLES_CHECKOUT [OUT]}
src=$(cd "$src" && pwd)
out=${2:-/tmp/cuda-samples-run}
repo=$(cd "$(dirname "$0")/../.." && pwd)
zluda=${ZLUDA:-$repo/dist/bin/zluda}
cuda=${CUDA_HOME:-/usr/local/cuda}
nvcc=$cuda/bin/nvcc
timeout_s=${TIMEOUT:-600}
cublas_include=${CUBLAS_INCLUDE:-$cuda/include}
jobs=${JOBS:-2}
mkdir -p "$out/bin" "$out/logs"
[ -x "$nvcc" ] || { echo "nvcc not found at $nvcc (set CUDA_HOME)" >&2; exit 2; }
[ -x "$zluda" ] || { echo "zluda not found at $zluda (build the repository: mvn package)" >&2; exit 2; }

# name | folder under Samples | sources | run arguments | extra nvcc flags | PATCH: file:sed-expression, ";;" between several
samples=(
  "vectorAdd|0_Introduction/vectorAdd|vectorAdd.cu|||"
  "matrixMul|0_Introduction/matrixMul|matrixMul.cu|-wA=64 -hA=64 -wB=64 -hB=64||matrixMul.cu:s/int nIter = 300;/int nIter = 2;/"
  "simpleAtomicIntrinsics|0_Introduction/simpleAtomicIntrinsics|simpleAtomicIntrinsics.cu simpleAtomicIntrinsics_cpu.cpp|||"
  "simpleVoteIntrinsics|0_Introduction/simpleVoteIntrinsics|simpleVoteIntrinsics.cu|||"
  "shfl_scan|2_Concepts_and_Techniques/shfl_scan|shfl_scan.cu|||"
  "reduction|2_Concepts_and_Techniques/reduction|reduction.cpp reduction_kernel.cu|--n=65536||reduction.cpp:s/int testIterations = 100;/int testIterations = 1;/"
  "scan|2_Concepts_and_Techniques/scan|main.cpp scan.cu scan_gold.cpp|||main.cpp:s|13 \\* 1048576 / 2;|262144;|;s/iCycles = 100;/iCycles = 1;/"
  "histogram|2_Concepts_and_Techniques/histogram|main.cpp histogram64.cu histogram256.cu histogram_gold.cpp|||main.cpp:s/64 \\* 1048576;/1048576;/;s/numRuns    = 16;/numRuns = 1;/"
  "transpose|6_Performance/transpose|transpose.cu|-dimX=128 -dimY=128||transpose.cu:s/#define NUM_REPS 100/#define NUM_REPS 1/"
  "simpleTemplates|0_Introduction/simpleTemplates|simpleTemplates.cu|||"
  "asyncAPI|0_Introduction/asyncAPI|asyncAPI.cu|||asyncAPI.cu:s/int n      = 16 \\* 1024 \\* 1024;/int n = 1024 * 1024;/"
  "simpleStreams|0_Introduction/simpleStreams|simpleStreams.cu|||simpleStreams.cu:s/int   nreps       = 10;/int nreps = 1;/;s/int   n           = 16 \\* 1024 \\* 1024;/int n = 1024 * 1024;/"
  "simpleCallback|0_Introduction/simpleCallback|simpleCallback.cu multithreading.cpp|||"
  "clock|0_Introduction/clock|clock.cu|||"
  "cppIntegration|0_Introduction/cppIntegration|cppIntegration.cu cppIntegration_gold.cpp main.cpp|||"
  "simplePrintf|0_Introduction/simplePrintf|simplePrintf.cu|||"
  "simpleAssert|0_Introduction/simpleAssert|simpleAssert.cu|||"
  "template|0_Introduction/template|template.cu template_cpu.cpp|||"
  "simpleOccupancy|0_Introduction/simpleOccupancy|simpleOccupancy.cu|||"
  "alignedTypes|6_Performance/alignedTypes|alignedTypes.cu|||alignedTypes.cu:s/MEM_SIZE       = 50000000;/MEM_SIZE = 1000000;/;s/NUM_ITERATIONS = 32;/NUM_ITERATIONS = 1;/"
  "scalarProd|2_Concepts_and_Techniques/scalarProd|scalarProd.cu scalarProd_cpu.cpp|||"
  "fastWalshTransform|5_Domain_Specific/fastWalshTransform|fastWalshTransform.cu fastWalshTransform_gold.cpp|||fastWalshTransform.cu:s/log2Data   = 23;/log2Data = 16;/"
  "BlackScholes|5_Domain_Specific/BlackScholes|BlackScholes.cu BlackScholes_gold.cpp|||BlackScholes.cu:s/OPT_N          = 4000000;/OPT_N = 40000;/;s/NUM_ITERATIONS = 512;/NUM_ITERATIONS = 1;/"
  "simpleCooperativeGroups|0_Introduction/simpleCooperativeGroups|simpleCooperativeGroups.cu|||"
  "threadFenceReduction|2_Concepts_and_Techniques/threadFenceReduction|threadFenceReduction.cu|--n=65536||"
  "inlinePTX|2_Concepts_and_Techniques/inlinePTX|inlinePTX.cu|||"
  "simpleZeroCopy|0_Introduction/simpleZeroCopy|simpleZeroCopy.cu|||"
  "simpleMultiCopy|0_Introduction/simpleMultiCopy|simpleMultiCopy.cu|||simpleMultiCopy.cu:s/int nreps      = 10;/int nreps = 4;/"
  "deviceQuery|1_Utilities/deviceQuery|deviceQuery.cpp|||"
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
  for f in $sources; do files+=("$d/$f"); done
  flags=${flags//@cublas/-I$cublas_include -L$repo/dist/lib -lcublas}
  # shellcheck disable=SC2086
  "$nvcc" -O2 -Wno-deprecated-gpu-targets -I"$src/Common" -I"$d" -gencode arch=compute_75,code=compute_75 $flags \
      -o "$out/bin/$name" "${files[@]}" > "$out/logs/$name.build.txt" 2>&1 && echo "$key" > "$out/logs/$name.build.key"
}

# compile, JOBS at a time
running=0
for entry in "${samples[@]}"; do
  IFS='|' read -r name dir sources args flags patch <<<"$entry"
  [[ " ${names[*]} " == *" $name "* ]] || continue
  ( if build "$name" "$dir" "$sources" "$flags" "$patch"; then echo ok; else echo FAILED; fi > "$out/logs/$name.build.status" ) &
  running=$((running + 1))
  if [ "$running" -ge "$jobs" ]; then wait -n; running=$((running - 1)); fi
done
wait

{
  echo "| sample | built | exit | passes its own check | the sample's verdict (last line saying so) | time (s) |"
  echo "|---|---|---|---|---|---|"
} > "$out/results.md"
for entry in "${samples[@]}"; do
  IFS='|' read -r name dir sources args flags patch <<<"$entry"
  [[ " ${names[*]} " == *" $name "* ]] || continue
  status=$(cat "$out/logs/$name.build.status" 2>/dev/null || echo FAILED)
  if [ "$status" != ok ]; then
    echo "| $name | no: $(grep -m1 -iE 'error|patch' "$out/logs/$name.build.txt" | tr '|' '/' | cut -c1-120) | | | | |" >> "$out/results.md"
    echo "$name: build FAILED"
    continue
  fi
  start=$(date +%s.%N)
  # shellcheck disable=SC2086
  ( cd "$out/bin" && timeout "$timeout_s" "$zluda" run -- "./$name" $args ) > "$out/logs/$name.run.txt" 2>&1 < /dev/null
  code=$?
  secs=$(echo "$(date +%s.%N) - $start" | bc)
  verdict=$(grep -iE 'pass|fail|returned OK|success|mismatch|not supported|waived|^ *OK$' "$out/logs/$name.run.txt" | tail -1 | tr '|' '/' | sed 's/^[[:space:]]*//' | cut -c1-110)
  ok=no
  # exit 0 and no line saying it failed (samples without a verdict line signal failure by their exit status)
  if [ "$code" = 0 ] && ! grep -qiE 'test failed|fail(ed|ure)?[!:.]|[1-9][0-9]* failures|mismatch|not supported' "$out/logs/$name.run.txt"; then ok=yes; fi
  [ "$code" = 124 ] && verdict="timed out after ${timeout_s} s"
  printf '| %s | yes | %s | %s | %s | %.1f |\n' "$name" "$code" "$ok" "$verdict" "$secs" >> "$out/results.md"
  echo "$name: exit $code, passes: $ok, $verdict (${secs%.*} s)"
done
echo "results: $out/results.md"

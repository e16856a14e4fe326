#!/bin/bash
# The GPU side of the cuda-samples corpus, on a machine with an NVIDIA GPU and nvcc (no Java needed):
# builds every sample of build-and-run.sh with nvcc (PTX for compute_75, SASS for sm_90), runs each
# on NVIDIA's driver under the NVIDIA tracer with kernel snapshots of every launch, and packs what the
# CPU side needs to run the same binaries on zluda's driver and diff the two captures. Usage:
#
#   OUT=/some/dir bash D/h200-corpus.sh D
#
# D holds build-and-run.sh (this folder's), cuda-samples.tar.xz (an export of the cuda-samples
# checkout's Common/ and Samples/ folders that build-and-run.sh names) and trace/libcuda.so.1 (the NVIDIA
# tracer, dist/lib/trace of this repository's build). Writes to OUT: corpus-logs.tar.xz (gpu.txt: the
# GPU, driver and nvcc; results.md, the table of the runs; logs/), corpus-bin.tar.xz.part-* (bin/, the
# binaries: cat the parts, then untar) and corpus-captures.tar.xz.part-* (captures/<sample>/). Stops
# compiling after BUILD_DEADLINE seconds (default 150) and gives each run TIMEOUT seconds (25). ONLY
# (space-separated names) builds and runs just those.
set -u
D=$(cd "${1:-.}" && pwd)
OUT=${OUT:-/tmp/out}
W=${WORK:-/tmp/corpus}
T0=$(date +%s)
mkdir -p "$OUT" "$W/src"
step() { echo "=== [$(( $(date +%s) - T0 )) s] $*"; }

step "machine"
{
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  command -v nvcc >/dev/null && nvcc --version | tail -2 || ls /usr/local/cuda*/bin/nvcc
  uname -r; nproc
} > "$W/gpu.txt" 2>&1
cat "$W/gpu.txt"
command -v nvcc >/dev/null || export PATH=$PATH:/usr/local/cuda/bin
tar -xJf "$D/cuda-samples.tar.xz" -C "$W/src" || exit 1

step "build (nvcc, 16 at a time; the thrust samples first: they take longest)"
all=${ONLY:-$(grep -o '^  "[A-Za-z0-9_]*|' "$D/build-and-run.sh" | tr -d ' "|')}
heavy=$(for n in radixSortThrust segmentationTreeThrust eigenvalues MC_SingleAsianOptionP MC_EstimatePiInlineP cudaGraphsPerfScaling; do
  [[ " $(echo $all) " == *" $n "* ]] && echo "$n"; done | tr '\n' ' ')
rest=$(for n in $all; do [[ " $heavy " == *" $n "* ]] || echo "$n"; done | tr '\n' ' ')
[ -z "$heavy" ] || ( PHASE=build JOBS=6 ONLY="$heavy" timeout "${BUILD_DEADLINE:-150}" bash "$D/build-and-run.sh" "$W/src" "$W/run" > "$W/build-heavy.txt" 2>&1 ) &
[ -z "$rest" ] || ( PHASE=build JOBS=10 ONLY="$rest" timeout "${BUILD_DEADLINE:-150}" bash "$D/build-and-run.sh" "$W/src" "$W/run" > "$W/build-rest.txt" 2>&1 ) &
wait
ls "$W/run/bin" | wc -l
step "pack the binaries"
tar -C "$W/run" -cf - bin | xz -T16 -6 | split -b 15M - "$OUT/corpus-bin.tar.xz.part-"
ls -la "$OUT"

step "run each on NVIDIA's driver under the tracer, 8 at a time"
ONLY="$(echo $all)" PHASE=run RUNJOBS=8 TIMEOUT=${TIMEOUT:-25} NVIDIA_TRACER="$D/trace" TRACE="$W/captures" KERNELS=. \
  ZLUDA_CAPTURE_KERNELS_MAX_BYTES=$((1 << 20)) bash "$D/build-and-run.sh" "$W/src" "$W/run"

step "pack the logs and the captures"
cp "$W/gpu.txt" "$W/run/"
tar -C "$W/run" -cf - gpu.txt results.md logs | xz -T16 -6 > "$OUT/corpus-logs.tar.xz"
du -sh "$W/captures"
tar -C "$W" -cf - captures | xz -T16 -3 | split -b 15M - "$OUT/corpus-captures.tar.xz.part-"
ls -la "$OUT"
step "done"

#!/bin/bash
# Diffs each sample's capture recorded on an NVIDIA GPU (h200-corpus.sh) with its capture recorded on
# zluda's driver (build-and-run.sh with TRACE), A = NVIDIA's (the reference), B = zluda's:
#
#   samples/cuda-samples/diff-pairs.sh NVIDIA_CAPTURES ZLUDA_CAPTURES OUT
#
# Each folder holds one capture directory per program (<sample>, and <sample>_1 ... for the processes
# a sample starts). Writes OUT/<capture>.diff.txt (zluda diff's report) and OUT/<capture>.diff.rc (its
# exit status: 0 the same, 1 different, 2 error). Environment: ZLUDA (dist/bin/zluda of this
# repository), ONLY (space-separated capture names), JOBS (diffs at a time, 1).
set -uo pipefail
a=${1:?usage: diff-pairs.sh NVIDIA_CAPTURES ZLUDA_CAPTURES OUT}
b=${2:?usage: diff-pairs.sh NVIDIA_CAPTURES ZLUDA_CAPTURES OUT}
out=${3:?usage: diff-pairs.sh NVIDIA_CAPTURES ZLUDA_CAPTURES OUT}
repo=$(cd "$(dirname "$0")/../.." && pwd)
zluda=${ZLUDA:-$repo/dist/bin/zluda}
jobs=${JOBS:-1}
mkdir -p "$out"
running=0
for dir in "$a"/*/; do
  name=$(basename "$dir")
  if [ -n "${ONLY:-}" ] && [[ " $ONLY " != *" $name "* ]]; then continue; fi
  [ -d "$b/$name" ] || continue
  ( "$zluda" diff "$a/$name" "$b/$name" > "$out/$name.diff.txt" 2>&1; echo $? > "$out/$name.diff.rc"
    echo "$name: $(grep -m1 -E '^(SAME|DIFFERENT)' "$out/$name.diff.txt" || echo "error, see $out/$name.diff.txt")" ) &
  running=$((running + 1))
  if [ "$running" -ge "$jobs" ]; then wait -n; running=$((running - 1)); fi
done
wait

#!/bin/bash
# Records the ground truth of zluda-runtime/src/test/resources/coop/h200/ on a machine with an NVIDIA GPU
# (no toolkit needed there). Here, with the toolkit:
#   D=some/dir; mkdir -p $D
#   nvcc -ptx -arch=sm_90 zluda-runtime/src/test/resources/coop/coop_kernels.cu -o $D/coop_kernels.ptx
#   gcc -std=gnu11 -I/usr/local/cuda/include -c zluda-runtime/src/test/device/coop_h200.c -o $D/coop_h200.o
#   (a link-time libcuda.so stub of the cu* symbols it uses, soname libcuda.so.1), gcc -o $D/coop_h200 ...
#   and the driver-API samples (make -C samples/src/main/c BUILD=$D/samples)
# There:  OUT=/some/dir bash coop-h200.sh D
# Writes results.tsv (attributes, occupancy, the CUresult of each probe), outputs.txt (the kernels' outputs)
# and samples.txt (each sample's output) to $OUT.
set -u
D=$(cd "${1:-.}" && pwd)
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
nvidia-smi -L > "$OUT/machine.txt" 2>&1
nvidia-smi --query-gpu=driver_version --format=csv,noheader >> "$OUT/machine.txt" 2>&1
timeout 60 "$D/coop_h200" "$D/coop_kernels.ptx" "$OUT/outputs.txt" > "$OUT/results.tsv" 2>&1
echo "exit	$?" >> "$OUT/results.tsv"
for s in cooperative cluster vmm l2persist; do
    [ -x "$D/samples/bin/$s" ] || continue
    echo "=== $s" >> "$OUT/samples.txt"
    timeout 30 "$D/samples/bin/$s" >> "$OUT/samples.txt" 2>&1
    echo "exit $?" >> "$OUT/samples.txt"
done

#!/bin/sh
# Measures NVIDIA's driver on a machine with an NVIDIA GPU and writes the results to $1 (default .):
#   cu-get-proc-address.tsv  what cuGetProcAddress_v2 returns per base name, version and flags
#   device.tsv               device 0: name, memory, UUID, every cuDeviceGetAttribute value
#   errors.tsv               cuGetErrorName/cuGetErrorString of every CUresult; cuGetProcAddress (v1) edge cases
#   exports.txt              every cu* symbol the driver exports (nm -D --defined-only)
#   nvidia-smi.txt           GPU and driver as nvidia-smi reports them
# Run from the repository root: sh nvidia-capture/src/main/c/tools/measure-on-nvidia.sh OUTDIR
# Needs gcc, python3, nm, the CUDA headers; no Java.
set -eu
out=${1:-.}
mkdir -p "$out" /tmp/zluda-measure
make -s -C nvidia-capture/src/main/c BUILD=/tmp/zluda-measure
lib=$(ldconfig -p | awk '/libcuda\.so\.1 /{print $NF; exit}')
[ -n "$lib" ] || { echo "no libcuda.so.1 in the loader cache" >&2; exit 1; }
lib=$(readlink -f "$lib")
nm -D --defined-only "$lib" | awk '{print $3}' | grep '^cu' | sort > "$out/exports.txt"
python3 -c "import json,sys; [print(f['name']) for f in json.load(open('api-spec/src/main/resources/dev/zluda/spec/cuda-api.json'))['functions']]" > /tmp/zluda-measure/names.txt
grep '^cu[A-Z]' "$out/exports.txt" >> /tmp/zluda-measure/names.txt
# names no driver has, to record what an unknown name gets
printf 'cuNoSuchFunction\ncuZludaProbeUnknown_v2\n' >> /tmp/zluda-measure/names.txt
/tmp/zluda-measure/tools/probe_proc_address "$lib" < /tmp/zluda-measure/names.txt > "$out/cu-get-proc-address.tsv"
/tmp/zluda-measure/tools/probe_device "$lib" > "$out/device.tsv"
/tmp/zluda-measure/tools/probe_errors "$lib" > "$out/errors.tsv"
nvidia-smi > "$out/nvidia-smi.txt" 2>&1 || true
wc -l "$out"/*

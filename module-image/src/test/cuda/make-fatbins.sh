#!/bin/bash
# Regenerates the fatbin test resources of ModuleImageTest from fatbin_kernels.cu with nvcc
# (CUDA 13.0 was used for the committed files):
#   module-image/src/test/cuda/make-fatbins.sh [OUTDIR]
# Writes, into OUTDIR (default: module-image/src/test/resources/dev/zluda/image):
#   kernels.{zstd,lz4,none}.fatbin  SASS sm_75 + PTX compute_75, SASS sm_86 + PTX compute_86,
#                                   PTX compute_90; compressed with -compress-mode=default (zstd),
#                                   speed (LZ4) and none
#   kernels.sass.fatbin             SASS sm_86 only
#   kernels.90a.fatbin              PTX compute_90a only (arch-specific)
#   kernels.sm86.cubin              a bare cubin (nvcc -cubin)
#   kernels.host.elf                a host object (nvcc -c; not named .o, which git ignores)
#                                   whose .nv_fatbin section holds SASS sm_86 + PTX compute_86
#                                   (its bytes change from run to run: nvcc names temporary files)
#   kernels.compute_XX.ptx          nvcc -ptx for compute_75, 86, 90: the independent reference
#                                   for the PTX extracted from the fatbins
#   kernels.cuobjdump.txt           cuobjdump -lelf -lptx of each fatbin, when cuobjdump exists
#                                   (CUDA_HOME/bin or PATH; run this on a machine with the full
#                                   toolkit to refresh it; kernels.cuobjdump.md5, the MD5 of what
#                                   cuobjdump -xptx all / -xelf all extract, is refreshed by hand)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here/../resources/dev/zluda/image}
mkdir -p "$out"
cuda=${CUDA_HOME:-/usr/local/cuda}
nvcc=$cuda/bin/nvcc
[ -x "$nvcc" ] || nvcc=nvcc
src=$here/fatbin_kernels.cu
three=(-gencode 'arch=compute_75,code=[sm_75,compute_75]' -gencode 'arch=compute_86,code=[sm_86,compute_86]'
       -gencode arch=compute_90,code=compute_90)
"$nvcc" -fatbin "${three[@]}" -compress-mode=default -o "$out/kernels.zstd.fatbin" "$src"
"$nvcc" -fatbin "${three[@]}" -compress-mode=speed -o "$out/kernels.lz4.fatbin" "$src"
"$nvcc" -fatbin "${three[@]}" -compress-mode=none -o "$out/kernels.none.fatbin" "$src"
"$nvcc" -fatbin -gencode arch=compute_86,code=sm_86 -o "$out/kernels.sass.fatbin" "$src"
"$nvcc" -fatbin -gencode arch=compute_90a,code=compute_90a -o "$out/kernels.90a.fatbin" "$src"
"$nvcc" -cubin -arch=sm_86 -o "$out/kernels.sm86.cubin" "$src"
"$nvcc" -c -gencode 'arch=compute_86,code=[sm_86,compute_86]' -o "$out/kernels.host.elf" "$src"
for a in 75 86 90; do
    "$nvcc" -ptx -arch=compute_$a -o "$out/kernels.compute_$a.ptx" "$src"
done
cuobjdump=$cuda/bin/cuobjdump
[ -x "$cuobjdump" ] || cuobjdump=$(command -v cuobjdump || true)
if [ -n "$cuobjdump" ]; then
    for f in zstd lz4 none sass 90a; do
        echo "== kernels.$f.fatbin"
        "$cuobjdump" -lelf -lptx "$out/kernels.$f.fatbin"
    done > "$out/kernels.cuobjdump.txt"
else
    echo "cuobjdump not found: kernels.cuobjdump.txt left as it is" >&2
fi
"$nvcc" --version | tail -2

#!/usr/bin/env bash
# Regenerates the PTX test corpus of zluda's ptx module from the CUDA sources beside this script.
# Usage: ptx/src/test/cuda/regen.sh   (needs nvcc on PATH or in /usr/local/cuda/bin)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="$here/../resources/corpus"
nvcc="${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}"
mkdir -p "$out"
find "$out" -name "*.ptx" ! -name "clang_*" -delete
for src in "$here"/*.cu; do
  name="$(basename "$src" .cu)"
  for arch in sm_75 sm_86 sm_90; do
    "$nvcc" -ptx -arch="$arch" -O3 -o "$out/$name.$arch.ptx" "$src"
  done
done
# one debug build (-G: .file/.loc/.section DWARF) of a small kernel
"$nvcc" -ptx -arch=sm_86 -G -o "$out/vector_add.sm_86.debug.ptx" "$here/vector_add.cu"
"$nvcc" --version | tail -2 > "$out/NVCC_VERSION"
ls -l "$out"

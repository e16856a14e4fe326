#!/usr/bin/env bash
# Regenerates the clang NVPTX part of the PTX test corpus (needs clang with the NVPTX back end).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="$here/../resources/corpus"
clang="${CLANG:-$(command -v clang-22 || command -v clang)}"
for src in "$here"/clang/*.cu; do
  name="$(basename "$src" .cu)"
  for arch in sm_75 sm_86 sm_90; do
    "$clang" --cuda-device-only -nocudainc -nocudalib -S -O2 --cuda-gpu-arch="$arch" -o "$out/$name.$arch.ptx" "$src"
  done
done
"$clang" --version | head -1 > "$out/CLANG_VERSION"

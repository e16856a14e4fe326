#!/usr/bin/env bash
# Lays out, under DIR (default .device/libs, gitignored), what libraries/src/test/device/libs-h200.sh
# needs on a machine without a build (no Java): DIR/libs/trace (the tracers, dist/lib/trace), DIR/libs/zlib
# (zluda's libcublas.so.13 and libcublasLt.so.13, dist/lib), DIR/libs/bin/blas_test, and copies of the
# sources the script uses (libraries/src/test/{device,cuda}, libraries/src/main/{cuda,ptx},
# libraries/gen-ptx.sh, nvidia-capture's cupti_counter.c and capture_counts.py). Then, there:
#   OUT=/some/dir bash DIR/libraries/src/test/device/libs-h200.sh DIR
# Needs a built tree (mvn package, and the libraries module's test programs:
#   make -C libraries/src/main/c BUILD=$PWD/libraries/target/native GEN=$PWD/libraries/target/generated-sources/zluda tests
# which `mvn verify` also runs; make needs the absolute paths).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="${1:-$root/.device/libs}"
rm -rf "$out"
mkdir -p "$out/libs/trace" "$out/libs/zlib" "$out/libs/bin" "$out/libraries/src/test" "$out/libraries/src/main" "$out/nvidia-capture/src/test/device"
cp "$root"/dist/lib/trace/*.so.* "$out/libs/trace/"
cp "$root"/dist/lib/libcublas.so.13 "$root"/dist/lib/libcublasLt.so.13 "$out/libs/zlib/"
cp "$root"/libraries/target/native/bin/blas_test "$out/libs/bin/"
cp -r "$root"/libraries/src/test/device "$root"/libraries/src/test/cuda "$out/libraries/src/test/"
cp -r "$root"/libraries/src/main/cuda "$root"/libraries/src/main/ptx "$out/libraries/src/main/"
cp "$root"/libraries/gen-ptx.sh "$out/libraries/"
cp "$root"/nvidia-capture/src/test/device/cupti_counter.c "$root"/nvidia-capture/src/test/device/capture_counts.py "$out/nvidia-capture/src/test/device/"
du -sh "$out"

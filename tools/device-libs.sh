#!/usr/bin/env bash
# Lays out, under .device/libs (gitignored), what libraries/src/test/device/libs-h200.sh needs on a
# machine without a build: the tracers (dist/lib/trace), zluda's libcublas.so.13 and libcublasLt.so.13
# (dist/lib) and blas_test (libraries/target/native/bin). Needs a built tree (mvn package, and the
# libraries module's tests built: make -C libraries/src/main/c ... tests, which `mvn verify` runs).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="$root/.device/libs"
rm -rf "$out"
mkdir -p "$out/trace" "$out/zlib" "$out/bin"
cp "$root"/dist/lib/trace/*.so.* "$out/trace/"
cp "$root"/dist/lib/libcublas.so.13 "$root"/dist/lib/libcublasLt.so.13 "$out/zlib/"
cp "$root"/libraries/target/native/bin/blas_test "$out/bin/"
du -sh "$out"

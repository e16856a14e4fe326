#!/usr/bin/env bash
# The toolchain check the build runs first (the root pom, phase validate): what the native parts and
# the tests need from Debian, installed when it can be, else the exact command to run.
#
#   bash tools/toolchain.sh build|test
#
# build: gcc, make and xxHash's header (the driver's entry, the capture writer, the samples).
# test:  also what `mvn verify` runs with (the same tests as CI, none skipped for a missing tool):
#        clang-22 (the spec test regenerates cuda-api.json from cuda.h), the GL/EGL/VDPAU headers
#        (the interop headers compile), llvm-22 and lld-22 (the AMD back end's tests), HIP's runtime
#        libamdhip64-5 (HipBackendTest), node and npm (DuckDB reads our Parquet in ParquetDuckDbTest).
#
# Missing packages are installed with apt-get when this runs as root on a machine with apt-get
# (a fresh Debian 12 machine or container, CI); otherwise the build stops with the apt-get command
# to run. ZLUDA_TOOLCHAIN=check never installs (it only stops with the command); ZLUDA_TOOLCHAIN=skip
# skips the check. ZLUDA_TOOLCHAIN_ROOT (tests) is a directory standing in for / when looking for
# headers and libraries.
set -euo pipefail
mode="${1:-build}"
root="${ZLUDA_TOOLCHAIN_ROOT:-}"
policy="${ZLUDA_TOOLCHAIN:-install}"
[ "$policy" = skip ] && exit 0

pkgs=()
why=()
need_cmd() { command -v "$1" >/dev/null 2>&1 || { pkgs+=("$2"); why+=("$1"); }; }
need_file() { [ -e "$root$1" ] || { pkgs+=("$2"); why+=("$1"); }; }

need_cmd gcc gcc
need_cmd make make
need_file /usr/include/xxhash.h libxxhash-dev
if [ "$mode" = test ]; then
  need_cmd clang-22 clang-22
  need_file /usr/include/GL/gl.h libgl-dev
  need_file /usr/include/EGL/egl.h libegl-dev
  need_file /usr/include/vdpau/vdpau.h libvdpau-dev
  need_cmd llc-22 llvm-22
  need_cmd ld.lld-22 lld-22
  need_file /usr/lib/x86_64-linux-gnu/libamdhip64.so.5 libamdhip64-5
  need_cmd node nodejs
  need_cmd npm npm
fi

if [ ${#pkgs[@]} -gt 0 ]; then
  # one package per name, in order
  mapfile -t pkgs < <(printf '%s\n' "${pkgs[@]}" | awk '!seen[$0]++')
  cmd="apt-get install -y --no-install-recommends ${pkgs[*]}"
  if [ "$policy" = install ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "[zluda build] toolchain: installing ${pkgs[*]} (missing: ${why[*]})"
    export DEBIAN_FRONTEND=noninteractive
    if ! { apt-get update -qq && apt-get install -y -qq --no-install-recommends "${pkgs[@]}" >/dev/null; }; then
      echo "[zluda build] toolchain: error: '$cmd' failed; run it yourself and build again" >&2
      exit 1
    fi
  else
    echo "[zluda build] toolchain: error: missing ${why[*]} (mvn $( [ "$mode" = test ] && echo verify || echo package ) needs them). Run:" >&2
    echo "  sudo apt-get update && sudo $cmd" >&2
    [ "$mode" = test ] && echo "  (only building, without the tests: mvn package -DskipTests needs fewer)" >&2
    exit 1
  fi
fi

# Not a Debian package: CUDA's toolkit. Without it, the tests that compare the spec with CUDA's cuda.h
# and build programs with nvcc say SKIPPED; say so here, not only in the tests' output.
if [ "$mode" = test ] && [ ! -f "${CUDA_HOME:-$root/usr/local/cuda}/include/cuda.h" ]; then
  echo "[zluda build] toolchain: note: no CUDA toolkit (${CUDA_HOME:-/usr/local/cuda}/include/cuda.h): the tests that need cuda.h or nvcc will say SKIPPED (README.md, Prerequisites)"
fi
exit 0

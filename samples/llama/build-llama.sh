#!/bin/bash
# Builds llama.cpp's CUDA backend for zluda and for an NVIDIA H200: test-backend-ops and llama-simple.
#
#   samples/llama/build-llama.sh SRC BUILD
#
# SRC is llama.cpp's public source (https://github.com/ggml-org/llama.cpp; export-source.sh packs the
# commit the support table was made from), BUILD a folder for the build. Needs the CUDA 13.0 toolkit
# with cuBLAS (CUDA_HOME, default /usr/local/cuda), CMake >= 3.18, ninja or make, gcc/g++.
#
# What it builds, and why:
# - CUDA architectures 86-virtual;90: compute_86 PTX, which zluda's emulator runs (zluda reports
#   compute capability 8.6 unless ZLUDA_OVERRIDE_COMPUTE_CAPABILITY says otherwise), plus sm_90
#   machine code and compute_90 PTX for the H200, so that NVIDIA's driver compiles nothing at start.
# - cudart linked statically (the source links CUDA::cudart, the shared one; the build copy's
#   ggml-cuda/CMakeLists.txt is patched to CUDA::cudart_static), so that the binaries need no
#   libcudart.so where zluda runs them; cuBLAS linked dynamically (libcublas.so.13), so that NVIDIA's
#   is used on NVIDIA's driver and zluda's stand-in (dist/lib/libcublas.so.13) on zluda's.
# - Portable to an older Linux (built on the H200 machine, run on Debian 12): GGML_NATIVE=OFF (the
#   CPU backend for AVX2/FMA/F16C, not the build machine's CPU), GGML_OPENMP=OFF (no libgomp),
#   libstdc++ and libgcc linked statically, glibc-compat.c linked into every binary (C23 strtol/scanf
#   symbols of glibc >= 2.38); the script lists any symbol still newer than glibc 2.36 / GCC 12.
# - GGML_CUDA_GRAPHS (environment, default ON: the backend captures each graph's launches into a CUDA
#   graph and replays it, as llama.cpp's releases do), GGML_CUDA_FA_ALL_QUANTS=OFF (flash attention for
#   f16/q4_0/q8_0/bf16 K/V only; llama.cpp's default), no NCCL, no OpenSSL.
# - Shared libraries (libggml*.so, libllama*.so) with $ORIGIN run paths: the whole of BUILD/bin moves
#   as one folder.
# Environment: GGML_CUDA_FA (ON, llama.cpp's default, builds the flash-attention kernels; OFF leaves
# them out, about a third of the CUDA compile time), NVCC_FLAGS (more nvcc options), EXTRA_CMAKE (more -D options), CUBLAS_LIBRARY (a libcublas.so to link instead of the toolkit's), JOBS (default: nproc), CUDA_ARCHS (default "86-virtual;90"), TARGETS (default
# "test-backend-ops llama-simple").
set -euo pipefail
src=$(cd "${1:?usage: build-llama.sh SRC BUILD}" && pwd)
build=${2:?usage: build-llama.sh SRC BUILD}
here=$(cd "$(dirname "$0")" && pwd)
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
jobs=${JOBS:-$(nproc)}
archs=${CUDA_ARCHS:-86-virtual;90}
targets=${TARGETS:-test-backend-ops llama-simple}
mkdir -p "$build"
build=$(cd "$build" && pwd)

# the build copy's patch: cudart static instead of shared (the one line that links it)
cml=$src/ggml/src/ggml-cuda/CMakeLists.txt
if grep -q 'target_link_libraries(ggml-cuda PRIVATE CUDA::cudart CUDA::cublas)' "$cml"; then
    sed -i 's/target_link_libraries(ggml-cuda PRIVATE CUDA::cudart CUDA::cublas)/target_link_libraries(ggml-cuda PRIVATE CUDA::cudart_static CUDA::cublas)/' "$cml"
    echo "patched $cml: CUDA::cudart -> CUDA::cudart_static"
elif ! grep -q 'CUDA::cudart_static CUDA::cublas)' "$cml"; then
    echo "build-llama.sh: $cml links cudart in a way this script does not know; look at it" >&2
    exit 1
fi

gcc -std=c11 -O2 -fPIC -Wall -c "$here/glibc-compat.c" -o "$build/glibc-compat.o"
compat=$build/glibc-compat.o

gen=()
command -v ninja > /dev/null && gen=(-G Ninja)
# cuBLAS: the toolkit's, else the nvidia-cublas Python wheel's (headers and library)
extra=()
cuda_flags=${NVCC_FLAGS:-}
if [ -n "${CUBLAS_LIBRARY:-}" ]; then
    extra=(-DCUDA_cublas_LIBRARY="$CUBLAS_LIBRARY")
elif ! ls "$CUDA_HOME"/lib64/libcublas.so* "$CUDA_HOME"/targets/x86_64-linux/lib/libcublas.so* > /dev/null 2>&1; then
    wheel=$(python3 -c 'import nvidia.cublas, os; print(os.path.dirname(nvidia.cublas.__file__))' 2>/dev/null || true)
    [ -n "$wheel" ] || { echo "build-llama.sh: no cuBLAS in $CUDA_HOME and no nvidia-cublas wheel" >&2; exit 1; }
    lib=$(ls "$wheel"/lib/libcublas.so* | head -1)
    echo "cuBLAS from the wheel: $lib"
    extra=(-DCUDA_cublas_LIBRARY="$lib" -DCMAKE_CXX_FLAGS="-I$wheel/include")
    cuda_flags="$cuda_flags -I$wheel/include"
fi

# shellcheck disable=SC2086
cmake -S "$src" -B "$build" "${gen[@]}" \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CUDA_COMPILER="$CUDA_HOME/bin/nvcc" \
    -DGGML_CUDA=ON \
    -DCMAKE_CUDA_ARCHITECTURES="$archs" \
    -DCMAKE_CUDA_RUNTIME_LIBRARY=Static \
    -DGGML_CUDA_GRAPHS="${GGML_CUDA_GRAPHS:-ON}" \
    -DGGML_CUDA_FA="${GGML_CUDA_FA:-ON}" \
    -DGGML_CUDA_FA_ALL_QUANTS=OFF \
    -DCMAKE_CUDA_FLAGS="$cuda_flags" \
    -DGGML_CUDA_NCCL=OFF \
    -DGGML_NATIVE=OFF \
    -DGGML_OPENMP=OFF \
    -DGGML_CCACHE=OFF \
    -DBUILD_SHARED_LIBS=ON \
    -DCMAKE_BUILD_RPATH_USE_ORIGIN=ON \
    -DLLAMA_BUILD_TESTS=ON -DLLAMA_BUILD_EXAMPLES=ON -DLLAMA_BUILD_TOOLS=OFF -DLLAMA_BUILD_SERVER=OFF \
    -DLLAMA_BUILD_APP=OFF -DLLAMA_BUILD_UI=OFF -DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_OPENSSL=OFF \
    -DCMAKE_C_STANDARD_LIBRARIES="$compat" \
    -DCMAKE_CXX_STANDARD_LIBRARIES="$compat" \
    -DCMAKE_CUDA_STANDARD_LIBRARIES="$compat" \
    -DCMAKE_EXE_LINKER_FLAGS="-static-libstdc++ -static-libgcc" \
    -DCMAKE_SHARED_LINKER_FLAGS="-static-libstdc++ -static-libgcc" \
    "${extra[@]}" ${EXTRA_CMAKE:-}

# shellcheck disable=SC2086
cmake --build "$build" -j "$jobs" --target $targets

echo "== built"
ls -la "$build/bin"
echo "== symbols newer than glibc 2.36 / GCC 12's libstdc++ (none expected; any would stop the binaries on Debian 12)"
for f in "$build"/bin/*; do
    [ -f "$f" ] && [ "$(head -c4 "$f" | tail -c3)" = ELF ] || continue
    objdump -T "$f" | grep -E 'GLIBC_2\.(3[7-9]|[4-9][0-9])|GLIBCXX_3\.4\.(3[1-9])|CXXABI_1\.3\.1[4-9]' | sed "s|^|$(basename "$f"): |" || true
done
echo "== needed libraries"
for f in "$build"/bin/*; do
    [ -f "$f" ] && [ "$(head -c4 "$f" | tail -c3)" = ELF ] || continue
    echo "$(basename "$f"): $(readelf -d "$f" | grep -E 'NEEDED|RUNPATH' | sed 's/.*\[\(.*\)\]/\1/' | tr '\n' ' ')"
done

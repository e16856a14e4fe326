#!/bin/sh
# Regenerates the library API specs (api-spec/src/main/resources/dev/zluda/spec/<library>-api.json:
# cublas, cublasLt, cufft, cusparse, cudnn, nvml) from NVIDIA's headers with clang's JSON AST dump,
# as gen-spec.sh does for the driver (SPEC.md, "Library specs"). Needs clang-22 and the headers:
#   api-spec/gen-library-specs.sh INCLUDE_DIRS [LIBRARY...]
# INCLUDE_DIRS is ':'-separated and must hold the libraries' headers (cublas_api.h, cublasLt.h,
# cufft.h, cufftXt.h, cudalibxt.h, cusparse.h, cudnn*.h, nvml.h) and CUDA's (cuda_runtime_api.h, library_types.h, cuda_fp16.h),
# e.g. /usr/local/cuda/include:/usr/include/x86_64-linux-gnu. A library whose first header is not
# found is skipped with a message. The headers are NVIDIA's: only the generated JSON is committed.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
[ $# -ge 1 ] || { echo "usage: $0 INCLUDE_DIRS [LIBRARY...]" >&2; exit 2; }
inc=$1; shift
libs=${*:-cublas cublasLt cufft cusparse cudnn nvml}
cd "$here/.."
. "$here/classpath.sh"
for lib in $libs; do
  "${JAVA_HOME:+$JAVA_HOME/bin/}java" -cp "$cp" dev.zluda.spec.gen.SpecGenerator \
    --library "$lib" "$inc" "api-spec/src/main/resources/dev/zluda/spec/$lib-api.json" "${CLANG:-clang-22}" || echo "$lib: skipped"
done

#!/bin/sh
# Regenerates api-spec/src/main/resources/dev/zluda/spec/cuda-api.json from CUDA's headers
# with clang's JSON AST dump. Needs clang-22 (Debian: apt-get install clang-22) and the CUDA toolkit.
# Usage: api-spec/gen-spec.sh [CUDA_INCLUDE_DIR]   (default /usr/local/cuda/include)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
inc=${1:-/usr/local/cuda/include}
cd "$here/.."
. "$here/classpath.sh"
exec "${JAVA_HOME:+$JAVA_HOME/bin/}java" -cp "$cp" dev.zluda.spec.gen.SpecGenerator \
  "$inc" api-spec/src/main/resources/dev/zluda/spec/cuda-api.json "${CLANG:-clang-22}"

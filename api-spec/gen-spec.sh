#!/bin/sh
# Regenerates trace-format/src/main/resources/dev/zluda/spec/cuda-api.json from CUDA's headers
# with clang's JSON AST dump. Needs clang-22 (Debian: apt-get install clang-22) and the CUDA toolkit.
# Usage: trace-format/gen-spec.sh [CUDA_INCLUDE_DIR]   (default /usr/local/cuda/include)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
inc=${1:-/usr/local/cuda/include}
cd "$here/.."
mvn -q -B -pl trace-format -am -DskipTests package
cp=$(cat trace-format/target/classpath.txt 2>/dev/null || true)
if [ -z "$cp" ]; then
  mvn -q -B -pl trace-format dependency:build-classpath -Dmdep.outputFile=target/classpath.txt
  cp=$(cat trace-format/target/classpath.txt)
fi
exec "${JAVA_HOME:+$JAVA_HOME/bin/}java" -cp "trace-format/target/classes:$cp" dev.zluda.spec.gen.SpecGenerator \
  "$inc" trace-format/src/main/resources/dev/zluda/spec/cuda-api.json "${CLANG:-clang-22}"

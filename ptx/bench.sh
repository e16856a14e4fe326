#!/usr/bin/env bash
# Runs the ptx module's JMH benchmarks. Usage: ptx/bench.sh [JMH options, e.g. -p sizeMb=10]
set -euo pipefail
cd "$(dirname "$0")"
mvn -B -q -f pom.xml test-compile dependency:build-classpath -Dmdep.outputFile=target/bench.cp -Dmdep.includeScope=test
exec java -cp "target/test-classes:target/classes:$(cat target/bench.cp)" org.openjdk.jmh.Main dev.zluda.ptx.bench "$@"

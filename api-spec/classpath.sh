# Sourced (from the repository root) by gen-spec.sh and gen-library-specs.sh: builds api-spec and sets
# $cp to the class path its generator runs with (its classes, then its dependencies' jars).
mvn -q -B -pl api-spec -am -DskipTests package
cp=$(cat api-spec/target/classpath.txt 2>/dev/null || true)
if [ -z "$cp" ]; then
  mvn -q -B -pl api-spec dependency:build-classpath -Dmdep.outputFile=target/classpath.txt
  cp=$(cat api-spec/target/classpath.txt)
fi
cp="api-spec/target/classes:$cp"

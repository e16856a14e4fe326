#!/usr/bin/env bash
# Lays out a slim Java runtime plus the project's command-line jars under .device/java/ (a
# gitignored folder) so that `zluda` commands can run on a machine without Java, such as the
# NVIDIA H200 machine used for reference recordings and replays. It also writes the folder as one
# archive, .device/java.tar.xz (about 37 MiB), to carry there and unpack:
#   tar -xJf .device/java.tar.xz -C /tmp && /tmp/java/bin/zluda <command> ...
# Needs a built tree (mvn package) and JDK 25 (JAVA_HOME).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
: "${JAVA_HOME:=/usr/lib/jvm/temurin-25-jdk-amd64}"
out="$root/.device/java"
lib="$root/dist/lib"
[[ -f "$lib/cli-0.1.0-SNAPSHOT.jar" ]] || { echo "device-java: $lib has no cli jar; run 'mvn -B -ntp package -DskipTests' first" >&2; exit 2; }
rm -rf "$out"
mkdir -p "$out/lib"
# The GUI (JavaFX, viewer) stays behind: the device machine has no display to show it on.
for j in "$lib"/*.jar; do
  case "$(basename "$j")" in javafx-*) ;; *) cp "$j" "$out/lib/" ;; esac
done
# zstd-jni carries its native library for every platform; the device machine is linux/amd64.
for z in "$out"/lib/zstd-jni-*.jar; do
  [[ -f "$z" ]] || continue
  (cd "$(mktemp -d)" && unzip -q "$z" && find . -name 'libzstd-jni*' ! -path './linux/amd64/*' -delete \
    && rm "$z" && zip -q -r -X "$z" .)
done
cp "$lib/libcuda.so.1" "$out/lib/" 2>/dev/null || true
[[ -d "$lib/trace" ]] && cp -r "$lib/trace" "$out/lib/"
mods="$("$JAVA_HOME/bin/jdeps" --ignore-missing-deps --multi-release 25 --print-module-deps "$out"/lib/*.jar | tail -1)"
# java.desktop (java.beans, for YAML/JSON bean introspection) and java.scripting are named by jdeps
# but never reached by the command-line paths; leaving them out halves the runtime.
mods="$(echo "$mods" | tr , '\n' | grep -v -x -e java.desktop -e java.scripting | paste -sd,)"
"$JAVA_HOME/bin/jlink" --add-modules "$mods,jdk.zipfs" --strip-debug --no-header-files --no-man-pages \
  --compress zip-9 --output "$out/jre"
strip --strip-unneeded "$out/jre/lib/server/libjvm.so" 2>/dev/null || true
mkdir -p "$out/bin"
cat > "$out/bin/zluda" <<'SH'
#!/usr/bin/env bash
# zluda on a machine without Java: the runtime and jars beside this script.
here="$(cd "$(dirname "$0")/.." && pwd)"
exec "$here/jre/bin/java" --sun-misc-unsafe-memory-access=allow --enable-native-access=ALL-UNNAMED \
  ${ZLUDA_JVM_OPTS:-} -Dzluda.home="$here" -cp "$here/lib/*" dev.zluda.cli.Main "$@"
SH
chmod +x "$out/bin/zluda"
echo "device-java: $(du -sh "$out" | cut -f1) in $out (runtime modules: $mods)"
# One compressed file to carry (the device call's working tree is limited to 64 MiB); there:
#   tar -xJf .device/java.tar.xz -C /tmp && /tmp/java/bin/zluda ...
tar -C "$root/.device" -cJf "$root/.device/java.tar.xz" java
echo "device-java: carry .device/java.tar.xz ($(du -sh "$root/.device/java.tar.xz" | cut -f1))"

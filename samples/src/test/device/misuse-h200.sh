#!/bin/sh
# Records the driver API misuse suite (samples/src/main/c/misuse.c) on NVIDIA's driver, on a machine
# with gcc and NVIDIA's libcuda.so.1 (no Java, no CUDA toolkit needed). DIR holds copies of
# misuse.c, ptx_embed.S, fatbin_embed.S (samples/src/main/c), misuse.ptx (src/main/ptx),
# misuse.fatbin (src/main/fatbin) and zluda's generated cuda.h as include/cuda.h
# (samples/target/include after the Maven build).
#
#   OUT=<results directory> sh misuse-h200.sh DIR
#
# Writes to $OUT:
#   misuse-nvidia.txt             the suite's table, every case in its own process, JOBS (16) at a time
#   misuse-nvidia-sequential.txt  the same cases one after another in one process (a new one after a
#                                 crash), in the time left of DEADLINE: shows what cases do to each other
#   misuse-nvidia.err, misuse-nvidia-sequential.err   the driver's stderr
#   gpu.txt                       GPU, driver, kernel, exit status and seconds of each run
set -u
DIR=$(cd "${1:-.}" && pwd)
OUT=${OUT:-.}
B=${BUILD:-/tmp/misuse-build}
DEADLINE=${DEADLINE:-50}
mkdir -p "$B" "$OUT"
ulimit -c 0
CFLAGS="-O2 -g -std=c11 -Wall -Wextra -I$DIR/include"
gcc $CFLAGS -c -o "$B/misuse.o" "$DIR/misuse.c" || exit 1
gcc -c -DPTX_FILE="\"$DIR/misuse.ptx\"" -o "$B/misuse_ptx.o" "$DIR/ptx_embed.S" || exit 1
gcc -c -DFATBIN_FILE="\"$DIR/misuse.fatbin\"" -DFATBIN_SYM=misuse_fatbin -DFATBIN_SIZE_SYM=misuse_fatbin_size \
    -o "$B/misuse_fatbin.o" "$DIR/fatbin_embed.S" || exit 1
# a link-time stand-in for libcuda.so (soname libcuda.so.1); at run time the loader finds NVIDIA's
nm -u "$B/misuse.o" | awk '$1 == "U" && $2 ~ /^cu/ { print "void " $2 "(void) {}" }' > "$B/stub.c"
gcc -shared -fPIC -Wl,-soname,libcuda.so.1 -o "$B/libcuda.so" "$B/stub.c" || exit 1
gcc -o "$B/misuse" "$B/misuse.o" "$B/misuse_ptx.o" "$B/misuse_fatbin.o" -L"$B" -lcuda || exit 1
nvidia-smi --query-gpu=name,driver_version,persistence_mode --format=csv,noheader > "$OUT/gpu.txt" 2>&1
uname -r >> "$OUT/gpu.txt"
cd "$B" || exit 1
t0=$(date +%s)
./misuse --isolate -j "${JOBS:-16}" --timeout 10 --deadline "$DEADLINE" > "$OUT/misuse-nvidia.txt" 2> "$OUT/misuse-nvidia.err"
rc=$?
t1=$(date +%s)
echo "misuse --isolate -j ${JOBS:-16}: exit $rc after $((t1 - t0)) s" >> "$OUT/gpu.txt"
left=$((DEADLINE - (t1 - t0)))
if [ "$left" -gt 3 ]; then
    ./misuse --timeout 10 --deadline "$left" > "$OUT/misuse-nvidia-sequential.txt" 2> "$OUT/misuse-nvidia-sequential.err"
    rc=$?
    echo "misuse (sequential): exit $rc after $(($(date +%s) - t1)) s" >> "$OUT/gpu.txt"
fi
exit 0

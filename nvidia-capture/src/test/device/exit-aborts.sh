#!/bin/bash
# Exit-time aborts of traced programs on a machine with an NVIDIA GPU (no Java needed). Builds the tracer
# and cudart_demo (nvcc, static cudart), logs the exit-handler order of one untraced and one traced run
# (exit_log.c: every __cxa_atexit registration and dlopen, then the order the handlers run in), then runs
# cudart_demo N times untraced and N times traced, interleaved, P at a time, for at most LOOP_S seconds,
# and counts the runs that exited non-zero and those that printed "pure virtual method called", with a
# backtrace of each abort. Writes summary.txt, res.txt (variant, run, exit code, pure-virtual lines, ms),
# fail.txt (stderr of the failing runs) and captures.tar.xz (the two single runs' captures) to $OUT.
#
# Usage, from a directory D laid out as for run-h200.sh (nvidia-capture/src, recorder-native/src/main/c,
# gen/trace_wrappers.c, include/xxhash.h):   OUT=/some/dir N=200 P=12 LOOP_S=120 bash D/nvidia-capture/src/test/device/exit-aborts.sh D
set -u
D=$(cd "${1:-.}" && pwd)
OUT=${OUT:-/tmp/out}; N=${N:-200}; P=${P:-12}; LOOP_S=${LOOP_S:-120}
B=/tmp/ea-build; W=/tmp/ea-work; rm -rf $B $W; mkdir -p $B $W "$OUT"
CUDA=${CUDA_HOME:-/usr/local/cuda}
T0=$(date +%s)
# (no bare `wait` below: since bash 5.1 it also waits for this process substitution, which never ends)
exec > >(tee "$OUT/summary.txt") 2>&1
nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; ldd --version | head -1
make -s -C "$D/nvidia-capture/src/main/c" BUILD=$B GEN="$D/gen" REPO="$D" CFLAGS="-O2 -g -std=gnu11 -Wall -I$D/include" "$B/trace/libcuda.so.1" &
mk=$!
gcc -O1 -g -shared -fPIC -o $B/exit_log.so "$D/nvidia-capture/src/test/device/exit_log.c" -ldl
gcc -O1 -g -shared -fPIC -DABRT_ONLY -o $B/abrt_bt.so "$D/nvidia-capture/src/test/device/exit_log.c" -ldl
$CUDA/bin/nvcc -O2 -o $B/cudart_demo "$D/nvidia-capture/src/test/device/cudart_demo.cu"
wait $mk
ls $B/trace/libcuda.so.1 $B/cudart_demo || exit 1
echo "built in $(( $(date +%s) - T0 )) s"
for v in untraced traced; do
    echo "=== exit-handler order: $v"
    mkdir -p $W/one/$v; cd $W/one/$v
    if [ $v = untraced ]; then timeout 30 env LD_PRELOAD=$B/exit_log.so $B/cudart_demo 4096 > out 2> err; rc=$?
    else timeout 30 env LD_PRELOAD=$B/exit_log.so LD_LIBRARY_PATH=$B/trace ZLUDA_LOG_DIR=$W/one/$v/logs $B/cudart_demo 4096 > out 2> err; rc=$?; fi
    grep -v "libstdc++" err; cat out; echo "exit code $rc"
done
(cd $W/one && tar -cJf "$OUT/captures.tar.xz" traced/logs)
echo "=== loops from $(( $(date +%s) - T0 )) s: N=$N per variant, $P at a time, at most $LOOP_S s"
one() {
    local v=$1 i=$2 d=$W/l/$1/$2 rc t
    mkdir -p $d; cd $d; t=$(date +%s%N)
    if [ $v = untraced ]; then timeout 60 env LD_PRELOAD=$B/abrt_bt.so $B/cudart_demo 4096 > out 2> err; rc=$?
    else timeout 60 env LD_PRELOAD=$B/abrt_bt.so LD_LIBRARY_PATH=$B/trace ZLUDA_LOG_DIR=$d/logs $B/cudart_demo 4096 > out 2> err; rc=$?; fi
    echo "$v $i $rc $(grep -c 'pure virtual' err) $(( ($(date +%s%N) - t) / 1000000 ))" >> $W/res.txt
    if [ $rc -ne 0 ] || [ -s err ]; then { echo "--- $v #$i exit code $rc"; cat err; tail -2 out; } >> $W/fail.txt; fi
    cd /; rm -rf $d
}
export -f one; export W B
for i in $(seq 1 $N); do echo "traced $i"; echo "untraced $i"; done | timeout $LOOP_S xargs -P $P -n 2 bash -c 'one "$0" "$1"'
sleep 2
echo "=== loops end at $(( $(date +%s) - T0 )) s"
cp $W/res.txt "$OUT/res.txt"; [ -f $W/fail.txt ] && cp $W/fail.txt "$OUT/fail.txt"
for v in traced untraced; do
    awk -v v=$v '$1 == v {n++; if ($3 != 0) bad++; if ($4 > 0) pv++; ms += $5}
        END {printf "%-9s %d runs, %d exited non-zero, %d printed \"pure virtual method called\", %.0f ms each on average\n", v, n, bad, pv, n ? ms / n : 0}' $W/res.txt
done

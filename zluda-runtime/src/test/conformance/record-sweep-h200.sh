#!/bin/bash
# usage: OUT=dir record-sweep-h200.sh EXPORT_TAR [SHARDS]
# Records the instruction sweep on the GPU of this machine: EXPORT_TAR is the tar (gzip or xz) of the directory
# SweepExport wrote (classes.txt, forms.txt, ptx/, llvm/, amd/); sweep_harness.c lies beside this script.
# Runs SHARDS harness processes at once (default: the number of cores less 2, at most 14), all done within
# SHARD_TIMEOUT seconds (default 540); a form that runs for more than 30 s is recorded as a timeout and its shard
# goes on with the next form. Results (compressed) under $OUT:
# meta.txt (GPU, driver, timings, logs), results.tar.xz (results.tsv, differ.txt, blocks.bin), raw.xz.part-* (raw outputs).
set -u
here=$(cd "$(dirname "$0")" && pwd)
W=/tmp/sweep; rm -rf $W; mkdir -p $W/res
tar -xf "$1" -C $W
D=$(dirname "$(find $W -maxdepth 3 -name classes.txt | head -1)")
N=${2:-$(( $(nproc) > 16 ? 14 : $(nproc) - 2 ))}
CUDA=${CUDA_HOME:-/usr/local/cuda}
M=$OUT/meta.txt
gcc -O2 -o $W/harness $here/sweep_harness.c -I$CUDA/include -lcuda 2>>$M || \
  gcc -O2 -o $W/harness $here/sweep_harness.c -I$CUDA/include -L$CUDA/lib64/stubs -lcuda 2>>$M
nvidia-smi --query-gpu=name,driver_version,vbios_version,clocks.max.sm --format=csv >> $M 2>&1
start=$(date +%s)
shard() {
  local s=$1 from=0
  while :; do
    timeout ${SHARD_TIMEOUT:-540} $W/harness $D $W/res $s $N $from >> $W/res/log-$s.txt 2>&1
    rc=$?
    if grep -q '^done' $W/res/progress-$s.txt 2>/dev/null; then break; fi
    local cur=$(cat $W/res/progress-$s.txt 2>/dev/null || echo -1)
    if [ "$cur" = "-1" ] || [ "$cur" -lt "$from" ]; then echo "shard $s: harness failed (rc $rc)" >> $W/res/log-$s.txt; break; fi
    if [ $(( $(date +%s) - start )) -ge ${SHARD_TIMEOUT:-540} ]; then echo "shard $s: out of time at form $cur" >> $W/res/log-$s.txt; break; fi
    printf '%s\ttimeout-or-crash:rc%s\t0\t0\t-\t-1\t0\t-\t-1\t0\t-1\n' "$cur" "$rc" >> $W/res/results-$s.tsv
    from=$((cur + 1))
  done
}
for s in $(seq 0 $((N - 1))); do shard $s & done
wait
echo "elapsed $(( $(date +%s) - start )) s, $N shards" >> $M
cat $W/res/log-*.txt >> $M 2>/dev/null
cat $W/res/results-*.tsv > $W/res/results.tsv
cat $W/res/differ-*.txt > $W/res/differ.txt
cat $W/res/blocks-*.bin > $W/res/blocks.bin
cat $W/res/raw-*.bin > $W/res/raw.bin
(cd $W/res && tar -cf - results.tsv differ.txt blocks.bin info.txt | xz -6 -T0 > $OUT/results.tar.xz) || \
  (cd $W/res && tar -czf $OUT/results.tar.gz results.tsv differ.txt blocks.bin info.txt)
# raw outputs, in pieces of at most 15 MiB compressed
(cd $W/res && xz -6 -T0 -c raw.bin | split -b 15M - $OUT/raw.xz.part-) || (cd $W/res && gzip -c raw.bin | split -b 15M - $OUT/raw.gz.part-)
wc -l $W/res/results.tsv >> $M
ls -la $OUT

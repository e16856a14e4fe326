#!/bin/bash
# usage: OUT=dir record-h200.sh  (next to it: conformance_harness.c and exp.tar.gz, the tar of the exported directory isa-exp)
# Records the conformance suite on the GPU of this machine; results under $OUT.
set -u
here=$(cd "$(dirname "$0")" && pwd)
W=/tmp/conf; rm -rf $W; mkdir -p $W
tar -xzf $here/exp.tar.gz -C $W
CUDA=${CUDA_HOME:-/usr/local/cuda}
gcc -O2 -o $W/harness $here/conformance_harness.c -I$CUDA/include -lcuda 2>$OUT/gcc.txt || \
  gcc -O2 -o $W/harness $here/conformance_harness.c -I$CUDA/include -L$CUDA/lib64/stubs -lcuda 2>>$OUT/gcc.txt
nvidia-smi --query-gpu=name,driver_version,vbios_version --format=csv > $OUT/smi.txt 2>&1
time $W/harness $W/isa-exp > $OUT/harness.txt 2>&1
echo "rc=$?" >> $OUT/harness.txt
cp $W/isa-exp/status.txt $W/isa-exp/info.txt $OUT/ 2>/dev/null
gzip -c $W/isa-exp/out.bin > $OUT/out.bin.gz
ls -la $OUT

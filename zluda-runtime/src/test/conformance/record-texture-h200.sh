#!/bin/bash
# usage: OUT=dir record-texture-h200.sh  (next to it: texture_harness.c and tex-exp.tar.gz, the tar of the
# directory `TextureCases DIR` exported as tex-exp)
# Records the texture/surface/launch-state conformance cases on the GPU of this machine; results under $OUT.
set -u
here=$(cd "$(dirname "$0")" && pwd)
W=/tmp/texconf; rm -rf $W; mkdir -p $W
tar -xzf $here/tex-exp.tar.gz -C $W
CUDA=${CUDA_HOME:-/usr/local/cuda}
gcc -O2 -o $W/harness $here/texture_harness.c -I$CUDA/include -lcuda 2>$OUT/gcc.txt || \
  gcc -O2 -o $W/harness $here/texture_harness.c -I$CUDA/include -L$CUDA/lib64/stubs -lcuda 2>>$OUT/gcc.txt
nvidia-smi --query-gpu=name,driver_version,vbios_version --format=csv > $OUT/smi.txt 2>&1
time $W/harness $W/tex-exp > $OUT/harness.txt 2>&1
echo "rc=$?" >> $OUT/harness.txt
cp $W/tex-exp/status.txt $W/tex-exp/info.txt $W/tex-exp/crc.txt $OUT/ 2>/dev/null
gzip -c $W/tex-exp/out.bin > $OUT/out.bin.gz
ls -la $OUT

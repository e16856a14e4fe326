#!/usr/bin/env bash
# Runs zluda's PTX front end over the PTX real programs ship, on the NVIDIA H200 machine (nothing of it
# is committed; only the report comes back): the PTX embedded in PyTorch's, CuPy's and NVIDIA's
# libraries of the machine's Python (cuobjdump -xptx; CuPy's cub/thrust modules among them) and the
# PTX Triton writes (triton_kernels.py, also torch.compile). The PTX CuPy's NVRTC writes at run time
# is in the committed capture samples/traces/h200/cupy_kernels.zip (checked here, not there).
# Needs the slim runtime from tools/device-java.sh carried as .device/java.tar.xz.
#   bash ptx/src/test/device/corpus-h200.sh            (from the repository root; writes to $OUT)
set -u
root="$(cd "$(dirname "$0")/../../../.." && pwd)"
out="${OUT:-/tmp/corpus-out}"; mkdir -p "$out"
tar -xJf "$root/.device/java.tar.xz" -C /tmp
Z=/tmp/java/bin/zluda
export ZLUDA_JVM_OPTS="-Xmx24g"
C=/tmp/ptx-corpus; rm -rf "$C"; mkdir -p "$C"/{libs,triton}
PATH=/usr/local/cuda/bin:$PATH
sp="$(python3 -c 'import site; print(site.getsitepackages()[0])')"
{
  echo "machine: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
  echo "cuobjdump: $(cuobjdump --version | tail -1)"
  python3 -c 'import torch, cupy; print("torch", torch.__version__, "cupy", cupy.__version__)'
} > "$out/corpus-env.txt" 2>&1

# 1. PTX embedded in the libraries (fatbins); each library bounded to 3 minutes
t0=$SECONDS
for lib in $(find "$sp"/torch/lib "$sp"/cupy* "$sp"/cupy_backends "$sp"/nvidia -name '*.so*' -type f -size +64k 2>/dev/null | sort); do
  [[ $((SECONDS - t0)) -gt 150 ]] && { echo "libs: stopped after 150 s at $lib" >> "$out/corpus-env.txt"; break; }
  n=$(timeout 60 cuobjdump -lptx "$lib" 2>/dev/null | grep -c 'PTX file')
  [[ "$n" -gt 0 ]] || continue
  d="$C/libs/$(basename "$lib")"; mkdir -p "$d"
  (cd "$d" && timeout 180 cuobjdump -xptx all "$lib" >/dev/null 2>&1)
  echo "$(basename "$lib"): $n PTX entries, $(du -sb "$d" | cut -f1) bytes" >> "$out/corpus-libs.txt"
done

# 2. Triton's PTX
TRITON_CACHE_DIR=/tmp/triton-cache timeout 240 python3 "$root/ptx/src/test/device/triton_kernels.py" > "$out/corpus-triton-run.txt" 2>&1
find /tmp/triton-cache -name '*.ptx' -exec cp {} "$C/triton/" \; 2>/dev/null

# 3. zluda ptx check over each part
for part in libs triton; do
  {
    echo "== $part: $(find "$C/$part" -name '*.ptx' | wc -l) files, $(du -sb "$C/$part" | cut -f1) bytes"
    timeout 300 "$Z" ptx check --summary "$C/$part"; echo "exit: $?"
  } > "$out/corpus-check-$part.txt" 2>&1
done
ls -la "$out"

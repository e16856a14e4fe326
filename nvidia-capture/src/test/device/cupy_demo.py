"""cupy_demo.py: a CuPy program for tracing on an NVIDIA GPU: elementwise, reduction, matmul (cuBLAS),
a RawKernel, host transfers; checks against NumPy and prints PASS."""
import cupy as cp
import numpy as np

a = np.arange(1 << 16, dtype=np.float32)
da = cp.asarray(a)
db = da * 2 + 1
s = float(db.sum())
m = cp.random.default_rng(0).standard_normal((256, 256), dtype=cp.float32)
mm = m @ m
k = cp.RawKernel(r'''extern "C" __global__ void twice(float *x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] *= 2.0f; }''', "twice")
k(((1 << 16) // 256,), (256,), (db, cp.int32(1 << 16)))
back = cp.asnumpy(db)
ok = np.allclose(back, (a * 2 + 1) * 2) and abs(s - float((a * 2 + 1).sum())) < 1e3 and bool(cp.allclose(mm, cp.asarray(cp.asnumpy(m) @ cp.asnumpy(m)), atol=1e-2))
print(f"cupy_demo: sum {s:.0f}, matmul {mm.shape}, {'PASS' if ok else 'FAIL'}")

"""cupy_kernels.py: CuPy kernels for replay on the emulator: each kernel CuPy compiles itself (NVRTC, PTX with
CUPY_COMPILE_WITH_PTX=1, no CUB with CUPY_ACCELERATORS=""), checked against NumPy."""
import cupy as cp
import numpy as np

rng = np.random.default_rng(1234)
a = rng.standard_normal(1 << 14).astype(np.float32)
b = rng.standard_normal(1 << 14).astype(np.float32)
da, db = cp.asarray(a), cp.asarray(b)
checks = {}
checks["axpb"] = np.allclose(cp.asnumpy(da * 2 + db), a * 2 + b)
checks["exp_sin"] = np.allclose(cp.asnumpy(cp.exp(da) * cp.sin(db)), np.exp(a) * np.sin(b), rtol=1e-5, atol=1e-6)
checks["sum"] = abs(float(da.sum()) - float(a.astype(np.float64).sum())) < 1e-2
checks["max"] = float(da.max()) == float(a.max())
checks["argmax"] = int(da.argmax()) == int(a.argmax())
checks["cumsum"] = np.allclose(cp.asnumpy(cp.cumsum(da)), np.cumsum(a), rtol=1e-3, atol=1e-2)
checks["where"] = np.array_equal(cp.asnumpy(cp.where(da > 0, da, db)), np.where(a > 0, a, b))
ai = rng.integers(-1000, 1000, 1 << 14).astype(np.int32)
dai = cp.asarray(ai)
checks["int_ops"] = np.array_equal(cp.asnumpy((dai * 7) % 13 + (dai >> 2)), (ai * 7) % 13 + (ai >> 2))
k = cp.RawKernel(r'''extern "C" __global__ void saxpy(float a, const float *x, float *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = a * x[i] + y[i]; }''', "saxpy")
y = db.copy()
k(((1 << 14) // 256,), (256,), (cp.float32(3.0), da, y, cp.int32(1 << 14)))
yh = cp.asnumpy(y)
# nvcc/NVRTC contract a * x + y into one fma (one rounding): the reference is the exact product and
# sum in float64 rounded once to float32 (the product of two floats is exact in float64)
want = (np.float64(3.0) * a.astype(np.float64) + b.astype(np.float64)).astype(np.float32)
checks["raw_saxpy"] = bool(np.all(np.abs(yh.view(np.int32).astype(np.int64) - want.view(np.int32).astype(np.int64)) <= 1))
m = cp.asarray(rng.standard_normal((64, 48)).astype(np.float32))
checks["transpose_copy"] = np.array_equal(cp.asnumpy(cp.ascontiguousarray(m.T)), cp.asnumpy(m).T)
cp.cuda.Device().synchronize()
bad = [n for n, ok in checks.items() if not ok]
print("cupy_kernels:", "PASS" if not bad else "FAIL " + ",".join(bad), f"({len(checks)} checks)")

"""cupy_libs.py: a small CuPy program whose work goes through NVIDIA's libraries, for recording with the
library tracers on an NVIDIA GPU (libs-h200.sh, step cupy): an fp32 and an fp64 matmul (cuBLAS), a
complex and a real FFT (cuFFT's cufftPlanMany/cufftExec*), a matrix-vector product and an elementwise
kernel of CuPy's own. Each result is checked against NumPy; prints PASS when all agree."""
import cupy as cp
import numpy as np

print("cupy", cp.__version__, "cuda runtime", cp.cuda.runtime.runtimeGetVersion())
rng = np.random.default_rng(0)
ok = True


def close(name, got, ref, tol):
    global ok
    err = float(np.abs(cp.asnumpy(got).astype(np.complex128) - ref).max())
    good = err <= tol
    ok &= good
    print(f"{name}: max |error| {err:.3g} (allowed {tol:g}) {'ok' if good else 'WRONG'}")


a = rng.standard_normal((256, 256)).astype(np.float32)
b = rng.standard_normal((256, 256)).astype(np.float32)
close("matmul fp32 256x256x256", cp.asarray(a) @ cp.asarray(b), a.astype(np.float64) @ b, 1e-3)
close("matmul fp64 128x128x128", cp.asarray(a[:128, :128].astype(np.float64)) @ cp.asarray(b[:128, :128].astype(np.float64)),
      a[:128, :128].astype(np.float64) @ b[:128, :128], 1e-9)
v = rng.standard_normal(256).astype(np.float32)
close("matvec fp32 256x256", cp.asarray(a) @ cp.asarray(v), a.astype(np.float64) @ v, 1e-3)
x = (rng.standard_normal(4096) + 1j * rng.standard_normal(4096)).astype(np.complex64)
close("fft c2c 4096", cp.fft.fft(cp.asarray(x)), np.fft.fft(x.astype(np.complex128)), 1e-2)
s = rng.standard_normal(4096).astype(np.float32)
close("rfft 4096", cp.fft.rfft(cp.asarray(s)), np.fft.rfft(s.astype(np.float64)), 1e-2)
close("elementwise 2x+1", cp.asarray(s) * 2 + 1, s.astype(np.float64) * 2 + 1, 1e-5)
cp.cuda.Device().synchronize()
print("PASS" if ok else "FAIL")

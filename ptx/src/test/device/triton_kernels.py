"""triton_kernels.py: a few Triton kernels (elementwise, softmax, layer norm, matmul with tl.dot) and a
small network through torch.compile (Inductor writes Triton kernels), run on the GPU so that Triton
writes their PTX into TRITON_CACHE_DIR. Prints what ran and whether each matched PyTorch."""
import sys
import torch

try:
    import triton
    import triton.language as tl
except ImportError as e:
    print("triton: not installed:", e)
    sys.exit(0)
print("triton", triton.__version__, "torch", torch.__version__)


@triton.jit
def add_kernel(x, y, out, n, BLOCK: tl.constexpr):
    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = o < n
    tl.store(out + o, tl.load(x + o, mask=m) + tl.load(y + o, mask=m), mask=m)


@triton.jit
def softmax_kernel(x, out, stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    c = tl.arange(0, BLOCK)
    v = tl.load(x + row * stride + c, mask=c < n_cols, other=-float("inf"))
    v = v - tl.max(v, axis=0)
    e = tl.exp(v)
    tl.store(out + row * stride + c, e / tl.sum(e, axis=0), mask=c < n_cols)


@triton.jit
def layernorm_kernel(x, w, b, out, stride, n, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    c = tl.arange(0, BLOCK)
    m = c < n
    v = tl.load(x + row * stride + c, mask=m, other=0.0).to(tl.float32)
    mean = tl.sum(v, axis=0) / n
    d = tl.where(m, v - mean, 0.0)
    var = tl.sum(d * d, axis=0) / n
    y = d * tl.rsqrt(var + eps) * tl.load(w + c, mask=m) + tl.load(b + c, mask=m)
    tl.store(out + row * stride + c, y, mask=m)


@triton.jit
def matmul_kernel(a, b, c, M, N, K, sam, sak, sbk, sbn, scm, scn,
                  BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pm, pn = tl.program_id(0), tl.program_id(1)
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        av = tl.load(a + rm[:, None] * sam + (k + rk)[None, :] * sak)
        bv = tl.load(b + (k + rk)[:, None] * sbk + rn[None, :] * sbn)
        acc += tl.dot(av, bv)
    tl.store(c + rm[:, None] * scm + rn[None, :] * scn, acc.to(c.dtype.element_ty))


dev = "cuda"
x = torch.randn(1 << 16, device=dev)
y = torch.randn(1 << 16, device=dev)
o = torch.empty_like(x)
add_kernel[(64,)](x, y, o, x.numel(), BLOCK=1024)
print("add", torch.equal(o, x + y))
s = torch.randn(128, 781, device=dev)
so = torch.empty_like(s)
softmax_kernel[(128,)](s, so, s.stride(0), 781, BLOCK=1024)
print("softmax", torch.allclose(so, torch.softmax(s, 1), atol=1e-6))
w, b = torch.randn(781, device=dev), torch.randn(781, device=dev)
lo = torch.empty_like(s)
layernorm_kernel[(128,)](s, w, b, lo, s.stride(0), 781, 1e-5, BLOCK=1024)
print("layernorm", torch.allclose(lo, torch.nn.functional.layer_norm(s, (781,), w, b, 1e-5), atol=1e-4))
for dt in (torch.float16, torch.bfloat16, torch.float32):
    A = torch.randn(256, 256, device=dev, dtype=dt)
    B = torch.randn(256, 256, device=dev, dtype=dt)
    C = torch.empty(256, 256, device=dev, dtype=dt)
    matmul_kernel[(4, 4)](A, B, C, 256, 256, 256, A.stride(0), A.stride(1), B.stride(0), B.stride(1),
                          C.stride(0), C.stride(1), BM=64, BN=64, BK=32)
    print("matmul", dt, torch.allclose(C.float(), (A.float() @ B.float()), atol=0.5, rtol=0.05))

net = torch.nn.Sequential(torch.nn.Linear(256, 512), torch.nn.GELU(), torch.nn.LayerNorm(512),
                          torch.nn.Linear(512, 10)).to(dev)
cnet = torch.compile(net)
inp = torch.randn(64, 256, device=dev)
print("torch.compile", torch.allclose(cnet(inp), net(inp), atol=1e-3))
loss = cnet(inp).square().mean()
loss.backward()
torch.cuda.synchronize()
print("torch.compile backward ran")

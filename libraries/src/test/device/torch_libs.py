"""torch_libs.py: a small PyTorch program whose work goes through NVIDIA's libraries, for recording
with the library tracers on an NVIDIA GPU (libs-h200.sh): an fp32 matmul (cuBLAS/cuBLASLt), a linear
layer with bias and GELU (addmm), an fp16 matmul, a convolution (cuDNN) and an FFT (cuFFT). Each
result is checked against the same computation on the CPU; prints PASS when all agree."""
import torch
import torch.nn.functional as F

print("torch", torch.__version__, "cuda", torch.version.cuda, "cudnn", torch.backends.cudnn.version())
torch.manual_seed(0)
dev = "cuda"
ok = True


def close(name, got, ref, tol):
    global ok
    err = (got.float().cpu() - ref.float()).abs().max().item()
    good = err <= tol
    ok &= good
    print(f"{name}: max |error| {err:.3g} (allowed {tol:g}) {'ok' if good else 'WRONG'}")


a = torch.randn(256, 256)
b = torch.randn(256, 256)
close("matmul fp32 256x256x256", a.to(dev) @ b.to(dev), a @ b, 1e-3)
lin = torch.nn.Linear(256, 128)
close("linear+bias+gelu", F.gelu(lin.to(dev)(a.to(dev))), F.gelu(lin.cpu()(a)), 1e-3)
close("matmul fp16 256x256x256", a.to(dev).half() @ b.to(dev).half(), a.half().float() @ b.half().float(), 0.5)
conv = torch.nn.Conv2d(3, 8, 3, padding=1)
x = torch.randn(4, 3, 32, 32)
close("conv2d 3->8 3x3", conv.to(dev)(x.to(dev)), conv.cpu()(x), 1e-3)
s = torch.randn(4096)
close("rfft 4096", torch.view_as_real(torch.fft.rfft(s.to(dev))), torch.view_as_real(torch.fft.rfft(s)), 1e-2)
torch.cuda.synchronize()
print("PASS" if ok else "FAIL")

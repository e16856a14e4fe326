"""torch_demo.py STEPS [BLOCK]: a PyTorch program for tracing on an NVIDIA GPU.
A matmul, a convolution, then STEPS training steps of a small CNN (two convolutions, two linear
layers, batch 64 of 3x32x32, SGD); prints the median step time of the steps after the first 20
(each step ends with torch.cuda.synchronize), the median CPU time of the process per step (all its
threads), and PASS when the loss went down. With BLOCK, after the first 20 steps every other block of
BLOCK steps runs between torch.cuda.profiler.start() and stop() (cuProfilerStart/cuProfilerStop), and
the median step time inside and outside those blocks is printed too: under the tracer with
ZLUDA_CAPTURE_RANGE=profiler, recorded and not recorded steps of the same process.
TORCH_DEMO_MODEL picks the network trained: `small` (the default, above), `resnet18` (torchvision's
ResNet-18, 10 classes, batch 64 of 3x224x224) or `resnet18-cifar` (the same network on batch 128 of
3x32x32); both ResNets make many more driver calls per step than the small CNN."""
import os
import statistics
import sys
import time

import torch
import torch.nn as nn

steps = int(sys.argv[1]) if len(sys.argv) > 1 else 50
block = int(sys.argv[2]) if len(sys.argv) > 2 else 0
dev = "cuda"
torch.manual_seed(0)
a = torch.randn(512, 512, device=dev)
m = a @ a.T
conv = nn.Conv2d(3, 8, 3, padding=1).to(dev)
y = conv(torch.randn(4, 3, 32, 32, device=dev))
torch.cuda.synchronize()
model_name = os.environ.get("TORCH_DEMO_MODEL", "small")
if model_name == "small":
    model = nn.Sequential(
        nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(32 * 8 * 8, 128), nn.ReLU(), nn.Linear(128, 10)).to(dev)
    batch, size = 64, 32
elif model_name in ("resnet18", "resnet18-cifar"):
    import torchvision
    model = torchvision.models.resnet18(num_classes=10).to(dev)
    batch, size = (64, 224) if model_name == "resnet18" else (128, 32)
else:
    sys.exit(f"torch_demo: unknown TORCH_DEMO_MODEL {model_name!r} (small, resnet18, resnet18-cifar)")
opt = torch.optim.SGD(model.parameters(), lr=0.05 if model_name == "small" else 0.01)
x = torch.randn(batch, 3, size, size, device=dev)
t = torch.randint(0, 10, (batch,), device=dev)
loss_fn = nn.CrossEntropyLoss()
times, cpus, losses, inside = [], [], [], []
for i in range(steps):
    ranged = block > 0 and i >= 20 and ((i - 20) // block) % 2 == 0
    if ranged and (i - 20) % block == 0:
        torch.cuda.profiler.start()
    t0 = time.perf_counter()
    c0 = time.process_time()
    opt.zero_grad()
    loss = loss_fn(model(x), t)
    loss.backward()
    opt.step()
    torch.cuda.synchronize()
    times.append(time.perf_counter() - t0)
    cpus.append(time.process_time() - c0)
    inside.append(ranged)
    losses.append(loss.item())
    if ranged and ((i - 20) % block == block - 1 or i == steps - 1):
        torch.cuda.profiler.stop()
warm = times[20:] if len(times) > 40 else times
warm_cpu = cpus[20:] if len(cpus) > 40 else cpus
print(f"torch_demo: {model_name}, matmul {tuple(m.shape)}, conv {tuple(y.shape)}, {steps} steps, median step {statistics.median(warm) * 1e6:.1f} us "
      f"(min {min(warm) * 1e6:.1f}), cpu {statistics.median(warm_cpu) * 1e6:.1f} us, loss {losses[0]:.3f} -> {losses[-1]:.3f}, {'PASS' if losses[-1] < losses[0] else 'FAIL'}"
      + (f", in profiler range {statistics.median(t for t, r in zip(times, inside) if r) * 1e6:.1f} us, outside "
         f"{statistics.median(t for t, r in zip(times[20:], inside[20:]) if not r) * 1e6:.1f} us" if block else ""))

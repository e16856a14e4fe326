"""torch_demo.py MODE STEPS: a PyTorch program for tracing on an NVIDIA GPU.
A matmul, a convolution, then STEPS training steps of a small CNN (two convolutions, two linear
layers, batch 64 of 3x32x32, SGD); prints the median step time of the steps after the first 20
(each step ends with torch.cuda.synchronize) and PASS when the loss went down."""
import statistics
import sys
import time

import torch
import torch.nn as nn

steps = int(sys.argv[1]) if len(sys.argv) > 1 else 50
dev = "cuda"
torch.manual_seed(0)
a = torch.randn(512, 512, device=dev)
m = a @ a.T
conv = nn.Conv2d(3, 8, 3, padding=1).to(dev)
y = conv(torch.randn(4, 3, 32, 32, device=dev))
torch.cuda.synchronize()
model = nn.Sequential(
    nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
    nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
    nn.Flatten(), nn.Linear(32 * 8 * 8, 128), nn.ReLU(), nn.Linear(128, 10)).to(dev)
opt = torch.optim.SGD(model.parameters(), lr=0.05)
x = torch.randn(64, 3, 32, 32, device=dev)
t = torch.randint(0, 10, (64,), device=dev)
loss_fn = nn.CrossEntropyLoss()
times, losses = [], []
for i in range(steps):
    t0 = time.perf_counter()
    opt.zero_grad()
    loss = loss_fn(model(x), t)
    loss.backward()
    opt.step()
    torch.cuda.synchronize()
    times.append(time.perf_counter() - t0)
    losses.append(loss.item())
warm = times[20:] if len(times) > 40 else times
print(f"torch_demo: matmul {tuple(m.shape)}, conv {tuple(y.shape)}, {steps} steps, median step {statistics.median(warm) * 1e6:.1f} us "
      f"(min {min(warm) * 1e6:.1f}), loss {losses[0]:.3f} -> {losses[-1]:.3f}, {'PASS' if losses[-1] < losses[0] else 'FAIL'}")

"""torch_blocks.py STEPS BLOCK: torch_demo.py's training loop (the same model and steps; after the
first 20 steps every other block of BLOCK steps runs between torch.cuda.profiler.start() and stop()),
printing every step's time in us and its recorded block (0, 1, ... inside the profiler range, -1
outside it, -2 for the first 20 steps) as one JSON line "ABLSTEPS {...}" with ZT_ABL_OFFSET as
"offset". run-ablation.sh runs it under the measurement builds, which record block k in mode
(k + offset) % K; analyse.py turns the lines into per-mode ratios."""
import json, os, sys, time
import torch
import torch.nn as nn

steps = int(sys.argv[1]); block = int(sys.argv[2])
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
rec = []
times = []
for i in range(steps):
    ranged = i >= 20 and ((i - 20) // block) % 2 == 0
    if ranged and (i - 20) % block == 0:
        torch.cuda.profiler.start()
    t0 = time.perf_counter()
    opt.zero_grad()
    loss = loss_fn(model(x), t)
    loss.backward()
    opt.step()
    torch.cuda.synchronize()
    times.append(round((time.perf_counter() - t0) * 1e6, 1))
    rec.append(((i - 20) // block) // 2 if ranged else (-1 if i >= 20 else -2))
    if ranged and ((i - 20) % block == block - 1 or i == steps - 1):
        torch.cuda.profiler.stop()
print("ABLSTEPS " + json.dumps({"offset": int(os.environ.get("ZT_ABL_OFFSET", "0")), "t": times, "b": rec}))

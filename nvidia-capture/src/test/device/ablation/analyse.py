"""analyse.py ABLATION_TXT STEPS_JSONL K: the figures of run-ablation.sh.
Per mode: the mean time a call spends in the tracer's wrapper (outside the target driver) over the
runs, and the median step time of the mode's recorded blocks divided by the median of the same
process's unrecorded steps (median over the processes, and over all steps pooled)."""
import json, re, statistics as st, sys

txt, jsonl, k = sys.argv[1], sys.argv[2], int(sys.argv[3])
names, ns = {}, {}
for line in open(txt):
    m = re.search(r"ABL (\d+) (\S+) calls \d+ mean_ns ([\d.]+) median_ns ([\d.]+)", line)
    if m:
        names[int(m.group(1))] = m.group(2)
        ns.setdefault(int(m.group(1)), []).append((float(m.group(3)), float(m.group(4))))
per, pooled = {m: [] for m in range(k)}, {m: [] for m in range(k)}
for line in open(jsonl):
    d = json.loads(line)["data"]
    out = st.median(x for x, b in zip(d["t"], d["b"]) if b == -1)
    for m in range(k):
        xs = [x for x, b in zip(d["t"], d["b"]) if b >= 0 and (b + d["offset"]) % k == m]
        per[m].append(st.median(xs) / out)
        pooled[m] += [x / out for x in xs]
unrec = st.mean(x for x, _ in ns.get(k, [(0, 0)]))
print(f"{'mode':16s} {'in wrapper ns':>13s} {'recording ns':>12s} {'step ratio':>10s} {'pooled':>7s}   per process")
for m in range(k):
    w = st.mean(x for x, _ in ns[m])
    print(f"{names[m]:16s} {w:13.1f} {w - unrec:12.1f} {st.median(per[m]):10.3f} {st.median(pooled[m]):7.3f}   "
          + " ".join(f"{x:.3f}" for x in per[m]))
print(f"{names.get(k, 'unrecorded'):16s} {unrec:13.1f}")

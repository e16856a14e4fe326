#!/usr/bin/env python3
"""The test-backend-ops table of docs/support.md: per operation, the cases the H200 ran and passed,
the cases zluda's driver ran and passed, and for cases that fail on zluda only, the first reason.

Usage: backend-ops-table.py H200_OUTPUT[,H200_OUTPUT...] ZLUDA_DIR[,ZLUDA_DIR...] [--cases FILE]
  H200_OUTPUT: test-backend-ops' console output on the H200 (plain or .xz; h200.sh's
               backend-ops-h200.txt.xz). Several, comma-separated: an operation that a later one
               has replaces that operation's cases of the earlier ones (a run of single operations,
               h200.sh's OPS, on top of a whole run).
  ZLUDA_DIR:   run-backend-ops-zluda.sh's OUT folder (OP.txt and OP.status per operation). Several,
               comma-separated: the last folder that has an operation's OP.status gives its row, and
               the table gets a column naming that folder.
  --cases FILE also writes one line per case run on zluda: OP(params) <TAB> H200 verdict <TAB> zluda verdict.
Prints Markdown: a summary line and a table with one row per operation the H200 ran.

A case "runs" when test-backend-ops compares it (OK or FAIL); "not supported" cases (the CUDA
backend declines them: flash attention is not built, some type pairs have no kernel) are counted
apart. An operation whose zluda process stopped (abort, crash, time limit) has the cases it reached;
its row names how it stopped and the last lines it printed.
"""
import lzma
import re
import sys
from collections import OrderedDict, defaultdict
from pathlib import Path

ANSI = re.compile(r"\x1b\[[0-9;]*m")
# with CUDA graphs on (GGML_CUDA_GRAPHS) ggml's CUDA backend logs the graphs' warm-up between a case's
# name and its verdict: one or more lines, the first on the case's line
GRAPH_LOG = re.compile(r"ggml_backend_cuda_graph_compute: [^\n]*\n")
CASE = re.compile(r"^  ([A-Z_0-9]+)\((.*)\): (.*)$")


def read(path: Path) -> str:
    raw = path.read_bytes()
    if path.suffix == ".xz":
        raw = lzma.decompress(raw)
    return GRAPH_LOG.sub("", ANSI.sub("", raw.decode("utf-8", "replace")))


def cases(text: str):
    """Yields (op, params, verdict, detail): verdict OK, FAIL, NS (not supported) or STOP (the
    process stopped during the case; detail: what it printed after the case's name)."""
    for line in text.splitlines():
        m = CASE.match(line)
        if not m:
            continue
        op, params, rest = m.groups()
        rest = rest.rstrip()
        if rest.endswith("OK"):
            yield op, params, "OK", ""
        elif rest.endswith("FAIL"):
            yield op, params, "FAIL", rest[: -len("FAIL")].strip()
        elif rest.startswith("not supported"):
            yield op, params, "NS", rest
        elif rest.startswith("skipping"):
            continue
        else:
            # the case started and the process printed something else after its name: an abort
            # (ggml's CUDA_CHECK / CUBLAS_CHECK) or the driver's own message
            yield op, params, "STOP", rest


def stop_reason(text: str, status: str) -> str:
    parts = status.split()
    code = int(parts[1]) if len(parts) > 1 else -1
    secs = parts[2] if len(parts) > 2 else "?"
    if code == 0:
        return ""
    if code == 124:
        return f"stopped by the time limit after {secs} s"
    interesting = [l.strip() for l in text.splitlines()
                   if re.search(r"error|abort|not supported|NOT_SUPPORTED|unsupported|exception|fault", l, re.I)
                   and "weak version" not in l and not CASE.match(l)]
    last = interesting[0] if interesting else (text.strip().splitlines() or ["(no output)"])[-1].strip()
    if last.endswith(":") and len(interesting) > 1:
        last += " " + interesting[1]  # "cuLibraryLoad failed with ...:" and the line naming what
    sig = {134: " (SIGABRT)", 139: " (SIGSEGV)"}.get(code, "")
    return f"exit {code}{sig} after {secs} s: {last[:200]}"


def main() -> int:
    args = sys.argv[1:]
    cases_out = None
    if "--cases" in args:
        i = args.index("--cases")
        cases_out = Path(args[i + 1])
        del args[i:i + 2]
    if len(args) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    # a list per operation: test-backend-ops lists some cases twice (same parameters)
    h200 = defaultdict(list)
    for path in args[0].split(","):
        this = defaultdict(list)
        for op, params, verdict, _ in cases(read(Path(path))):
            this[op].append((params, verdict))
        h200.update(this)
    zdirs = [Path(d) for d in args[1].split(",")]
    rows = []
    lines = []
    tot = defaultdict(int)
    for op in sorted(h200, key=lambda o: (-sum(v != "NS" for _, v in h200[o]), o)):
        hv = dict(h200[op])
        h_run = sum(v != "NS" for _, v in h200[op])
        h_ok = sum(v == "OK" for _, v in h200[op])
        h_ns = sum(v == "NS" for _, v in h200[op])
        tot["h_run"] += h_run; tot["h_ok"] += h_ok; tot["h_ns"] += h_ns
        if h_run == 0:
            continue
        zdir = next((d for d in reversed(zdirs) if (d / f"{op}.status").exists()), zdirs[-1])
        txt, st = zdir / f"{op}.txt", zdir / f"{op}.status"
        src = f" {zdir.name} |" if len(zdirs) > 1 else ""
        if not st.exists():
            rows.append(f"| {op} | {h_run} | {h_ok} | not run yet | | | |" + (" |" if len(zdirs) > 1 else ""))
            continue
        text = read(txt) if txt.exists() else ""
        zl, reasons = [], OrderedDict()
        for zop, params, verdict, detail in cases(text):
            if zop == op:
                zl.append((params, verdict))
                if verdict in ("FAIL", "STOP"):
                    reasons.setdefault(params, detail)
        if st.read_text().split()[1:2] == ["124"]:
            # stopped by the time limit: the case it was in is not compared, not failed
            while zl and zl[-1][1] == "STOP" and not reasons.get(zl[-1][0]):
                reasons.pop(zl[-1][0], None)
                zl.pop()
        z_run = sum(v in ("OK", "FAIL") for _, v in zl)
        z_ok = sum(v == "OK" for _, v in zl)
        zonly = [p for p, v in zl if v != "OK" and hv.get(p) == "OK"]
        z_ns_only = [p for p, v in zl if v == "NS" and hv.get(p) == "OK"]
        tot["z_ops"] += 1; tot["z_run"] += z_run; tot["z_ok"] += z_ok; tot["zonly"] += len(zonly)
        tot["h_run_of_z"] += h_run; tot["h_ok_of_z"] += h_ok
        for p, v in zl:
            lines.append(f"{op}({p})\t{hv.get(p, '-')}\t{v}")
        why = []
        if zonly:
            first = zonly[0]
            r = reasons.get(first) or ("not supported on zluda" if first in z_ns_only else "")
            why.append(f"first: `{op}({first[:90]}{'…' if len(first) > 90 else ''})`: {r[:160]}")
        stop = stop_reason(text, st.read_text())
        if stop:
            why.append(stop)
        not_reached = h_run - z_run if stop else 0
        reached = f"{z_run}" + (f" ({not_reached} not compared)" if not_reached > 0 else "")
        rows.append(f"| {op} | {h_run} | {h_ok} | {reached} | {z_ok} | {len(zonly)} | {'; '.join(why).replace('|', '/')} |" + src)
    print(f"H200: {tot['h_run']} cases run in {sum(1 for o in h200 if any(v != 'NS' for _, v in h200[o]))} operations, "
          f"{tot['h_ok']} pass, {tot['h_ns']} not supported by the CUDA backend as built. "
          f"zluda: {tot['z_ops']} operations run ({tot['h_run_of_z']} cases on the H200, {tot['h_ok_of_z']} passing there): "
          f"{tot['z_run']} cases reached, {tot['z_ok']} pass, {tot['zonly']} fail on zluda only.")
    print()
    extra = (" zluda run |", "---|") if len(zdirs) > 1 else ("", "")
    print("| operation | cases run on H200 | pass on H200 | run on zluda | pass on zluda | fail on zluda only | first reason / how the run stopped |" + extra[0])
    print("|---|---|---|---|---|---|---|" + extra[1])
    for r in rows:
        print(r)
    if cases_out:
        cases_out.write_text("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

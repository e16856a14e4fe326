#!/usr/bin/env python3
"""The cuda-samples corpus table of docs/support.md, from the results of both sides.

Usage: corpus-table.py NVIDIA_RESULTS.md ZLUDA_RESULTS.md DIFF_DIR [NOTES.tsv [ZLUDA_LOGS]]

NVIDIA_RESULTS.md and ZLUDA_RESULTS.md are build-and-run.sh's results.md of the run on the NVIDIA GPU
(h200-corpus.sh) and on zluda's driver; DIFF_DIR is diff-pairs.sh's output, or a verdicts file
(diff-verdicts.txt, merge-results.py verdicts). NOTES.tsv (sample, TAB,
text) adds a reason in words to a row; ZLUDA_LOGS (build-and-run.sh's logs/ of the zluda run) gives,
for a sample that does not pass there, the first line of its run that names what zluda refused (an
instruction, a function, a CUDA error and the call). Prints one Markdown row per sample: sample, own check on the
H200, own check on zluda, zluda diff's verdict of the two captures, and the first divergence or the
note.
"""
import os
import re
import sys


def rows(path):
    out = {}
    for line in open(path):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 6 or cells[0] in ("sample", "---") or cells[0].startswith("-"):
            continue
        out[cells[0]] = cells
    return out


def check(cells):
    if cells is None:
        return "not run"
    if not cells[1].startswith("yes"):
        return cells[1].replace("no:", "not built:", 1)
    name, _, code, ok, verdict, secs = cells[:6]
    if code == "124":
        return f"timed out ({verdict.split('after ')[-1]})"
    if ok == "yes":
        return "PASS"
    word = {"no": "**FAIL**", "waived": "waived"}.get(ok, ok)
    return f"{word} (exit {code}{', `' + verdict.replace('`', '')[:90] + '`' if verdict else ''})"


def verdict_lines(path, name):
    """The lines of sample NAME in a verdicts file (merge-results.py verdicts): its verdict, first divergence, detail."""
    out = None
    for line in open(path, errors="replace"):
        if re.match(r"^[A-Za-z0-9_]+: (SAME|DIFFERENT|error)", line):
            if out is not None:
                break
            if line.startswith(name + ": "):
                out = [line[len(name) + 2:].rstrip("\n")]
        elif out is not None:
            out.append(line.strip())
    return out


def diff(dirpath, name):
    if os.path.isfile(dirpath):
        lines = verdict_lines(dirpath, name)
        if lines is None:
            return "", ""
    else:
        txt = os.path.join(dirpath, name + ".diff.txt")
        if not os.path.exists(txt):
            return "", ""
        lines = open(txt, errors="replace").read().splitlines()
    verdict = next((l for l in lines if re.match(r"^(SAME|DIFFERENT)", l)), None)
    if verdict is None:
        return "error", next((l for l in lines if l.strip()), "")[:160]
    first = ""
    for i, l in enumerate(lines):
        if l.startswith("First divergence:"):
            first = l[len("First divergence:"):].strip()
            if i + 1 < len(lines):
                first += ": " + lines[i + 1].strip()
            break
    return verdict.split(":")[0] + (": " + verdict.split(":", 1)[1].strip() if ":" in verdict else ""), first[:220]


REASONS = [
    re.compile(r"error: (instruction '[^']+' is not supported|call of '[^']+', which the module does not define)"),
    re.compile(r"\[ZLUDA\] (\w+ is not supported yet)"),
    re.compile(r"\[ZLUDA\] (kernel \S+: CUDA_ERROR_\w+: .*?`[^`]+`: [^;]*)"),
    re.compile(r"code=(\d+\(\w+\) \"[^\"]+\")"),
    re.compile(r"\[ZLUDA\] (internal error .*)"),
]


def reason(logs, name):
    path = os.path.join(logs, name + ".run.txt")
    if not os.path.exists(path):
        return ""
    text = open(path, errors="replace").read()
    for pattern in REASONS:
        m = pattern.search(text)
        if m:
            return "zluda: " + m.group(1).replace("`", "'")[:200]
    return ""


def main():
    if len(sys.argv) < 4:
        raise SystemExit(__doc__)
    nv, zl, dd = rows(sys.argv[1]), rows(sys.argv[2]), sys.argv[3]
    notes = {}
    if len(sys.argv) > 4:
        for line in open(sys.argv[4]):
            if "\t" in line and not line.startswith("#"):
                k, v = line.rstrip("\n").split("\t", 1)
                notes[k] = v
    logs = sys.argv[5] if len(sys.argv) > 5 else None
    print("| sample | own check on the H200 | own check on zluda | zluda diff (H200 capture, zluda capture) | first divergence, or why not |")
    print("|---|---|---|---|---|")
    for name in list(nv) + [n for n in zl if n not in nv]:
        v, first = diff(dd, name)
        note = notes.get(name, "")
        zcheck = check(zl.get(name))
        refused = reason(logs, name) if logs and not zcheck.startswith("PASS") else ""
        why = "; ".join(x.replace("|", "/") for x in (note, refused, first) if x)
        print(f"| {name} | {check(nv.get(name))} | {zcheck} | {v.replace('|', '/')} | {why} |")


if __name__ == "__main__":
    main()

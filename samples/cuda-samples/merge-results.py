#!/usr/bin/env python3
"""Merges the results of a run of some corpus samples into the committed results of the whole corpus.

Usage:
  merge-results.py table OLD_RESULTS.md NEW_RESULTS.md [...]   build-and-run.sh tables: each sample's row of the
      last file that has it, in OLD's order (samples only in a new file at the end); printed on stdout
  merge-results.py verdicts OLD_VERDICTS.txt DIFF_DIR           diff-verdicts.txt (each sample: zluda diff's verdict
      line, its first divergence and the line after it) with the samples of DIFF_DIR (diff-pairs.sh's output)
      replacing theirs; printed on stdout

corpus-table.py reads the merged verdicts file in place of a diff directory.
"""
import os
import re
import sys


def table(paths):
    order, rows, head = [], {}, None
    for path in paths:
        for line in open(path):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) < 6 or cells[0] in ("sample",) or cells[0].startswith("-"):
                if head is None and cells and cells[0] == "sample":
                    head = line
                continue
            if cells[0] not in rows:
                order.append(cells[0])
            rows[cells[0]] = line if line.endswith("\n") else line + "\n"
    out = [head or "| sample | built | exit | passes its own check | the sample's verdict (last line saying so) | time (s) |\n",
           "|---|---|---|---|---|---|\n"]
    out += [rows[n] for n in order]
    sys.stdout.write("".join(out))


def blocks(path):
    """sample -> its lines in a verdicts file."""
    out, name = {}, None
    for line in open(path, errors="replace"):
        m = re.match(r"^([A-Za-z0-9_]+): (SAME|DIFFERENT|error)", line)
        if m:
            name = m.group(1)
            out[name] = []
        if name:
            out[name].append(line if line.endswith("\n") else line + "\n")
    return out


def verdict_of(txt):
    lines = open(txt, errors="replace").read().splitlines()
    verdict = next((l for l in lines if re.match(r"^(SAME|DIFFERENT)", l)), None)
    if verdict is None:
        return ["error: " + next((l for l in lines if l.strip()), "")[:200]]
    out = [verdict]
    for i, l in enumerate(lines):
        if l.startswith("First divergence:"):
            out.append("    " + l)
            if i + 1 < len(lines):
                out.append("      " + lines[i + 1].strip())
            break
    return out


def verdicts(old, diff_dir):
    merged = blocks(old)
    for f in sorted(os.listdir(diff_dir)):
        if f.endswith(".diff.txt"):
            name = f[: -len(".diff.txt")]
            v = verdict_of(os.path.join(diff_dir, f))
            merged[name] = [name + ": " + v[0] + "\n"] + [l + "\n" for l in v[1:]]
    for name in sorted(merged):
        sys.stdout.write("".join(merged[name]))


def main():
    if len(sys.argv) >= 4 and sys.argv[1] == "table":
        table(sys.argv[2:])
    elif len(sys.argv) == 4 and sys.argv[1] == "verdicts":
        verdicts(sys.argv[2], sys.argv[3])
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main()

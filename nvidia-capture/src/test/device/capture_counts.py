#!/usr/bin/env python3
"""Independent minimal reader of a zluda capture (trace-format/FORMAT.md), for machines without Java.

capture_counts.py CAPTURE_DIR_OR_FILE [CUPTI_TSV]
  prints calls per function (ENTER records, all depths and depth 0), MODULE/KERNEL/BLOB/MARKER
  counts and the MARKER texts; with CUPTI_TSV (name TAB count, from cupti_counter.so) compares
  the per-function counts with what the capture predicts CUPTI counted (see compare in main) and
  lists every function whose counts differ. DEVICES=N: the machine's GPUs (default 1);
  MANIFEST_VERSION_CALLS=1: the capture was recorded by a tracer that asked the driver for its
  version at every rewrite of manifest.json (tracers built before 2026-12-02, when the tracer took
  to asking once, before the program's first call).
capture_counts.py --durations CAPTURE  median time inside each function (LEAVE ts - ENTER ts) and the
  median gap between a LEAVE and the next ENTER of the same thread, per function, most called first.
capture_counts.py --kernels CAPTURE  prints each KERNEL record (name, parameter bytes, buffers) and
  checks that every buffer hash names a BLOB of the capture; for a kernel named vectorAdd (a, b, c, n:
  samples/src/main/cuda/vectorAdd.cu) it also checks that the after image of c is a + b.
Walks chunks unit by unit and frames by their length words (FORMAT.md §3); stops a chunk at a zero
length word or a SEAL. No damage checks beyond that: zluda's Java reader is the reference.
"""
import os
import struct
import sys


def varint(b, i):
    r = s = 0
    while True:
        x = b[i]
        i += 1
        r |= (x & 0x7F) << s
        s += 7
        if x < 0x80:
            return r, i


LIBRARIES = ("cublas", "cudnn", "cufft", "cusparse", "nvml")


def chunk_records(path, check=True):
    """(thread id, the chunk's seq and ts, whether the record opens its chunk, payload) of every record, in file
    order (FORMAT.md §6); with check, a file that is not a capture ends the program."""
    if os.path.isdir(path):
        path = os.path.join(path, "capture.zcap")
    b = open(path, "rb").read()
    if check and b[:8] != b"ZLUDACAP":
        raise SystemExit(f"{path}: not a zluda capture")
    cs = struct.unpack_from("<I", b, 16)[0]
    off = 64
    while off + 40 <= len(b):
        if struct.unpack_from("<I", b, off)[0] != 0x4B48435A:  # "ZCHK"
            off += cs
            continue
        span = max(1, struct.unpack_from("<I", b, off + 4)[0])
        end = min(off + span * cs, len(b))
        tid, seq, ts = struct.unpack_from("<QQQ", b, off + 8)
        p = off + 40
        while p + 4 <= end:
            n = struct.unpack_from("<I", b, p)[0]
            if n == 0 or p + 4 + n > end:
                break
            pl = b[p + 4:p + 4 + n]
            if pl[0] & 15 == 11:
                break
            yield tid, seq, ts, p == off + 40, pl
            p += 4 + ((n + 3) & ~3)
        off += span * cs


def records(path, with_seq=False, with_thread=False):
    seq = 0
    for tid, chunk_seq, _, first, pl in chunk_records(path):
        if first:
            seq = chunk_seq
        if with_thread:
            seq += varint(pl, 1)[0]
            yield (seq, first, tid), pl
        elif with_seq:
            seq += varint(pl, 1)[0]
            yield (seq, first), pl
        else:
            yield pl


def header(pl):
    """(type, depth, index after seq and ts)."""
    t = pl[0] & 15
    _, i = varint(pl, 1)
    _, i = varint(pl, i)
    return t, pl[0] >> 4, i


def library_of(name):
    """The library a recorded library function belongs to (cublasLt before cublas), or None for the driver's."""
    for lib in ("cublasLt", "cublas", "cudnn", "cufft", "cusparse", "nvml"):
        if name.startswith(lib):
            return lib
    return None


CUDA_ERROR_DEINITIALIZED = 4


def counts(path):
    """Per function: ENTER records (all), at depth 0, and those CUPTI can see (`after`): the program's
    calls (at depth 0, or nested only in library calls — cuBLAS's driver calls are the program's to the
    driver, a driver call's nested calls are not) made after the first cuInit returned (a CUPTI
    subscriber is injected by that cuInit), except those that returned CUDA_ERROR_DEINITIALIZED (made
    after the driver's exit handler tore it down: cudart's teardown, CUPTI gone) and cuGetExportTable
    (CUPTI reports no call of it although cupti_driver_cbid.h has an id for it: 0 in every run on
    driver 580.159.04, against 14 to 48 in the committed captures); record types; MARKER texts; how many integrity
    checks the tracer recomputed (each makes driver calls of its own, see compare); and the libraries
    whose first recorded call came after that cuInit (see MANIFEST_VERSION_CALLS)."""
    names, all_, top, kinds, markers = [], {}, {}, {}, []
    enters = []   # (seq, fid, depth, made by the program: no ancestor but library calls)
    leaves = {}   # enter seq -> leave seq
    results = {}  # enter seq -> result
    stacks = {}   # thread -> names of the open calls by depth
    integrity = []
    pcount = []
    cache = {}
    for (seq, first, tid), pl in records(path, with_thread=True):
        if first:
            cache = {}   # the argument cache is per chunk (FORMAT.md 6.1)
        t, d, i = header(pl)
        kinds[t] = kinds.get(t, 0) + 1
        if t == 10:
            n, i = varint(pl, i)
            for _ in range(n):
                ln, i = varint(pl, i)
                names.append(pl[i:i + ln].decode())
                pcount.append(pl[i + ln])
                i += ln + 1
        elif t == 1:
            if d == 15:
                d, i = varint(pl, i)
            fid, i = varint(pl, i)
            cf, cv = cache.get(fid & 63, (-1, None))
            args = []
            for k in range(pcount[fid] if fid < len(pcount) else 0):
                z, i = varint(pl, i)
                prev = cv[k] if cf == fid and k < 16 else 0
                args.append((prev + ((z >> 1) ^ -(z & 1))) & (2**64 - 1))
            cache[fid & 63] = (fid, args + [0] * (16 - len(args)))
            if fid < len(names) and names[fid] == "{d4082055-bde6-704b-8d34-ba123c66e1f2}::slot 1" and args and args[0] % 10 not in (0, 1):
                kinds["integrity"] = kinds.get("integrity", 0) + 1
            all_[fid] = all_.get(fid, 0) + 1
            if d == 0:
                top[fid] = top.get(fid, 0) + 1
            st = stacks.setdefault(tid, [])
            del st[d:]
            program = all(a.startswith(LIBRARIES) for a in st[:d]) and len(st) == d
            st.append(names[fid] if fid < len(names) else "")
            enters.append((seq, fid, d, program))
        elif t == 2:
            ed, i = varint(pl, i)
            leaves[seq - ed] = seq
            results[seq - ed], i = varint(pl, i)
        elif t == 7:
            ln, i = varint(pl, i)
            markers.append(pl[i:i + ln].decode(errors="replace"))
    name = lambda f: names[f] if f < len(names) else f"function#{f}"
    init_done = min((leaves.get(sq, 1 << 62) for sq, f, d, _ in enters if name(f) == "cuInit"), default=1 << 62)
    after = {}
    first_call = {}
    for sq, f, d, program in sorted(enters):
        n = name(f)
        lib = library_of(n)
        if lib:
            first_call.setdefault(lib, sq)
        elif program and sq > init_done and results.get(sq) != CUDA_ERROR_DEINITIALIZED and n != "cuGetExportTable" and not n.startswith("{"):
            after[n] = after.get(n, 0) + 1
    late_libraries = sorted(lib for lib, sq in first_call.items() if sq > init_done)
    return ({name(f): c for f, c in all_.items()}, {name(f): c for f, c in top.items()}, kinds, markers, after, late_libraries)


def kernels(path):
    blobs, ks = {}, []
    for pl in records(path):
        t, _, i = header(pl)
        if t == 3:
            h = struct.unpack_from("<Q", pl, i)[0]
            size, j = varint(pl, i + 8)
            blobs[h] = (pl[j], pl[j + 1:])
        elif t == 5:
            _, i = varint(pl, i)
            fn, i = varint(pl, i)
            ln, i = varint(pl, i)
            name = pl[i:i + ln].decode()
            i += ln
            pn, i = varint(pl, i)
            params = pl[i:i + pn]
            i += pn
            nb, i = varint(pl, i)
            bufs = []
            for _ in range(nb):
                ptr, i = varint(pl, i)
                sz, i = varint(pl, i)
                before, after = struct.unpack_from("<QQ", pl, i)
                i += 16
                bufs.append((ptr, sz, before, after))
            ks.append((fn, name, params, bufs))
    return ks, blobs


def durations(path):
    names, open_, per, gaps = [], {}, {}, {}
    last_leave = {}
    for (seq, first), pl in records_ts(path):
        t, d, i = header(pl)
        if t == 10:
            n, i = varint(pl, i)
            for _ in range(n):
                ln, i = varint(pl, i)
                names.append(pl[i:i + ln].decode())
                i += ln + 1
        elif t == 1:
            if d == 15:
                d, i = varint(pl, i)
            fid, i = varint(pl, i)
            ts, tid = first
            open_[seq] = (fid, ts)
            if tid in last_leave:
                gaps.setdefault(names[fid], []).append(ts - last_leave[tid])
        elif t == 2:
            ed, i = varint(pl, i)
            ts, tid = first
            if seq - ed in open_:
                fid, t0 = open_.pop(seq - ed)
                per.setdefault(names[fid], []).append(ts - t0)
            last_leave[tid] = ts
    import statistics
    print(f"{'function':48s} {'calls':>8s} {'in call ns':>11s} {'gap before ns':>14s}")
    for n, v in sorted(per.items(), key=lambda x: -len(x[1])):
        g = gaps.get(n, [0])
        print(f"{n:48s} {len(v):8d} {statistics.median(v):11.0f} {statistics.median(g):14.0f}")


def records_ts(path):
    """(seq, (ts, thread id)) and payload of every record, timestamps decoded (FORMAT.md §6)."""
    seq = ts = 0
    for tid, chunk_seq, chunk_ts, first, pl in chunk_records(path, check=False):
        if first:
            seq, ts = chunk_seq, chunk_ts
        sd, i = varint(pl, 1)
        td, i = varint(pl, i)
        seq += sd
        ts += td
        yield (seq, (ts, tid)), pl


def main(argv):
    if len(argv) >= 2 and argv[0] == "--durations":
        durations(argv[1])
        return 0
    if len(argv) >= 2 and argv[0] == "--kernels":
        ks, blobs = kernels(argv[1])
        bad = 0
        for fn, name, params, bufs in ks:
            print(f"KERNEL {name} function=0x{fn:x} params={len(params)} bytes ({params.hex()}) buffers={len(bufs)}")
            for ptr, sz, before, after in bufs:
                ok = all(h == 0 or (h in blobs and len(blobs[h][1]) == sz) for h in (before, after))
                bad += not ok
                print(f"  0x{ptr:x} {sz} bytes before={before:016x} after={after:016x} {'blobs present' if ok else 'BLOB MISSING'}")
            if name.endswith("vectorAdd") and len(params) >= 28 and len(bufs) == 3:
                pa, pb, pc = struct.unpack_from("<QQQ", params, 0)
                n = struct.unpack_from("<i", params, 24)[0]
                by = {ptr: after for ptr, _, _, after in bufs}
                if all(p in by and by[p] in blobs and blobs[by[p]][0] == 0 for p in (pa, pb, pc)):
                    fa, fb, fc = (struct.unpack_from(f"<{n}f", blobs[by[p]][1]) for p in (pa, pb, pc))
                    wrong = sum(1 for i in range(n) if fc[i] != fa[i] + fb[i])
                    print(f"  vectorAdd: after images of a, b, c for n={n}: {wrong} elements where c != a + b")
                    bad += wrong != 0
        print(f"{len(ks)} KERNEL records, {bad} problems")
        return 1 if bad else 0
    all_, top, kinds, markers, after, late_libraries = counts(argv[0])
    print(f"records by type: { {k: v for k, v in sorted(kinds.items(), key=str) if k != 'integrity'} }")
    print(f"calls: {sum(all_.values())} ({sum(top.values())} at depth 0), functions: {len(all_)}")
    for m in markers:
        print(f"MARKER: {m}")
    if len(argv) < 2:
        for n, c in sorted(all_.items(), key=lambda x: -x[1]):
            print(f"{c:10d}  {n}")
        return 0
    cupti = {}
    for line in open(argv[1]):
        f = line.rstrip("\n").split("\t")
        if len(f) == 2:
            cupti[f[0]] = cupti.get(f[0], 0) + int(f[1])
    # What CUPTI can see (counts: `after`): the program's driver calls (at depth 0, or nested only in
    # library calls; deeper ones are CUPTI's own, made through the tracer while the driver injects it)
    # after the first cuInit returned (the driver loads the counter inside it), but not those that
    # returned CUDA_ERROR_DEINITIALIZED nor cuGetExportTable; plus the driver calls the tracer makes
    # itself for each recomputed integrity check (cuDriverGetVersion, cuDeviceGetCount, and per device
    # cuDeviceGet, cuDeviceGetUuid_v2 and three cuDeviceGetAttribute), which the capture does not hold;
    # with MANIFEST_VERSION_CALLS=1 also one cuDriverGetVersion per library whose first recorded call
    # came after that cuInit (a tracer of before the fix rewrote manifest.json then, asking the driver).
    devices = int(os.environ.get("DEVICES", "1"))
    own = {"cuDriverGetVersion": 1, "cuDeviceGetCount": 1, "cuDeviceGet": devices, "cuDeviceGetUuid_v2": devices, "cuDeviceGetAttribute": 3 * devices}
    recomputed = kinds.get("integrity", 0)
    expect = dict(after)
    for n, k in own.items():
        expect[n] = expect.get(n, 0) + k * recomputed
    if os.environ.get("MANIFEST_VERSION_CALLS") == "1":
        print(f"libraries first called after the first cuInit (one cuDriverGetVersion of the tracer's own each): {', '.join(late_libraries) or 'none'}")
        expect["cuDriverGetVersion"] = expect.get("cuDriverGetVersion", 0) + len(late_libraries)
    names = sorted(set(n for n in all_ if not n.startswith(("{",) + LIBRARIES)) | set(cupti))
    libs = {n: c for n, c in all_.items() if n.startswith(LIBRARIES)}
    if libs:
        print(f"library calls (CUPTI does not count them): {sum(libs.values())} in {len(libs)} functions")
    same = diff = 0
    print(f"{recomputed} integrity answers recomputed by the tracer")
    print(f"{'function':40s} {'capture':>9s} {'depth 0':>9s} {'expected':>9s} {'CUPTI':>9s}")
    for n in names:
        a, t, e, c = all_.get(n, 0), top.get(n, 0), expect.get(n, 0), cupti.get(n, 0)
        if e == c:
            same += 1
        else:
            diff += 1
            print(f"{n:40s} {a:9d} {t:9d} {e:9d} {c:9d}   differs")
    ext = sum(c for n, c in all_.items() if n.startswith("{"))
    print(f"functions whose CUPTI count is what the capture predicts: {same}; differing: {diff}; calls in the capture "
          f"{sum(c for n, c in all_.items() if not n.startswith(('{',) + LIBRARIES))} driver calls ({sum(after.values())} of them CUPTI can see, "
          f"{sum(expect.values())} predicted with the tracer's own), counted by CUPTI {sum(cupti.values())}; "
          f"export-table calls (CUPTI has no callbacks for them) {ext}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

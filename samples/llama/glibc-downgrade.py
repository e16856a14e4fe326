#!/usr/bin/env python3
"""Rebinds a shared object's imports of fmod@GLIBC_2.38 (and fmodf@GLIBC_2.38) to the older
fmod@GLIBC_2.2.5, in place, so that an object linked against glibc >= 2.38 loads on glibc 2.36.

glibc 2.38 gave fmod/fmodf a new symbol version (errno handling of fmod(x, 0) and fmod(inf, y));
the value fmod returns is exact in both. build-llama.sh's glibc-compat.c now defines fmod inside
each binary, so rebuilt binaries need no patch; this fixes binaries built before that.

Usage: glibc-downgrade.py FILE...   (prints what it changed; FILE unchanged when nothing to do)
What it edits (ELF64 little-endian, System V gABI "Symbol Versioning"): the symbol's entry in
.gnu.version takes the index of the same file's GLIBC_2.2.5 need, and the GLIBC_2.38 need, when no
symbol uses it any more, is marked VER_FLG_WEAK (the loader then does not insist on it).
"""
import struct
import sys

SHT_DYNSYM, SHT_GNU_VERNEED, SHT_GNU_VERSYM = 11, 0x6FFFFFFE, 0x6FFFFFFF
NAMES = {b"fmod", b"fmodf"}


def patch(path: str) -> int:
    data = bytearray(open(path, "rb").read())
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        print(f"{path}: not a little-endian ELF64 file", file=sys.stderr)
        return 1
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
    secs = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    find = lambda t: next((s for s in secs if s[1] == t), None)  # noqa: E731
    dynsym, verneed, versym = find(SHT_DYNSYM), find(SHT_GNU_VERNEED), find(SHT_GNU_VERSYM)
    if not (dynsym and verneed and versym):
        print(f"{path}: no symbol versions: nothing to do")
        return 0
    strtab = secs[dynsym[6]][4]
    cstr = lambda off: bytes(data[off:data.index(b"\0", off)])  # noqa: E731
    # the needs: (file, version name) -> (index, offset of the vernaux entry)
    needs = {}
    off = verneed[4]
    while True:
        _, cnt, vn_file, vn_aux, vn_next = struct.unpack_from("<HHIII", data, off)
        aux = off + vn_aux
        for _ in range(cnt):
            _, _, other, name, nxt = struct.unpack_from("<IHHII", data, aux)
            needs[(cstr(strtab + vn_file), cstr(strtab + name))] = (other, aux)
            aux += nxt
        if not vn_next:
            break
        off += vn_next
    new = needs.get((b"libm.so.6", b"GLIBC_2.38"))
    old = needs.get((b"libm.so.6", b"GLIBC_2.2.5"))
    if not new:
        print(f"{path}: no libm GLIBC_2.38 need: nothing to do")
        return 0
    if not old:
        print(f"{path}: needs libm GLIBC_2.38 but not GLIBC_2.2.5: cannot rebind", file=sys.stderr)
        return 1
    n = dynsym[5] // 24
    still = 0
    for i in range(n):
        name_off, = struct.unpack_from("<I", data, dynsym[4] + i * 24)
        vs_off = versym[4] + 2 * i
        ver, = struct.unpack_from("<H", data, vs_off)
        if ver & 0x7FFF != new[0]:
            continue
        name = cstr(strtab + name_off)
        if name in NAMES:
            struct.pack_into("<H", data, vs_off, old[0])
            print(f"{path}: {name.decode()}@GLIBC_2.38 -> {name.decode()}@GLIBC_2.2.5")
        else:
            still += 1
            print(f"{path}: {name.decode()}@GLIBC_2.38 left as it is (not one this script rebinds)")
    if not still:
        flags_off = new[1] + 4
        flags, = struct.unpack_from("<H", data, flags_off)
        struct.pack_into("<H", data, flags_off, flags | 0x2)
        print(f"{path}: the libm GLIBC_2.38 need marked weak")
    open(path, "wb").write(data)
    return 1 if still else 0


if __name__ == "__main__":
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(max(patch(p) for p in sys.argv[1:]))

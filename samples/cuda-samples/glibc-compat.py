#!/usr/bin/env python3
"""Lets binaries built on a machine with a newer glibc/libstdc++ start on an older one.

Usage: glibc-compat.py BINARY...  (rewrites each in place; prints what it changed)

nvcc on the NVIDIA GPU machine links against glibc 2.38+ and libstdc++ of GCC 13, so the samples it
builds need the symbol versions GLIBC_2.38 (__isoc23_strtol, __isoc23_sscanf, __isoc23_fscanf: the C23
forms glibc's headers redirect to) and GLIBCXX_3.4.32 (std::ios_base_library_init, GCC 13's iostream
initialisation). The dynamic loader refuses to start a program needing a version the system's library
lacks, unless that need is marked weak (VER_FLG_WEAK in its Vernaux entry, System V gABI "Symbol
Versioning"). This script marks exactly those needs weak; glibc-compat.cc, preloaded, provides the
five functions (an unversioned definition satisfies a versioned reference). Nothing else of the file
changes: the same bytes of host code and the same embedded fat binary (the kernels) run on both sides.
"""
import struct
import sys

NEWER = {b"GLIBC_2.38", b"GLIBC_2.39", b"GLIBC_2.40", b"GLIBCXX_3.4.31", b"GLIBCXX_3.4.32", b"GLIBCXX_3.4.33"}
SHT_GNU_VERNEED = 0x6FFFFFFE
VER_FLG_WEAK = 0x2


def patch(path):
    with open(path, "rb") as f:
        b = bytearray(f.read())
    if b[:4] != b"\x7fELF" or b[4] != 2 or b[5] != 1:
        raise SystemExit(f"{path}: not a 64-bit little-endian ELF file")
    shoff, = struct.unpack_from("<Q", b, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", b, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", b, shoff + i * shentsize) for i in range(shnum)]
    changed = []
    for s in sections:
        if s[1] != SHT_GNU_VERNEED:
            continue
        strtab = sections[s[6]]  # sh_link: the string table of the names
        off = s[4]
        while True:
            vn_version, vn_cnt, vn_file, vn_aux, vn_next = struct.unpack_from("<HHIII", b, off)
            aux = off + vn_aux
            for _ in range(vn_cnt):
                vna_hash, vna_flags, vna_other, vna_name, vna_next = struct.unpack_from("<IHHII", b, aux)
                start = strtab[4] + vna_name
                name = bytes(b[start:b.index(0, start)])
                if name in NEWER and not vna_flags & VER_FLG_WEAK:
                    struct.pack_into("<H", b, aux + 4, vna_flags | VER_FLG_WEAK)
                    changed.append(name.decode())
                if vna_next == 0:
                    break
                aux += vna_next
            if vn_next == 0:
                break
            off += vn_next
    if changed:
        with open(path, "wb") as f:
            f.write(b)
    print(f"{path}: {'weak: ' + ' '.join(changed) if changed else 'nothing newer than this system needs'}")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        raise SystemExit(__doc__)
    for p in sys.argv[1:]:
        patch(p)

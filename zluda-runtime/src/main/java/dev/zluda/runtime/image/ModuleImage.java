package dev.zluda.runtime.image;

import com.github.luben.zstd.Zstd;
import net.jpountz.lz4.LZ4Factory;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.TreeSet;

/**
 * A CUDA module image as a driver receives it, read without trusting it: a fatbin wrapper (what
 * the CUDA runtime registers for each translation unit), one or several fatbins back to back, a
 * bare ELF (a cubin, or a host object or executable whose {@code .nv_fatbin} /
 * {@code __nv_relfatbin} sections hold fatbins), an {@code ar} archive of such files, or
 * NUL-terminated PTX text. It lists the entries (PTX, SASS cubins, LTO-IR), decompresses them
 * (zstd or LZ4), and picks the PTX a device of a given compute capability can run.
 *
 * <p>Layouts are those of shared/reference/cuda-facts.md ("Fatbins"), checked against files
 * nvcc 13.0 writes: wrapper (24 bytes) {@code u32 magic 0x466243B1, u32 version (1 or 2), u64 data,
 * u64 fatbins-or-filename}; fatbin header (16 bytes) {@code u32 magic 0xBA55ED50, u16 version 1,
 * u16 header size, u64 size of the entries}; entry header (at least 64 bytes) {@code u16 kind
 * (1 PTX, 2 ELF, 8 LTO-IR), u16 0x0101, u32 header size, u32 payload size @8, u32 compressed
 * size @16, u32 sm @28, u64 flags @40, u64 uncompressed size @56}; flags 0x2000 LZ4 block,
 * 0x8000 zstd frame, 0x100000 arch-specific ({@code sm_90a}), 0x200000 family-specific
 * ({@code sm_100f}).
 *
 * <p>Every size read from the image is checked against the structure that contains it and against
 * fixed caps ({@link #MAX_IMAGE_BYTES}, {@link #MAX_ENTRY_BYTES}); a violation is a
 * {@link ModuleImageException} whose message names the structure and the offset of the bad field.
 * No other exception escapes the public methods. What cannot be checked: an address-based image
 * ({@link #fromAddress(long)}) must point at readable memory, as for NVIDIA's driver.
 *
 * <p>Instances are immutable; entries of an address-based image read the caller's memory, which
 * must stay valid while they are used (program images are static data).
 */
public final class ModuleImage {
    /** Magic of the fatbin wrapper (little-endian u32 at offset 0). */
    public static final int FATBIN_WRAPPER_MAGIC = 0x466243B1;
    /** Magic of a fatbin header (little-endian u32 at offset 0). */
    public static final int FATBIN_MAGIC = 0xBA55ED50;
    /** Cap on one fatbin, ELF or PTX text: 1 GiB. */
    public static final long MAX_IMAGE_BYTES = 1L << 30;
    /** Cap on one entry, stored or decompressed: 256 MiB. */
    public static final long MAX_ENTRY_BYTES = 256L << 20;
    /** Cap on the number of entries of one image, of fatbins of a version-2 wrapper and of ar members. */
    public static final int MAX_COUNT = 65536;

    /** Entry flag: a raw LZ4 block. */
    public static final long FLAG_LZ4 = 0x2000;
    /** Entry flag: a zstd frame. */
    public static final long FLAG_ZSTD = 0x8000;
    /** Entry flag: arch-specific code ({@code sm_90a}): runs only on exactly that compute capability. */
    public static final long FLAG_ARCH_SPECIFIC = 0x100000;
    /** Entry flag: family-specific code ({@code sm_100f}): runs on the same major, same or higher minor. */
    public static final long FLAG_FAMILY_SPECIFIC = 0x200000;

    private static final int ENTRY_VERSION = 0x0101;
    private static final int EM_CUDA = 190;
    private static final byte[] AR_MAGIC = "!<arch>\n".getBytes(StandardCharsets.US_ASCII);

    /** What the image as a whole is. */
    public enum Format {
        /** A fatbin wrapper (what {@code __cudaRegisterFatBinary} and CUDART_INTERFACE slot 1 receive). */
        FATBIN_WRAPPER,
        /** One or several fatbins back to back. */
        FATBIN,
        /** A bare ELF: a cubin, or a host object or executable carrying fatbins. */
        ELF,
        /** An {@code ar} archive (a library). */
        AR_ARCHIVE,
        /** NUL-terminated PTX text. */
        PTX
    }

    /** What an entry holds. */
    public enum Kind {
        /** PTX text (fatbin entry kind 1): what the emulator runs. */
        PTX,
        /** An ELF cubin with SASS for one GPU architecture (kind 2). */
        ELF,
        /** NVVM IR for link-time optimisation (kind 8, {@code -gencode code=lto_86}). */
        LTO_IR,
        /** Any other kind code. */
        OTHER
    }

    /** How an entry is stored. */
    public enum Compression { NONE, LZ4, ZSTD }

    /** One entry: a PTX text, a cubin or another payload, with where it came from. */
    public static final class Entry {
        private final Kind kind;
        private final int kindCode;
        private final int sm;
        private final long flags;
        private final Compression compression;
        private final long uncompressedSize;
        private final String origin;
        private final MemorySegment stored;

        Entry(Kind kind, int kindCode, int sm, long flags, Compression compression, long uncompressedSize, String origin, MemorySegment stored) {
            this.kind = kind;
            this.kindCode = kindCode;
            this.sm = sm;
            this.flags = flags;
            this.compression = compression;
            this.uncompressedSize = uncompressedSize;
            this.origin = origin;
            this.stored = stored;
        }

        public Kind kind() {
            return kind;
        }

        /** The raw kind code of the entry header (1 PTX, 2 ELF, 8 LTO-IR); for bare PTX 1, for a bare cubin 2. */
        public int kindCode() {
            return kindCode;
        }

        /** The architecture, major*10+minor (75 = sm_75 / compute_75); 0 when unknown (bare PTX without {@code .target}). */
        public int smVersion() {
            return sm;
        }

        /** The entry header's flags (0 for bare PTX and cubins). */
        public long flags() {
            return flags;
        }

        public Compression compression() {
            return compression;
        }

        /** Bytes the entry occupies in the image (compressed size when compressed). */
        public long storedSize() {
            return stored.byteSize();
        }

        /** The uncompressed size the header declares (0 when not compressed). */
        public long uncompressedSize() {
            return uncompressedSize;
        }

        /** Where the entry is, e.g. "fatbin 0 @0x7f3a.., entry 2 @+0x1234" (for messages). */
        public String origin() {
            return origin;
        }

        public boolean archSpecific() {
            return (flags & FLAG_ARCH_SPECIFIC) != 0;
        }

        public boolean familySpecific() {
            return (flags & FLAG_FAMILY_SPECIFIC) != 0;
        }

        /** {@code compute_86} for PTX and LTO-IR, {@code sm_86} for cubins, with an {@code a} / {@code f} suffix when arch- or family-specific. */
        public String target() {
            String suffix = archSpecific() ? "a" : familySpecific() ? "f" : "";
            return (kind == Kind.ELF ? "sm_" : "compute_") + (sm == 0 ? "?" : Integer.toString(sm)) + suffix;
        }

        /** Whether a device of this compute capability can run this entry's code (ignoring its kind). */
        public boolean runsOn(int major, int minor) {
            int device = major * 10 + minor;
            if (sm == 0) return true;
            if (archSpecific()) return sm == device;
            if (familySpecific()) return sm / 10 == major && sm <= device;
            return sm <= device;
        }

        /**
         * The entry's bytes, decompressed; for PTX without trailing NUL bytes.
         *
         * @throws ModuleImageException when the compressed data is corrupt or its size exceeds
         *     {@link #MAX_ENTRY_BYTES} or differs from the declared size
         */
        public byte[] content() throws ModuleImageException {
            byte[] out;
            try {
                out = switch (compression) {
                    case NONE -> stored.toArray(ValueLayout.JAVA_BYTE);
                    case ZSTD -> unzstd();
                    case LZ4 -> unlz4();
                };
            } catch (ModuleImageException e) {
                throw e;
            } catch (RuntimeException | Error e) {
                throw new ModuleImageException(origin + ": cannot read " + compression + " payload: " + e);
            }
            if (kind == Kind.PTX) {
                int n = out.length;
                while (n > 0 && out[n - 1] == 0) n--;
                if (n != out.length) out = java.util.Arrays.copyOf(out, n);
            }
            return out;
        }

        /** The PTX text (US-ASCII bytes as characters). Only for {@link Kind#PTX} entries. */
        public String ptx() throws ModuleImageException {
            if (kind != Kind.PTX) throw new IllegalStateException(origin + " is " + kind + ", not PTX");
            return new String(content(), StandardCharsets.ISO_8859_1);
        }

        private byte[] unzstd() throws ModuleImageException {
            byte[] src = stored.toArray(ValueLayout.JAVA_BYTE);
            long size = uncompressedSize;
            if (size == 0) size = Zstd.getFrameContentSize(src);
            if (size <= 0 || size > MAX_ENTRY_BYTES) {
                throw new ModuleImageException(origin + ": zstd entry declares an uncompressed size of " + size + " bytes (allowed 1.." + MAX_ENTRY_BYTES + ")");
            }
            byte[] dst = new byte[(int) size];
            long n = Zstd.decompressByteArray(dst, 0, dst.length, src, 0, src.length);
            if (Zstd.isError(n)) throw new ModuleImageException(origin + ": corrupt zstd payload: " + Zstd.getErrorName(n));
            if (n != size) throw new ModuleImageException(origin + ": zstd payload gives " + n + " bytes, the header declares " + size);
            return dst;
        }

        private byte[] unlz4() throws ModuleImageException {
            long size = uncompressedSize;
            if (size <= 0 || size > MAX_ENTRY_BYTES) {
                throw new ModuleImageException(origin + ": LZ4 entry declares an uncompressed size of " + size + " bytes (allowed 1.." + MAX_ENTRY_BYTES + ")");
            }
            byte[] src = stored.toArray(ValueLayout.JAVA_BYTE);
            byte[] dst = new byte[(int) size];
            int n = LZ4Factory.safeInstance().safeDecompressor().decompress(src, 0, src.length, dst, 0, dst.length);
            if (n != size) throw new ModuleImageException(origin + ": LZ4 payload gives " + n + " bytes, the header declares " + size);
            return dst;
        }

        @Override
        public String toString() {
            return kind + " " + target() + (compression == Compression.NONE ? "" : " " + compression.name().toLowerCase(Locale.ROOT))
                    + ", " + storedSize() + " bytes stored (" + origin + ")";
        }
    }

    private final Format format;
    private final List<Entry> entries;
    private final int fatbins;
    private final MemorySegment bytes;

    private ModuleImage(Format format, List<Entry> entries, int fatbins, MemorySegment bytes) {
        this.format = format;
        this.entries = Collections.unmodifiableList(entries);
        this.fatbins = fatbins;
        this.bytes = bytes;
    }

    /**
     * The bytes of the image, as a capture stores it (trace-format/FORMAT.md §6.4, MODULE): for a
     * fatbin wrapper the fatbin it points to (the first one of a version-2 wrapper), header and
     * entries; for a fatbin read at an address that fatbin; for an ELF read at an address the ELF up
     * to the furthest of its tables and sections; for PTX text the text without its terminating NUL;
     * for an image of known size ({@link #fromSegment}) all of it but what follows a PTX text's NUL.
     * An address-based image's segment reads the caller's memory (see the class comment).
     */
    public MemorySegment bytes() {
        return bytes;
    }

    public Format format() {
        return format;
    }

    /** Every entry, in image order. */
    public List<Entry> entries() {
        return entries;
    }

    /** Number of fatbins the entries came from (0 for bare PTX and cubins). */
    public int fatbinCount() {
        return fatbins;
    }

    /**
     * The PTX a device of compute capability {@code major.minor} runs: among the PTX entries that
     * {@link Entry#runsOn run on it}, the one with the highest architecture (the first of equals),
     * as NVIDIA's driver JIT-compiles the newest compatible PTX when no cubin matches.
     *
     * @throws ModuleImageException ({@link ModuleImageException#noBinaryForDevice()} true) when
     *     there is none, naming what the image holds instead
     */
    public Entry bestPtx(int major, int minor) throws ModuleImageException {
        Entry best = null;
        for (Entry e : entries) {
            if (e.kind == Kind.PTX && e.runsOn(major, minor) && (best == null || e.sm > best.sm)) best = e;
        }
        if (best != null) return best;
        throw new ModuleImageException(noPtxMessage(major, minor), ModuleImageException.Reason.NO_BINARY_FOR_DEVICE);
    }

    /**
     * The PTX zluda runs on a device of compute capability {@code major.minor}: {@link #bestPtx} when the image has
     * PTX the device can run; otherwise — the image only has PTX for newer architectures (compute_90 on the default
     * 8.6, or arch-specific compute_90a) — the PTX of the oldest of them (the first of equals). NVIDIA's driver refuses
     * such an image on an older GPU (CUDA_ERROR_NO_BINARY_FOR_GPU); zluda's devices are not bound to an architecture:
     * the emulator executes an instruction form or refuses the module naming it, whatever the {@code .target}
     * (docs/support.md, "PTX targets").
     *
     * @throws ModuleImageException ({@link ModuleImageException#noBinaryForDevice()} true) when the image has no
     *     PTX at all, naming what it holds instead
     */
    public Entry ptxToRun(int major, int minor) throws ModuleImageException {
        for (Entry e : entries) if (e.kind == Kind.PTX && e.runsOn(major, minor)) return bestPtx(major, minor);
        Entry oldest = null;
        for (Entry e : entries) if (e.kind == Kind.PTX && (oldest == null || e.sm < oldest.sm)) oldest = e;
        if (oldest != null) return oldest;
        throw new ModuleImageException(noPtxMessage(major, minor), ModuleImageException.Reason.NO_BINARY_FOR_DEVICE);
    }

    private String noPtxMessage(int major, int minor) {
        TreeSet<String> sass = new TreeSet<>(), ptx = new TreeSet<>(), other = new TreeSet<>();
        for (Entry e : entries) {
            switch (e.kind) {
                case ELF -> sass.add(e.target());
                case PTX -> ptx.add(e.target());
                default -> other.add(e.kind + " " + e.target());
            }
        }
        StringBuilder b = new StringBuilder("no PTX for compute capability " + major + "." + minor + " in this " + describeFormat() + ":");
        if (entries.isEmpty()) b.append(" it has no entries");
        if (!sass.isEmpty()) b.append(" SASS only for ").append(String.join(", ", sass)).append(" (NVIDIA GPU machine code, which zluda cannot run);");
        if (!ptx.isEmpty()) b.append(" PTX for ").append(String.join(", ", ptx)).append(" (newer than the device, or arch-specific);");
        if (!other.isEmpty()) b.append(" ").append(String.join(", ", other)).append(";");
        b.append(" rebuild with PTX, e.g. nvcc -gencode arch=compute_").append(major).append(minor).append(",code=compute_").append(major).append(minor);
        if (!ptx.isEmpty()) b.append(", or pick a newer device with ZLUDA_OVERRIDE_COMPUTE_CAPABILITY");
        return b.toString();
    }

    private String describeFormat() {
        return switch (format) {
            case FATBIN_WRAPPER -> "fatbin wrapper";
            case FATBIN -> "fatbin";
            case ELF -> "ELF image";
            case AR_ARCHIVE -> "ar archive";
            case PTX -> "PTX image";
        };
    }

    /** One line per entry, like {@code cuobjdump -lelf -lptx}. */
    public List<String> listing() {
        List<String> out = new ArrayList<>();
        for (Entry e : entries) out.add(e.toString());
        return out;
    }

    // ------------------------------------------------------------------------------ reading

    /**
     * Reads the image at a raw address, as {@code cuModuleLoadData} (fatbin header, cubin, PTX) or
     * CUDART_INTERFACE slot 1 (fatbin wrapper) receives it. The size is taken from the headers
     * (one fatbin per fatbin header; a NUL ends PTX text); {@code ar} archives need a size and are
     * refused here.
     *
     * @param address the first byte of the image; 0 and addresses below 4096 are refused
     * @throws ModuleImageException when the image is malformed or unrecognised
     */
    public static ModuleImage fromAddress(long address) throws ModuleImageException {
        try {
            return readAddress(address);
        } catch (ModuleImageException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new ModuleImageException("module image @0x" + Long.toHexString(address) + " cannot be read: " + e);
        }
    }

    /**
     * Reads an image of known size (a file, or bytes given with their length): several fatbins
     * back to back are read, and {@code ar} archives are accepted.
     *
     * @throws ModuleImageException when the image is malformed or unrecognised
     */
    public static ModuleImage fromSegment(MemorySegment image) throws ModuleImageException {
        try {
            return readSegment(image, "image");
        } catch (ModuleImageException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new ModuleImageException("module image cannot be read: " + e);
        }
    }

    /** {@link #fromSegment(MemorySegment)} of a byte array (kept, not copied). */
    public static ModuleImage of(byte[] image) throws ModuleImageException {
        return fromSegment(MemorySegment.ofArray(image));
    }

    private static ModuleImage readAddress(long address) throws ModuleImageException {
        if (address == 0) throw new ModuleImageException("module image pointer is NULL");
        if (Long.compareUnsigned(address, 4096) < 0) throw new ModuleImageException("module image pointer 0x" + Long.toHexString(address) + " is not a valid address");
        String where = "image @0x" + Long.toHexString(address);
        MemorySegment head = raw(address, 4);
        int magic = head.get(ValueLayout.JAVA_INT_UNALIGNED, 0);
        if (magic == FATBIN_WRAPPER_MAGIC) {
            List<Entry> entries = new ArrayList<>();
            MemorySegment[] first = new MemorySegment[1];
            int fatbins = readWrapper(address, entries, first);
            return new ModuleImage(Format.FATBIN_WRAPPER, entries, fatbins, first[0]);
        }
        if (magic == FATBIN_MAGIC) {
            List<Entry> entries = new ArrayList<>();
            MemorySegment f = fatbinAt(address, entries, "fatbin 0 @0x" + Long.toHexString(address));
            return new ModuleImage(Format.FATBIN, entries, 1, f);
        }
        if (magic == 0x464C457F) {
            MemorySegment elf = raw(address, elfSize(address, where));
            return readElf(elf, where);
        }
        MemorySegment ar = raw(address, AR_MAGIC.length);
        if (startsWith(ar, AR_MAGIC)) {
            throw new ModuleImageException(where + " is an ar archive (a library, for cuLinkAddData with its size), not a module image");
        }
        // PTX text: up to the first NUL
        MemorySegment text = raw(address, MAX_IMAGE_BYTES);
        checkText(text, where);
        long n = 0;
        while (n < MAX_IMAGE_BYTES && text.get(ValueLayout.JAVA_BYTE, n) != 0) n++;
        if (n == MAX_IMAGE_BYTES) throw new ModuleImageException(where + ": PTX text has no terminating NUL within " + MAX_IMAGE_BYTES + " bytes");
        return new ModuleImage(Format.PTX, new ArrayList<>(List.of(ptxEntry(text.asSlice(0, n), where))), 0, text.asSlice(0, n));
    }

    private static MemorySegment raw(long address, long bytes) {
        return MemorySegment.ofAddress(address).reinterpret(bytes);
    }

    /** Reads a fatbin wrapper at an address; returns the number of fatbins. */
    private static int readWrapper(long address, List<Entry> entries, MemorySegment[] first) throws ModuleImageException {
        String where = "fatbin wrapper @0x" + Long.toHexString(address);
        MemorySegment w = raw(address, 24);
        int version = w.get(ValueLayout.JAVA_INT_UNALIGNED, 4);
        long data = w.get(ValueLayout.JAVA_LONG_UNALIGNED, 8);
        long fatbinsOrName = w.get(ValueLayout.JAVA_LONG_UNALIGNED, 16);
        switch (version) {
            case 1 -> {
                checkPointer(data, where + ": field data at offset 0x8");
                first[0] = fatbinAt(data, entries, "fatbin 0 @0x" + Long.toHexString(data));
                return 1;
            }
            case 2 -> {
                // relocatable device code: a NULL-terminated array of prelinked fatbins
                checkPointer(fatbinsOrName, where + ": field fatbins at offset 0x10 (version 2)");
                int n = 0;
                while (true) {
                    if (n >= MAX_COUNT) throw new ModuleImageException(where + ": fatbin array @0x" + Long.toHexString(fatbinsOrName) + " has no NULL within " + MAX_COUNT + " pointers");
                    long p = raw(fatbinsOrName + 8L * n, 8).get(ValueLayout.JAVA_LONG_UNALIGNED, 0);
                    if (p == 0) break;
                    checkPointer(p, where + ": fatbin array element " + n);
                    MemorySegment f = fatbinAt(p, entries, "fatbin " + n + " @0x" + Long.toHexString(p));
                    if (n == 0) first[0] = f;
                    n++;
                }
                if (n == 0) throw new ModuleImageException(where + ": version 2 wrapper with an empty fatbin array");
                return n;
            }
            default -> throw new ModuleImageException(where + ": version " + version + " at offset 0x4 (known: 1, 2)");
        }
    }

    private static void checkPointer(long p, String what) throws ModuleImageException {
        if (p == 0) throw new ModuleImageException(what + " is NULL");
        if (Long.compareUnsigned(p, 4096) < 0) throw new ModuleImageException(what + " is not a valid address: 0x" + Long.toHexString(p));
    }

    /** One fatbin at an address, its size from its header; returns the bytes it spans. */
    private static MemorySegment fatbinAt(long address, List<Entry> entries, String where) throws ModuleImageException {
        MemorySegment h = raw(address, 16);
        long size = fatbinSize(h, 0, where);
        MemorySegment f = raw(address, size);
        parseFatbin(f, entries, where);
        return f;
    }

    /** Checks the fatbin header at {@code off} and returns the fatbin's total size (header + entries). */
    private static long fatbinSize(MemorySegment s, long off, String where) throws ModuleImageException {
        need(s, off, 16, where, "fatbin header");
        int magic = s.get(ValueLayout.JAVA_INT_UNALIGNED, off);
        if (magic != FATBIN_MAGIC) {
            throw new ModuleImageException(where + ": magic 0x" + Integer.toHexString(magic) + " at offset 0x0 is not a fatbin's (0xba55ed50)");
        }
        int version = Short.toUnsignedInt(s.get(ValueLayout.JAVA_SHORT_UNALIGNED, off + 4));
        if (version != 1) throw new ModuleImageException(where + ": fatbin version " + version + " at offset 0x4 (known: 1)");
        int headerSize = Short.toUnsignedInt(s.get(ValueLayout.JAVA_SHORT_UNALIGNED, off + 6));
        if (headerSize < 16) throw new ModuleImageException(where + ": fatbin header size " + headerSize + " at offset 0x6 is below 16");
        long filesSize = s.get(ValueLayout.JAVA_LONG_UNALIGNED, off + 8);
        if (filesSize < 0 || filesSize > MAX_IMAGE_BYTES - headerSize) {
            throw new ModuleImageException(where + ": fatbin size " + Long.toUnsignedString(filesSize) + " at offset 0x8 exceeds the cap of " + MAX_IMAGE_BYTES + " bytes");
        }
        return headerSize + filesSize;
    }

    /** The entries of one fatbin; {@code f} spans exactly the fatbin. */
    private static void parseFatbin(MemorySegment f, List<Entry> entries, String where) throws ModuleImageException {
        int headerSize = Short.toUnsignedInt(f.get(ValueLayout.JAVA_SHORT_UNALIGNED, 6));
        long end = f.byteSize();
        long off = headerSize;
        int index = 0;
        while (end - off >= 64) {
            String at = where + ", entry " + index + " @+0x" + Long.toHexString(off);
            if (entries.size() >= MAX_COUNT) throw new ModuleImageException(at + ": more than " + MAX_COUNT + " entries");
            int kind = Short.toUnsignedInt(f.get(ValueLayout.JAVA_SHORT_UNALIGNED, off));
            int version = Short.toUnsignedInt(f.get(ValueLayout.JAVA_SHORT_UNALIGNED, off + 2));
            if (version != ENTRY_VERSION) {
                throw new ModuleImageException(at + ": entry version 0x" + Integer.toHexString(version) + " at offset 0x" + Long.toHexString(off + 2) + " (known: 0x101)");
            }
            long hs = Integer.toUnsignedLong(f.get(ValueLayout.JAVA_INT_UNALIGNED, off + 4));
            if (hs < 64 || hs > end - off) {
                throw new ModuleImageException(at + ": entry header size " + hs + " at offset 0x" + Long.toHexString(off + 4) + " is below 64 or past the fatbin's end (" + (end - off) + " bytes left)");
            }
            long payload = Integer.toUnsignedLong(f.get(ValueLayout.JAVA_INT_UNALIGNED, off + 8));
            long compressed = Integer.toUnsignedLong(f.get(ValueLayout.JAVA_INT_UNALIGNED, off + 16));
            int sm = f.get(ValueLayout.JAVA_INT_UNALIGNED, off + 28);
            long flags = f.get(ValueLayout.JAVA_LONG_UNALIGNED, off + 40);
            long uncompressed = f.get(ValueLayout.JAVA_LONG_UNALIGNED, off + 56);
            long stored = Math.max(payload, compressed);
            if (stored > end - off - hs) {
                throw new ModuleImageException(at + ": payload of " + stored + " bytes (sizes at offsets 0x" + Long.toHexString(off + 8) + ", 0x"
                        + Long.toHexString(off + 16) + ") runs past the fatbin's end (" + (end - off - hs) + " bytes left)");
            }
            if (stored > MAX_ENTRY_BYTES) throw new ModuleImageException(at + ": payload of " + stored + " bytes exceeds the cap of " + MAX_ENTRY_BYTES);
            Compression c;
            if ((flags & FLAG_LZ4) != 0 && (flags & FLAG_ZSTD) != 0) {
                throw new ModuleImageException(at + ": flags 0x" + Long.toHexString(flags) + " at offset 0x" + Long.toHexString(off + 40) + " ask for both LZ4 and zstd");
            } else if ((flags & (FLAG_LZ4 | FLAG_ZSTD)) != 0) {
                c = (flags & FLAG_LZ4) != 0 ? Compression.LZ4 : Compression.ZSTD;
                if (compressed == 0) throw new ModuleImageException(at + ": compressed entry with a compressed size of 0 at offset 0x" + Long.toHexString(off + 16));
                if (uncompressed < 0 || uncompressed > MAX_ENTRY_BYTES) {
                    throw new ModuleImageException(at + ": uncompressed size " + Long.toUnsignedString(uncompressed) + " at offset 0x" + Long.toHexString(off + 56) + " exceeds the cap of " + MAX_ENTRY_BYTES);
                }
            } else {
                c = Compression.NONE;
                uncompressed = 0;
            }
            long dataSize = c == Compression.NONE ? payload : compressed;
            Kind k = switch (kind) {
                case 1 -> Kind.PTX;
                case 2 -> Kind.ELF;
                case 8 -> Kind.LTO_IR;
                default -> Kind.OTHER;
            };
            entries.add(new Entry(k, kind, sm, flags, c, uncompressed, at, f.asSlice(off + hs, dataSize)));
            off += hs + stored;
            index++;
        }
    }

    private static void need(MemorySegment s, long off, long n, String where, String what) throws ModuleImageException {
        if (off < 0 || n < 0 || off > s.byteSize() - n) {
            throw new ModuleImageException(where + ": " + what + " at offset 0x" + Long.toHexString(off) + " needs " + n + " bytes, the image has "
                    + Math.max(0, s.byteSize() - Math.max(0, off)) + " left");
        }
    }

    private static ModuleImage readSegment(MemorySegment s, String where) throws ModuleImageException {
        if (s.byteSize() < 4) throw new ModuleImageException(where + ": " + s.byteSize() + " bytes is too short for any module image");
        int magic = s.get(ValueLayout.JAVA_INT_UNALIGNED, 0);
        if (magic == FATBIN_WRAPPER_MAGIC) {
            throw new ModuleImageException(where + " is a fatbin wrapper, which points into process memory: read it with fromAddress");
        }
        if (magic == FATBIN_MAGIC) {
            List<Entry> entries = new ArrayList<>();
            int n = fatbinsBackToBack(s, entries, "");
            return new ModuleImage(Format.FATBIN, entries, n, s);
        }
        if (magic == 0x464C457F) return readElf(s, where);
        if (startsWith(s, AR_MAGIC)) return readAr(s, where);
        checkText(s, where);
        long n = 0;
        while (n < s.byteSize() && s.get(ValueLayout.JAVA_BYTE, n) != 0) n++;
        return new ModuleImage(Format.PTX, new ArrayList<>(List.of(ptxEntry(s.asSlice(0, n), where))), 0, s.asSlice(0, n));
    }

    /** Fatbins back to back in {@code s} (zero padding between and after them allowed); returns how many. */
    private static int fatbinsBackToBack(MemorySegment s, List<Entry> entries, String prefix) throws ModuleImageException {
        long off = 0;
        int n = 0;
        while (off < s.byteSize()) {
            if (s.byteSize() - off < 16 || s.get(ValueLayout.JAVA_INT_UNALIGNED, off) != FATBIN_MAGIC) {
                // zero padding (fatbins are 8-byte aligned) is skipped up to the next boundary
                long next = Math.min(s.byteSize(), (off + 8) & ~7L);
                if (isZero(s, off, next)) {
                    off = next;
                    continue;
                }
                String at = prefix + "fatbin " + n + " @+0x" + Long.toHexString(off);
                throw new ModuleImageException(at + ": no fatbin magic (0xba55ed50) at offset 0x" + Long.toHexString(off) + " after " + n + " fatbin(s)");
            }
            String at = prefix + "fatbin " + n + " @+0x" + Long.toHexString(off);
            long size = fatbinSize(s, off, at);
            if (size > s.byteSize() - off) {
                throw new ModuleImageException(at + ": fatbin of " + size + " bytes (size at offset 0x" + Long.toHexString(off + 8) + ") runs past the image's end ("
                        + (s.byteSize() - off) + " bytes left)");
            }
            parseFatbin(s.asSlice(off, size), entries, at);
            off += size;
            n++;
            if (n > MAX_COUNT) throw new ModuleImageException(at + ": more than " + MAX_COUNT + " fatbins");
        }
        return n;
    }

    private static boolean isZero(MemorySegment s, long from, long to) {
        for (long i = from; i < to; i++) if (s.get(ValueLayout.JAVA_BYTE, i) != 0) return false;
        return true;
    }

    private static boolean startsWith(MemorySegment s, byte[] prefix) {
        if (s.byteSize() < prefix.length) return false;
        for (int i = 0; i < prefix.length; i++) if (s.get(ValueLayout.JAVA_BYTE, i) != prefix[i]) return false;
        return true;
    }

    private static void checkText(MemorySegment s, String where) throws ModuleImageException {
        long n = Math.min(16, s.byteSize());
        for (long i = 0; i < n; i++) {
            int b = Byte.toUnsignedInt(s.get(ValueLayout.JAVA_BYTE, i));
            if (b == 0 && i > 0) break;
            if (!(b == '\t' || b == '\n' || b == '\r' || (b >= 0x20 && b < 0x7f))) {
                byte[] first = s.asSlice(0, Math.min(8, i + 1)).toArray(ValueLayout.JAVA_BYTE); // not past what was read
                throw new ModuleImageException(where + ": unrecognised module image, first bytes " + HexFormat.ofDelimiter(" ").formatHex(first)
                        + " (byte 0x" + Integer.toHexString(b) + " at offset 0x" + Long.toHexString(i) + "): not a fatbin wrapper (b1 43 62 46), fatbin (50 ed 55 ba),"
                        + " ELF (7f 45 4c 46), ar archive (!<arch>) or PTX text");
            }
        }
    }

    private static Entry ptxEntry(MemorySegment text, String where) throws ModuleImageException {
        if (text.byteSize() == 0) throw new ModuleImageException(where + ": empty PTX text");
        return new Entry(Kind.PTX, 1, ptxTarget(text), 0, Compression.NONE, 0, where + " (PTX text)", text);
    }

    /** The architecture of the first {@code .target sm_XX} directive within the first 64 KiB; 0 if none. */
    private static int ptxTarget(MemorySegment text) {
        long n = Math.min(text.byteSize(), 65536);
        String head = new String(text.asSlice(0, n).toArray(ValueLayout.JAVA_BYTE), StandardCharsets.ISO_8859_1);
        var m = java.util.regex.Pattern.compile("(?m)^\\s*\\.target\\s+sm_(\\d+)").matcher(head);
        return m.find() && m.group(1).length() <= 4 ? Integer.parseInt(m.group(1)) : 0;
    }

    // ---------------------------------------------------------------------------------- ELF

    /** Size of an ELF at an address: the furthest of its header tables and section contents. */
    private static long elfSize(long address, String where) throws ModuleImageException {
        MemorySegment h = raw(address, 64);
        checkElfHeader(h, where);
        long end = 64;
        long shoff = h.get(ValueLayout.JAVA_LONG_UNALIGNED, 0x28);
        int shentsize = Short.toUnsignedInt(h.get(ValueLayout.JAVA_SHORT_UNALIGNED, 0x3A));
        int shnum = Short.toUnsignedInt(h.get(ValueLayout.JAVA_SHORT_UNALIGNED, 0x3C));
        long phoff = h.get(ValueLayout.JAVA_LONG_UNALIGNED, 0x20);
        int phentsize = Short.toUnsignedInt(h.get(ValueLayout.JAVA_SHORT_UNALIGNED, 0x36));
        int phnum = Short.toUnsignedInt(h.get(ValueLayout.JAVA_SHORT_UNALIGNED, 0x38));
        if (shnum > 0) end = Math.max(end, checkedEnd(shoff, (long) shentsize * shnum, where, "section header table (e_shoff at offset 0x28)"));
        if (phnum > 0) end = Math.max(end, checkedEnd(phoff, (long) phentsize * phnum, where, "program header table (e_phoff at offset 0x20)"));
        if (shnum > 0 && shentsize >= 64) {
            MemorySegment sh = raw(address + shoff, (long) shentsize * shnum);
            for (int i = 0; i < shnum; i++) {
                long base = (long) i * shentsize;
                int type = sh.get(ValueLayout.JAVA_INT_UNALIGNED, base + 4);
                if (type == 8) continue; // SHT_NOBITS occupies no file space
                long off = sh.get(ValueLayout.JAVA_LONG_UNALIGNED, base + 0x18);
                long size = sh.get(ValueLayout.JAVA_LONG_UNALIGNED, base + 0x20);
                end = Math.max(end, checkedEnd(off, size, where, "section " + i));
            }
        }
        if (phnum > 0 && phentsize >= 56) {
            MemorySegment ph = raw(address + phoff, (long) phentsize * phnum);
            for (int i = 0; i < phnum; i++) {
                long base = (long) i * phentsize;
                long off = ph.get(ValueLayout.JAVA_LONG_UNALIGNED, base + 0x8);
                long size = ph.get(ValueLayout.JAVA_LONG_UNALIGNED, base + 0x20);
                end = Math.max(end, checkedEnd(off, size, where, "program header " + i));
            }
        }
        return end;
    }

    private static long checkedEnd(long off, long size, String where, String what) throws ModuleImageException {
        if (off < 0 || size < 0 || off > MAX_IMAGE_BYTES || size > MAX_IMAGE_BYTES - off) {
            throw new ModuleImageException(where + ": " + what + " at 0x" + Long.toHexString(off) + ", " + Long.toUnsignedString(size)
                    + " bytes, reaches past the cap of " + MAX_IMAGE_BYTES + " bytes");
        }
        return off + size;
    }

    private static void checkElfHeader(MemorySegment h, String where) throws ModuleImageException {
        need(h, 0, 64, where, "ELF header");
        int cls = h.get(ValueLayout.JAVA_BYTE, 4);
        if (cls != 2) throw new ModuleImageException(where + ": ELF class " + cls + " at offset 0x4: only 64-bit ELF (2) is supported");
        int data = h.get(ValueLayout.JAVA_BYTE, 5);
        if (data != 1) throw new ModuleImageException(where + ": ELF data encoding " + data + " at offset 0x5: only little-endian (1) is supported");
    }

    private static ModuleImage readElf(MemorySegment elf, String where) throws ModuleImageException {
        checkElfHeader(elf, where);
        int machine = Short.toUnsignedInt(elf.get(ValueLayout.JAVA_SHORT_UNALIGNED, 0x12));
        List<Entry> entries = new ArrayList<>();
        if (machine == EM_CUDA) {
            entries.add(cubinEntry(elf, where));
            return new ModuleImage(Format.ELF, entries, 0, elf);
        }
        int n = hostElfFatbins(elf, where, entries);
        if (n == 0) throw new ModuleImageException(where + ": an ELF for machine " + machine + " without .nv_fatbin or __nv_relfatbin sections holds no CUDA code");
        return new ModuleImage(Format.ELF, entries, n, elf);
    }

    private static Entry cubinEntry(MemorySegment elf, String where) {
        int osabi = Byte.toUnsignedInt(elf.get(ValueLayout.JAVA_BYTE, 7));
        int flags = elf.get(ValueLayout.JAVA_INT_UNALIGNED, 0x30);
        // nvcc 13 (ELFOSABI 0x41): sm in e_flags bits 8..15; older cubins: bits 0..7
        int sm = osabi == 0x41 ? (flags >>> 8) & 0xff : flags & 0xff;
        return new Entry(Kind.ELF, 2, sm, 0, Compression.NONE, 0, where + " (cubin)", elf);
    }

    /** Fatbins in the {@code .nv_fatbin} and {@code __nv_relfatbin} sections of a host ELF; returns how many. */
    private static int hostElfFatbins(MemorySegment elf, String where, List<Entry> entries) throws ModuleImageException {
        long shoff = elf.get(ValueLayout.JAVA_LONG_UNALIGNED, 0x28);
        int shentsize = Short.toUnsignedInt(elf.get(ValueLayout.JAVA_SHORT_UNALIGNED, 0x3A));
        int shnum = Short.toUnsignedInt(elf.get(ValueLayout.JAVA_SHORT_UNALIGNED, 0x3C));
        int shstrndx = Short.toUnsignedInt(elf.get(ValueLayout.JAVA_SHORT_UNALIGNED, 0x3E));
        if (shnum == 0) return 0;
        if (shentsize < 64) throw new ModuleImageException(where + ": section header size " + shentsize + " at offset 0x3a is below 64");
        need(elf, shoff, (long) shentsize * shnum, where, "section header table (e_shoff at offset 0x28)");
        if (shstrndx >= shnum) throw new ModuleImageException(where + ": section name table index " + shstrndx + " at offset 0x3e is not below the section count " + shnum);
        long strBase = shoff + (long) shstrndx * shentsize;
        long strOff = elf.get(ValueLayout.JAVA_LONG_UNALIGNED, strBase + 0x18);
        long strSize = elf.get(ValueLayout.JAVA_LONG_UNALIGNED, strBase + 0x20);
        need(elf, strOff, strSize, where, "section name table");
        MemorySegment names = elf.asSlice(strOff, strSize);
        int fatbins = 0;
        for (int i = 0; i < shnum; i++) {
            long base = shoff + (long) i * shentsize;
            long nameOff = Integer.toUnsignedLong(elf.get(ValueLayout.JAVA_INT_UNALIGNED, base));
            String name = cString(names, nameOff, 64);
            if (!name.equals(".nv_fatbin") && !name.equals("__nv_relfatbin")) continue;
            long off = elf.get(ValueLayout.JAVA_LONG_UNALIGNED, base + 0x18);
            long size = elf.get(ValueLayout.JAVA_LONG_UNALIGNED, base + 0x20);
            need(elf, off, size, where, "section " + name);
            fatbins += fatbinsBackToBack(elf.asSlice(off, size), entries, where + ", section " + name + ", ");
        }
        return fatbins;
    }

    private static String cString(MemorySegment s, long off, int max) {
        StringBuilder b = new StringBuilder();
        for (long i = off; i < s.byteSize() && i < off + max; i++) {
            byte c = s.get(ValueLayout.JAVA_BYTE, i);
            if (c == 0) break;
            b.append((char) (c & 0xff));
        }
        return b.toString();
    }

    // ----------------------------------------------------------------------------------- ar

    private static ModuleImage readAr(MemorySegment s, String where) throws ModuleImageException {
        List<Entry> entries = new ArrayList<>();
        long off = AR_MAGIC.length;
        int members = 0, fatbins = 0;
        while (s.byteSize() - off >= 60) {
            String at = where + ", ar member " + members + " @0x" + Long.toHexString(off);
            if (members >= MAX_COUNT) throw new ModuleImageException(at + ": more than " + MAX_COUNT + " members");
            byte[] h = s.asSlice(off, 60).toArray(ValueLayout.JAVA_BYTE);
            if (h[58] != '`' || h[59] != '\n') throw new ModuleImageException(at + ": member header lacks its terminator (\"`\\n\" at offset 0x" + Long.toHexString(off + 58) + ")");
            String name = new String(h, 0, 16, StandardCharsets.US_ASCII).trim();
            String sizeText = new String(h, 48, 10, StandardCharsets.US_ASCII).trim();
            long size;
            try {
                size = Long.parseLong(sizeText);
            } catch (NumberFormatException e) {
                throw new ModuleImageException(at + ": member size \"" + sizeText + "\" at offset 0x" + Long.toHexString(off + 48) + " is not a decimal number");
            }
            if (size < 0 || size > s.byteSize() - off - 60) {
                throw new ModuleImageException(at + ": member size " + size + " at offset 0x" + Long.toHexString(off + 48) + " runs past the archive's end");
            }
            MemorySegment data = s.asSlice(off + 60, size);
            if (!name.equals("/") && !name.equals("//") && !name.startsWith("/SYM64/") && size >= 4) {
                int magic = data.get(ValueLayout.JAVA_INT_UNALIGNED, 0);
                String mw = at + " (" + name + ")";
                if (magic == FATBIN_MAGIC) {
                    fatbins += fatbinsBackToBack(data, entries, mw + ", ");
                } else if (magic == 0x464C457F) {
                    checkElfHeader(data, mw);
                    int machine = Short.toUnsignedInt(data.get(ValueLayout.JAVA_SHORT_UNALIGNED, 0x12));
                    if (machine == EM_CUDA) entries.add(cubinEntry(data, mw));
                    else fatbins += hostElfFatbins(data, mw, entries);
                }
            }
            off += 60 + size + (size & 1);
            members++;
        }
        if (entries.isEmpty()) throw new ModuleImageException(where + ": ar archive with " + members + " members holds no CUDA code");
        return new ModuleImage(Format.AR_ARCHIVE, entries, fatbins, s);
    }
}

package dev.zluda.capture;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.zluda.spec.CudaFunction;
import dev.zluda.spec.CudaParam;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import java.util.zip.ZipOutputStream;

/**
 * Bug-report packs (FORMAT.md §8): one ZIP with {@code manifest.json}, {@code capture.zcap} and the
 * module files at its top level, optionally redacted; and their safe unpacking.
 */
public final class Pack {
    private Pack() {}

    /** What {@code --redact} can remove. */
    public enum Redaction {
        /** Buffer contents become hashes and sizes. */
        DATA,
        /** Environment variables other than CUDA_* and ZLUDA_* are removed from the manifest. */
        ENV,
        /** Home-directory paths in the manifest become {@code ~}. */
        PATHS;

        /** Parses {@code data}, {@code env} or {@code paths}; IllegalArgumentException otherwise. */
        public static Redaction parse(String s) {
            return switch (s.trim().toLowerCase(Locale.ROOT)) {
                case "data" -> DATA;
                case "env" -> ENV;
                case "paths" -> PATHS;
                default -> throw new IllegalArgumentException("unknown redaction '" + s + "' (use data, env, paths)");
            };
        }
    }

    private static final Pattern ENTRY_NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,200}");

    /** Whether the file starts with a ZIP local header ({@code PK\3\4}). */
    public static boolean isPack(Path p) {
        if (!Files.isRegularFile(p)) return false;
        try (InputStream in = Files.newInputStream(p)) {
            byte[] b = in.readNBytes(4);
            return b.length == 4 && b[0] == 'P' && b[1] == 'K' && b[2] == 3 && b[3] == 4;
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * Writes a pack of an open capture.
     *
     * @param capture the capture (its directory supplies the manifest and module files)
     * @param out the ZIP to write (replaced)
     * @param redact what to redact
     * @throws IOException on write errors; CaptureException when the capture cannot be rewritten
     */
    public static void pack(Capture capture, Path out, Set<Redaction> redact) throws IOException, CaptureException {
        ObjectMapper om = new ObjectMapper();
        ObjectNode manifest = capture.manifest().isObject() ? ((ObjectNode) capture.manifest()).deepCopy() : om.createObjectNode();
        if (redact.contains(Redaction.ENV) && manifest.path("environment").isObject()) {
            ObjectNode env = (ObjectNode) manifest.get("environment");
            Iterator<String> it = env.fieldNames();
            List<String> drop = new ArrayList<>();
            while (it.hasNext()) {
                String k = it.next();
                if (!k.startsWith("CUDA_") && !k.startsWith("ZLUDA_")) drop.add(k);
            }
            env.remove(drop);
        }
        if (redact.contains(Redaction.PATHS)) manifest = (ObjectNode) redactPaths(manifest);
        if (!redact.isEmpty()) {
            ArrayNode r = manifest.putArray("redacted");
            for (Redaction x : Redaction.values()) if (redact.contains(x)) r.add(x.name().toLowerCase(Locale.ROOT));
        }
        Path tmp = Files.createTempFile(out.toAbsolutePath().getParent(), ".zluda-pack", ".tmp");
        Path rewritten = null;
        try {
            Path captureFile = capture.reader().file();
            if (redact.contains(Redaction.DATA)) {
                rewritten = Files.createTempFile("zluda-redacted", ".zcap");
                redactData(capture, rewritten);
                Trim.trim(rewritten); // the writer grows files in large steps: keep only what holds records
                captureFile = rewritten;
            }
            try (ZipOutputStream z = new ZipOutputStream(Files.newOutputStream(tmp))) {
                z.putNextEntry(new ZipEntry(CaptureFormat.MANIFEST_FILE));
                z.write(om.writerWithDefaultPrettyPrinter().writeValueAsBytes(manifest));
                z.closeEntry();
                z.putNextEntry(new ZipEntry(CaptureFormat.CAPTURE_FILE));
                Files.copy(captureFile, z);
                z.closeEntry();
                for (Path m : capture.moduleFiles()) {
                    z.putNextEntry(new ZipEntry(m.getFileName().toString()));
                    Files.copy(m, z);
                    z.closeEntry();
                }
            }
            Files.move(tmp, out, java.nio.file.StandardCopyOption.REPLACE_EXISTING, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(tmp);
            if (rewritten != null) Files.deleteIfExists(rewritten);
        }
    }

    private static JsonNode redactPaths(JsonNode n) {
        if (n.isTextual()) return TextNode.valueOf(redactPath(n.asText()));
        if (n.isObject()) {
            ObjectNode o = (ObjectNode) n;
            List<String> names = new ArrayList<>();
            o.fieldNames().forEachRemaining(names::add);
            for (String k : names) o.set(k, redactPaths(o.get(k)));
            return o;
        }
        if (n.isArray()) {
            ArrayNode a = (ArrayNode) n;
            for (int i = 0; i < a.size(); i++) a.set(i, redactPaths(a.get(i)));
        }
        return n;
    }

    /** Replaces home directories ({@code /home/USER}, {@code /root}, {@code $HOME}) in a string by {@code ~}. */
    public static String redactPath(String s) {
        String home = System.getProperty("user.home");
        if (home != null && home.length() > 1) s = s.replace(home, "~");
        return s.replaceAll("/home/[^/\\s\"':=]+", "~").replaceAll("(?<![\\w/])/root(?=/|$|\\s)", "~");
    }

    /**
     * Rewrites the capture with buffer contents replaced by hashes and sizes (FORMAT.md §8). The copy
     * keeps the records' order and renumbers them densely (the blobs it drops take no sequence number),
     * so that a reader can tell a number no record has from a lost record (FORMAT.md §4).
     */
    static void redactData(Capture capture, Path out) throws IOException, CaptureException {
        CaptureReader r = capture.reader();
        // pass 1: blobs that hold module images are code, not data: keep them
        Set<Long> moduleBlobs = new HashSet<>();
        long tableThread = -1;
        for (CaptureRecord rec : r) {
            if (rec instanceof CaptureRecord.FunctionTable && tableThread < 0) tableThread = rec.threadId();
            if (rec instanceof CaptureRecord.Module m && m.imageHash() != 0) moduleBlobs.add(m.imageHash());
            if (rec instanceof CaptureRecord.Kernel k && k.launch() != null && k.launch().moduleHash() != 0) moduleBlobs.add(k.launch().moduleHash());
        }
        CaptureWriter.Options o = CaptureWriter.Options.defaults().rewriting(r.header());
        Map<Long, ThreadLog> logs = new HashMap<>();
        DataItems items = new DataItems();
        Map<Long, long[]> openCalls = new HashMap<>(); // ENTER seq -> {function id, its number in the copy} of calls not yet returned
        // recent ENTERs' numbers in the copy, for the KERNEL records that refer to their launch (between its ENTER and LEAVE, or just after)
        Map<Long, Long> recent = new java.util.LinkedHashMap<>(256, 0.75f, false) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<Long, Long> e) {
                return size() > 4096;
            }
        };
        long next = 1; // the function table is number 0
        // the function table in the log of the thread that held it: no chunk more than the original
        try (CaptureWriter w = tableThread < 0 ? CaptureWriter.create(out, o, r.functions()) : CaptureWriter.create(out, o, r.functions(), tableThread)) {
            if (tableThread >= 0) logs.put(tableThread, w.functionTableLog());
            for (CaptureRecord rec : r) {
                if (rec instanceof CaptureRecord.FunctionTable) continue;
                if (rec instanceof CaptureRecord.Blob b && !moduleBlobs.contains(b.hash())) continue; // data: dropped
                if (rec instanceof CaptureRecord.Unknown) continue;
                ThreadLog t = logs.computeIfAbsent(rec.threadId(), w::thread);
                long seq = next++;
                t.nextSeq(seq);
                switch (rec) {
                    case CaptureRecord.Enter e -> {
                        openCalls.put(e.seq(), new long[] {e.functionId(), seq});
                        recent.put(e.seq(), seq);
                        t.enter(e.functionId(), e.depth(), e.ts(), e.args(), redacted(items, capture.specFunction(e.functionId()), e.data()));
                    }
                    case CaptureRecord.Leave l -> {
                        long[] call = openCalls.remove(l.enterSeq());
                        long enter = call != null ? call[1] : Math.max(0, seq - (l.seq() - l.enterSeq())); // an ENTER lost to damage: the same distance
                        t.leave(enter, l.ts(), l.result(), redacted(items, call == null ? null : capture.specFunction((int) call[0]), l.data()));
                    }
                    case CaptureRecord.Blob b -> {
                        byte[] stored = b.stored().toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
                        t.rawBlob(b.hash(), b.size(), b.compression(), stored, 0, stored.length, b.ts());
                    }
                    case CaptureRecord.Module m -> t.module(m.library(), m.index(), m.kind(), m.imageHash(), m.size(), m.handle(), m.fileName(), m.ts());
                    case CaptureRecord.Kernel k -> {
                        Long launch = recent.get(k.launchSeq());
                        t.kernel(launch != null ? launch : Math.max(0, seq - (k.seq() - k.launchSeq())), k.function(), k.name(), k.params(), k.buffers(), k.launch(), k.ts());
                    }
                    case CaptureRecord.ThreadName n -> t.threadName(n.namedThread(), n.name(), n.ts());
                    case CaptureRecord.Marker m -> t.marker(m.text(), m.ts());
                    case CaptureRecord.ProcessEnd p -> t.processEnd(p.reason(), p.status(), p.ts());
                    case CaptureRecord.StringDef s -> t.stringDef(s.id(), s.text(), s.ts());
                    default -> { }
                }
            }
        }
    }

    /**
     * The items with buffer contents replaced by HASH_ONLY. With the spec function known, only
     * parameters that point to {@code void} (raw buffers) are redacted; without it (a function the
     * spec does not know, or a LEAVE whose ENTER was lost), every INLINE item over 8 bytes and every
     * BLOB/TRUNCATED item is, so that returned handles and counts stay readable.
     */
    private static DataItems redacted(DataItems items, CudaFunction f, List<DataItem> data) {
        items.clear();
        for (DataItem d : data) {
            boolean raw;
            if (f != null && d.param() < f.params().size()) {
                CudaParam p = f.params().get(d.param());
                raw = "void".equals(p.pointeeType()) && !p.string();
            } else {
                raw = d.kind() == CaptureFormat.ITEM_BLOB || d.kind() == CaptureFormat.ITEM_TRUNCATED
                        || (d.kind() == CaptureFormat.ITEM_INLINE && d.bytes().length > 8);
            }
            if (!raw) {
                items.add(d);
                continue;
            }
            switch (d.kind()) {
                case CaptureFormat.ITEM_INLINE -> items.hashOnly(d.param(), Hashing.xxh64(d.bytes()), d.bytes().length);
                case CaptureFormat.ITEM_BLOB -> items.hashOnly(d.param(), d.hash(), d.size());
                case CaptureFormat.ITEM_TRUNCATED -> items.hashOnly(d.param(), 0, d.size());
                default -> items.add(d);
            }
        }
        return items;
    }

    /**
     * Unpacks a pack into {@code dest} (an empty directory). Refuses, naming the entry: names that
     * are absolute, contain {@code ..}, a slash, a backslash or NUL, duplicates, symbolic links,
     * more than 10,000 entries, an entry that declares no size or unpacks to more than it declares;
     * and, before writing anything, a pack whose entries declare more bytes in all than the file
     * system of {@code dest} has free, less a reserve ({@link #reserve}). Never writes outside
     * {@code dest} nor through a link. What it wrote stays when it refuses: the caller removes
     * {@code dest} (as {@link Capture#open} does).
     *
     * @throws CaptureException naming the pack and the bad entry, or the sizes
     */
    public static void unpack(Path zip, Path dest) throws CaptureException {
        long usable;
        try {
            usable = Files.getFileStore(dest).getUsableSpace();
        } catch (IOException e) {
            throw new CaptureException(zip, -1, "cannot unpack into " + dest + ": " + e.getMessage(), e);
        }
        unpack(zip, dest, usable);
    }

    /** Bytes an unpack leaves free of the {@code usable} bytes of its file system: a tenth, at least 64 MiB. */
    static long reserve(long usable) {
        return Math.max(64L << 20, usable / 10);
    }

    /** {@link #unpack(Path, Path)} into a file system with {@code usable} bytes free. */
    static void unpack(Path zip, Path dest, long usable) throws CaptureException {
        Map<String, Integer> modes = centralDirectoryModes(zip);
        Set<String> seen = new HashSet<>();
        try (ZipFile zf = new ZipFile(zip.toFile())) {
            // first the names, links and declared sizes of every entry: nothing is written for a pack that is refused
            List<ZipEntry> entries = new ArrayList<>();
            long declared = 0;
            var en = zf.entries();
            while (en.hasMoreElements()) {
                ZipEntry e = en.nextElement();
                if (entries.size() == 10_000) throw new CaptureException(zip, -1, "more than 10000 entries: not a zluda pack");
                String name = e.getName();
                if (!ENTRY_NAME.matcher(name).matches() || name.contains("..")) {
                    throw new CaptureException(zip, -1, "refusing entry '" + printable(name) + "': packs hold plain file names only (no absolute paths, '..', directories)");
                }
                Integer mode = modes.get(name);
                if (mode != null && (mode & 0170000) == 0120000) {
                    throw new CaptureException(zip, -1, "refusing entry '" + name + "': it is a symbolic link");
                }
                if (!seen.add(name)) throw new CaptureException(zip, -1, "refusing entry '" + name + "': it appears twice");
                if (!dest.resolve(name).normalize().getParent().equals(dest.normalize())) {
                    throw new CaptureException(zip, -1, "refusing entry '" + name + "': outside the destination");
                }
                if (e.getSize() < 0) throw new CaptureException(zip, -1, "refusing entry '" + name + "': it declares no size");
                declared = declared > Long.MAX_VALUE - e.getSize() ? Long.MAX_VALUE : declared + e.getSize();
                entries.add(e);
            }
            long room = usable - reserve(usable);
            if (declared > room) {
                throw new CaptureException(zip, -1, String.format("refusing to unpack %,d bytes (what its entries declare): %s has %,d bytes free,"
                        + " of which an unpack leaves %,d; point TMPDIR (java.io.tmpdir: ZLUDA_JVM_OPTS=-Djava.io.tmpdir=DIR) at a roomier place",
                        declared, dest.getParent() != null ? dest.getParent() : dest, usable, reserve(usable)));
            }
            byte[] buf = new byte[1 << 16];
            for (ZipEntry e : entries) {
                String name = e.getName();
                long size = e.getSize();
                try (InputStream in = zf.getInputStream(e);
                     OutputStream os = Files.newOutputStream(dest.resolve(name), StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)) {
                    long n = 0;
                    int k;
                    while ((k = in.read(buf)) > 0) {
                        n += k;
                        if (n > size) throw new CaptureException(zip, -1, "refusing entry '" + name + "': it unpacks to more than the " + size + " bytes it declares");
                        os.write(buf, 0, k);
                    }
                }
            }
        } catch (IOException e) {
            throw new CaptureException(zip, -1, "cannot unpack: " + e.getMessage(), e);
        }
    }

    private static String printable(String s) {
        StringBuilder sb = new StringBuilder();
        for (char c : s.toCharArray()) sb.append(c < 0x20 || c == 0x7f ? String.format("\\x%02x", (int) c) : String.valueOf(c));
        return sb.toString();
    }

    /** Unix modes of the entries from the ZIP central directory (external attributes >> 16); empty when unreadable. */
    private static Map<String, Integer> centralDirectoryModes(Path zip) throws CaptureException {
        Map<String, Integer> out = new HashMap<>();
        try (FileChannel ch = FileChannel.open(zip, StandardOpenOption.READ)) {
            long size = ch.size();
            int tail = (int) Math.min(size, 65_557);
            ByteBuffer b = ByteBuffer.allocate(tail).order(ByteOrder.LITTLE_ENDIAN);
            ch.read(b, size - tail);
            int eocd = -1;
            for (int i = tail - 22; i >= 0; i--) if (b.getInt(i) == 0x06054b50) { eocd = i; break; }
            if (eocd < 0) throw new CaptureException(zip, -1, "not a ZIP archive (no end of central directory)");
            long cdSize = Integer.toUnsignedLong(b.getInt(eocd + 12));
            long cdOff = Integer.toUnsignedLong(b.getInt(eocd + 16));
            if (cdSize > 64L << 20 || cdOff + cdSize > size) throw new CaptureException(zip, size - tail + eocd, "ZIP central directory out of range");
            ByteBuffer cd = ByteBuffer.allocate((int) cdSize).order(ByteOrder.LITTLE_ENDIAN);
            ch.read(cd, cdOff);
            int p = 0;
            while (p + 46 <= cdSize && cd.getInt(p) == 0x02014b50) {
                int nameLen = Short.toUnsignedInt(cd.getShort(p + 28));
                int extraLen = Short.toUnsignedInt(cd.getShort(p + 30));
                int commentLen = Short.toUnsignedInt(cd.getShort(p + 32));
                int madeBy = Short.toUnsignedInt(cd.getShort(p + 4)) >>> 8;
                long ext = Integer.toUnsignedLong(cd.getInt(p + 38));
                if (p + 46 + nameLen > cdSize) break;
                byte[] nb = new byte[nameLen];
                cd.get(p + 46, nb);
                if (madeBy == 3) out.put(new String(nb, StandardCharsets.UTF_8), (int) (ext >>> 16)); // made on Unix
                p += 46 + nameLen + extraLen + commentLen;
            }
        } catch (IOException e) {
            throw new CaptureException(zip, -1, "cannot read: " + e.getMessage(), e);
        }
        return out;
    }
}

package dev.zluda.runtime.emulator.conformance;

import java.io.BufferedReader;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;

/**
 * The recorded results of the conformance suite, and the tool that prepares a recording and imports it.
 *
 * <p>Data file (one per family, {@code <family>.bin.gz}, gzip of big-endian {@link DataOutputStream} data):
 * magic {@code "ZCONF1"} (UTF), form count (int); per form: name (UTF), CRC-32 of the inputs (long), CUDA
 * result of loading and running it (int, 0 = CUDA_SUCCESS), the GPU's log line when it failed (UTF), tuple
 * count n (int) and, when the result is 0, n × {@link Conformance#OUT_BYTES} output bytes.
 *
 * <p>Usage: {@code ConformanceData export DIR [FAMILY...]} writes {@code DIR/forms.txt} (one line per form:
 * {@code index n name}), {@code DIR/ptx/NNNN.ptx} and {@code DIR/in.bin} (every form's inputs back to back),
 * the input of {@code conformance_harness.c}; {@code ConformanceData import DIR OUTDIR} reads the harness'
 * {@code DIR/out.bin} and {@code DIR/status.txt} for the forms {@code DIR/forms.txt} lists and writes the data
 * files of their families into {@code OUTDIR} (an export of some families leaves the others' files alone).
 * The matrix family ({@link MatrixConformance}) shares the format: 256 × 16 output bytes per form.
 */
public final class ConformanceData {
    private ConformanceData() {}

    /**
     * One recorded form.
     *
     * @param name   the form's name
     * @param crc    CRC-32 of the inputs it was run with
     * @param result CUDA result of cuModuleLoadData / the launch (0 = success)
     * @param log    the error text when {@code result != 0}, else ""
     * @param out    n × 16 output bytes, or null when {@code result != 0}
     */
    public record Recorded(String name, long crc, int result, String log, byte[] out) {}

    /** Reads one family's data file. */
    public static Map<String, Recorded> read(InputStream gz) throws IOException {
        Map<String, Recorded> m = new LinkedHashMap<>();
        try (DataInputStream in = new DataInputStream(new GZIPInputStream(gz, 1 << 16))) {
            String magic = in.readUTF();
            if (!magic.equals("ZCONF1")) throw new IOException("not a conformance data file (magic " + magic + ")");
            int count = in.readInt();
            for (int i = 0; i < count; i++) {
                String name = in.readUTF();
                long crc = in.readLong();
                int result = in.readInt();
                String log = in.readUTF();
                int n = in.readInt();
                byte[] out = null;
                if (result == 0) {
                    out = new byte[n * Conformance.OUT_BYTES];
                    in.readFully(out);
                }
                m.put(name, new Recorded(name, crc, result, log, out));
            }
        }
        return m;
    }

    static void write(OutputStream os, List<Recorded> rs) throws IOException {
        try (DataOutputStream out = new DataOutputStream(new GZIPOutputStream(os, 1 << 16))) {
            out.writeUTF("ZCONF1");
            out.writeInt(rs.size());
            for (Recorded r : rs) {
                out.writeUTF(r.name());
                out.writeLong(r.crc());
                out.writeInt(r.result());
                out.writeUTF(r.log());
                out.writeInt(r.out() == null ? 0 : r.out().length / Conformance.OUT_BYTES);
                if (r.out() != null) out.write(r.out());
            }
        }
    }

    public static void main(String[] args) throws IOException {
        if (args.length >= 2 && args[0].equals("export")) {
            // export DIR [FAMILY...]: every form, or those of the families named
            Path dir = Path.of(args[1]);
            java.util.Set<String> only = java.util.Set.of(java.util.Arrays.copyOfRange(args, 2, args.length));
            Files.createDirectories(dir.resolve("ptx"));
            StringBuilder list = new StringBuilder();
            int count = 0;
            try (OutputStream in = Files.newOutputStream(dir.resolve("in.bin"))) {
                List<Entry> all = entries();
                for (int i = 0; i < all.size(); i++) {
                    Entry f = all.get(i);
                    if (!only.isEmpty() && !only.contains(f.family())) continue;
                    Files.writeString(dir.resolve("ptx").resolve(String.format("%04d.ptx", i)), f.ptx());
                    in.write(f.inputs());
                    list.append(i).append(' ').append(Conformance.N).append(' ').append(f.name()).append('\n');
                    count++;
                }
            }
            Files.writeString(dir.resolve("forms.txt"), list);
            System.out.println(count + " forms written to " + dir);
        } else if (args.length >= 3 && args[0].equals("import")) {
            // import DIR OUTDIR: the forms DIR/forms.txt lists, in its order; writes the data files of their families
            Path dir = Path.of(args[1]), outDir = Path.of(args[2]);
            Files.createDirectories(outDir);
            byte[] out = Files.readAllBytes(dir.resolve("out.bin"));
            Map<Integer, String[]> status = new LinkedHashMap<>();
            try (BufferedReader br = Files.newBufferedReader(dir.resolve("status.txt"), StandardCharsets.UTF_8)) {
                for (String line; (line = br.readLine()) != null; ) {
                    String[] p = line.split(" ", 3);
                    status.put(Integer.parseInt(p[0]), new String[] {p[1], p.length > 2 ? p[2] : ""});
                }
            }
            Map<String, Entry> byName = new LinkedHashMap<>();
            for (Entry e : entries()) byName.put(e.name(), e);
            List<String> lines = Files.readAllLines(dir.resolve("forms.txt"), StandardCharsets.UTF_8);
            int per = Conformance.N * Conformance.OUT_BYTES;
            if (out.length != (long) per * lines.size()) throw new IOException("out.bin has " + out.length + " bytes, expected " + (long) per * lines.size());
            Map<String, List<Recorded>> byFamily = new LinkedHashMap<>();
            int failed = 0;
            for (int i = 0; i < lines.size(); i++) {
                String[] p = lines.get(i).split(" ", 3);
                int index = Integer.parseInt(p[0]);
                Entry f = byName.get(p[2]);
                if (f == null) throw new IOException("forms.txt names an unknown form " + p[2]);
                String[] st = status.get(index);
                if (st == null) throw new IOException("status.txt has no line for form " + index + " (" + f.name() + ")");
                int result = Integer.parseInt(st[0]);
                if (result != 0) failed++;
                byte[] o = result == 0 ? java.util.Arrays.copyOfRange(out, i * per, (i + 1) * per) : null;
                byElse(byFamily, f.family()).add(new Recorded(f.name(), f.crc(), result, result == 0 ? "" : st[1], o));
            }
            for (var e : byFamily.entrySet()) {
                try (OutputStream os = Files.newOutputStream(outDir.resolve(e.getKey() + ".bin.gz"))) {
                    write(os, e.getValue());
                }
            }
            System.out.println(lines.size() + " forms imported (" + failed + " failed on the GPU) into " + outDir + ": " + byFamily.keySet());
        } else if (args.length >= 2 && args[0].equals("dump")) {
            // dump NAME [REGEX]: the inputs and the recorded outputs of one form, one tuple a line
            Conformance.Form f = Conformance.byName(args[1]);
            if (f == null && MatrixConformance.byName(args[1]) != null) {
                dumpMatrix(MatrixConformance.byName(args[1]));
                return;
            }
            if (f == null) throw new IOException("no form " + args[1]);
            Recorded rec;
            try (InputStream is = ConformanceData.class.getResourceAsStream("/conformance/h200/" + f.family() + ".bin.gz")) {
                rec = read(is).get(f.name());
            }
            java.nio.ByteBuffer in = java.nio.ByteBuffer.wrap(Conformance.inputs(f)).order(java.nio.ByteOrder.LITTLE_ENDIAN);
            java.nio.ByteBuffer out = java.nio.ByteBuffer.wrap(rec.out()).order(java.nio.ByteOrder.LITTLE_ENDIAN);
            for (int i = 0; i < Conformance.N; i++) {
                StringBuilder sb = new StringBuilder();
                for (int j = 0; j < f.ops().length; j++) sb.append(String.format("%016x ", in.getLong(i * 32 + 8 * j)));
                sb.append("-> ").append(String.format("%016x %016x", out.getLong(i * 16), out.getLong(i * 16 + 8)));
                if (args.length < 3 || sb.toString().matches(args[2])) System.out.println(sb);
            }
        } else {
            System.err.println("usage: ConformanceData export DIR | import DIR OUTDIR | dump NAME [REGEX]");
            System.exit(2);
        }
    }

    /** dump of a matrix form: per working warp, its input and output words, register j of lane l at word 32 j + l. */
    private static void dumpMatrix(MatrixConformance.Form f) throws IOException {
        Recorded rec;
        try (InputStream is = ConformanceData.class.getResourceAsStream("/conformance/h200/" + f.family() + ".bin.gz")) {
            rec = read(is).get(f.name());
        }
        java.nio.ByteBuffer in = java.nio.ByteBuffer.wrap(MatrixConformance.inputs(f)).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        java.nio.ByteBuffer out = java.nio.ByteBuffer.wrap(rec.out()).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        for (int w = 0; w < MatrixConformance.WARPS.length; w++) {
            System.out.println("working warp " + w + " (" + f.dists()[w] + ")");
            for (String part : new String[] {"in", "out"}) {
                java.nio.ByteBuffer b = part.equals("in") ? in : out;
                int base = MatrixConformance.WARPS[w] * (part.equals("in") ? 1024 : 512), words = part.equals("in") ? 512 : 256;
                for (int j = 0; j < words; j += 8) {
                    StringBuilder sb = new StringBuilder(String.format("  %-3s %3d:", part, j));
                    for (int q = 0; q < 8; q++) sb.append(String.format(" %08x", b.getInt(base + 4 * (j + q))));
                    System.out.println(sb);
                }
            }
        }
    }

    /** A form of either catalogue ({@link Conformance}, {@link MatrixConformance}), as export and import see it. */
    record Entry(String family, String name, java.util.function.Supplier<String> ptxOf, java.util.function.Supplier<byte[]> inputsOf) {
        String ptx() {
            return ptxOf.get();
        }

        byte[] inputs() {
            return inputsOf.get();
        }

        long crc() {
            java.util.zip.CRC32 c = new java.util.zip.CRC32();
            c.update(inputs());
            return c.getValue();
        }
    }

    /** Every form of both catalogues, per-thread forms first (their export indices are unchanged). */
    static List<Entry> entries() {
        List<Entry> all = new ArrayList<>();
        for (Conformance.Form f : Conformance.forms()) all.add(new Entry(f.family(), f.name(), () -> Conformance.ptx(f), () -> Conformance.inputs(f)));
        for (MatrixConformance.Form f : MatrixConformance.forms()) {
            all.add(new Entry(f.family(), f.name(), () -> MatrixConformance.ptx(f), () -> MatrixConformance.inputs(f)));
        }
        return all;
    }

    private static List<Recorded> byElse(Map<String, List<Recorded>> m, String k) {
        return m.computeIfAbsent(k, x -> new ArrayList<>());
    }
}

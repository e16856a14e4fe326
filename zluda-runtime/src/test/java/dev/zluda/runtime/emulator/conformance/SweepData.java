package dev.zluda.runtime.emulator.conformance;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;

/**
 * The sweep's recorded results ({@code conformance/sweep/}), and the import of a recording made with
 * {@code record-sweep-h200.sh}.
 *
 * <p>{@code h200.bin.gz} (gzip of big-endian {@link DataOutputStream} data): magic {@code "ZSWEEP1"} (UTF), the
 * GPU and driver (UTF), form count (int); per form: name (UTF), CRC-32 of its inputs (int), status (UTF: {@code "0"},
 * or the CUDA error of loading or running it: {@code "719:CUDA_ERROR_LAUNCH_FAILED:launch"}), CRC-32 of all its
 * outputs (int), block count (int) and the CRC-32 of each block of {@link SweepValues#BLOCK} tuples' outputs (int
 * each). Outputs themselves are kept only where a test needs them: {@code h200-raw.bin.gz} (magic {@code "ZSWRAW1"},
 * count; per record: name (UTF), block (int), byte count (int), bytes) holds every block of the approximate forms
 * (their distance from the H200 is measured; the inputs are the generator's). The H200's outputs of the blocks in
 * which the emulator differed when the sweep was first run come back from the GPU too (raw.bin) and are kept out of
 * the repository, in {@code zluda-runtime/target/sweep-raw.bin.gz} ({@link #dump}).
 *
 * <p>{@code llvm.tsv}: per form, the LLVM lowering as recorded on the same GPU: name, SHA-256 prefix of the IR
 * lowered for sm_90 (or {@code -:reason} when not lowered), its outcome ({@code same}, {@code differ N maxulp U},
 * or the CUDA error), the same two columns for the IR lowered as for AMD ({@code same-ir} where it is the sm_90 IR).
 *
 * <p>Usage: {@code SweepData import EXPORT_DIR RESULTS_DIR OUT_DIR [--merge]} reads names.tsv of the export and the
 * harness's results.tsv, blocks.bin, raw.bin, differ.txt and meta.txt, and writes {@code h200.bin.gz},
 * {@code llvm.tsv}, {@code llvm-differ.txt} and the raw outputs of the approximate forms into OUT_DIR; every raw
 * block goes to {@code zluda-runtime/target/sweep-raw.bin.gz} for inspection ({@link #dump}). With {@code --merge}
 * the recording (of an export of some forms) replaces only those forms' records in OUT_DIR.
 */
public final class SweepData {
    private SweepData() {}

    public static final String DIR = "/conformance/sweep/";

    /** One recorded form. */
    public record Recorded(String name, int inputCrc, String status, int outputCrc, int[] blocks) {
        public boolean ok() {
            return status.equals("0");
        }
    }

    /** The recording: GPU and driver, and the forms by name. */
    public record Recording(String info, Map<String, Recorded> forms) {}

    public static Recording read() throws IOException {
        try (InputStream in = SweepData.class.getResourceAsStream(DIR + "h200.bin.gz")) {
            if (in == null) return new Recording("none", Map.of());
            return read(in);
        }
    }

    static Recording read(InputStream gz) throws IOException {
        try (DataInputStream in = new DataInputStream(new GZIPInputStream(gz, 1 << 16))) {
            if (!in.readUTF().equals("ZSWEEP1")) throw new IOException("not a sweep recording");
            String info = in.readUTF();
            int n = in.readInt();
            Map<String, Recorded> m = new LinkedHashMap<>();
            for (int i = 0; i < n; i++) {
                String name = in.readUTF();
                int ic = in.readInt();
                String st = in.readUTF();
                int oc = in.readInt();
                int[] b = new int[in.readInt()];
                for (int j = 0; j < b.length; j++) b[j] = in.readInt();
                m.put(name, new Recorded(name, ic, st, oc, b));
            }
            return new Recording(info, m);
        }
    }

    static void write(OutputStream os, Recording r) throws IOException {
        try (DataOutputStream out = new DataOutputStream(new GZIPOutputStream(os, 1 << 16))) {
            out.writeUTF("ZSWEEP1");
            out.writeUTF(r.info());
            out.writeInt(r.forms().size());
            for (Recorded x : r.forms().values()) {
                out.writeUTF(x.name());
                out.writeInt(x.inputCrc());
                out.writeUTF(x.status());
                out.writeInt(x.outputCrc());
                out.writeInt(x.blocks().length);
                for (int c : x.blocks()) out.writeInt(c);
            }
        }
    }

    /** Raw outputs: name → block → bytes. */
    public static Map<String, Map<Integer, byte[]>> readRaw(InputStream gz) throws IOException {
        Map<String, Map<Integer, byte[]>> m = new HashMap<>();
        if (gz == null) return m;
        try (DataInputStream in = new DataInputStream(new GZIPInputStream(gz, 1 << 16))) {
            if (!in.readUTF().equals("ZSWRAW1")) throw new IOException("not a sweep raw file");
            int n = in.readInt();
            for (int i = 0; i < n; i++) {
                String name = in.readUTF();
                int block = in.readInt();
                byte[] b = new byte[in.readInt()];
                in.readFully(b);
                m.computeIfAbsent(name, k -> new HashMap<>()).put(block, b);
            }
        }
        return m;
    }

    static void writeRaw(OutputStream os, Map<String, Map<Integer, byte[]>> raw) throws IOException {
        try (DataOutputStream out = new DataOutputStream(new GZIPOutputStream(os, 1 << 16))) {
            out.writeUTF("ZSWRAW1");
            int n = 0;
            for (var e : raw.values()) n += e.size();
            out.writeInt(n);
            for (var e : raw.entrySet()) {
                for (var b : new java.util.TreeMap<>(e.getValue()).entrySet()) {
                    out.writeUTF(e.getKey());
                    out.writeInt(b.getKey());
                    out.writeInt(b.getValue().length);
                    out.write(b.getValue());
                }
            }
        }
    }

    /** The committed raw outputs. */
    public static Map<String, Map<Integer, byte[]>> readRaw() throws IOException {
        try (InputStream in = SweepData.class.getResourceAsStream(DIR + "h200-raw.bin.gz")) {
            return readRaw(in);
        }
    }

    /** One line of llvm.tsv. */
    public record Lowered(String name, String llvmIr, String llvm, String amdIr, String amd) {}

    public static Map<String, Lowered> readLowered() throws IOException {
        Map<String, Lowered> m = new LinkedHashMap<>();
        try (InputStream in = SweepData.class.getResourceAsStream(DIR + "llvm.tsv")) {
            if (in == null) return m;
            for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                if (line.isBlank() || line.startsWith("#")) continue;
                String[] p = line.split("\t", -1);
                m.put(p[0], new Lowered(p[0], p[1], p[2], p[3], p[4]));
            }
        }
        return m;
    }

    // ------------------------------------------------------------------ import

    public static void main(String[] args) throws IOException {
        if ((args.length == 4 || args.length == 5 && args[4].equals("--merge")) && args[0].equals("import")) {
            importRecording(Path.of(args[1]), Path.of(args[2]), Path.of(args[3]), args.length == 5);
        } else if (args.length >= 3 && args[0].equals("drop")) {
            // drop FILE NAME...: removes the records of forms whose kernel changed since the recording
            Path f = Path.of(args[1]);
            Recording r;
            try (InputStream in = Files.newInputStream(f)) {
                r = read(in);
            }
            Map<String, Recorded> m = new LinkedHashMap<>(r.forms());
            for (int i = 2; i < args.length; i++) if (m.remove(args[i]) == null) System.err.println("no record of " + args[i]);
            try (OutputStream os = Files.newOutputStream(f)) {
                write(os, new Recording(r.info(), m));
            }
        } else if (args.length >= 3 && args[0].equals("dump")) {
            dump(Path.of(args[1]), args[2], args.length > 3 ? Integer.parseInt(args[3]) : 0);
        } else {
            System.err.println("usage: SweepData import EXPORT_DIR RESULTS_DIR OUT_DIR [--merge] | drop H200_FILE FORM... | dump RAW_FILE FORM [BLOCK]");
            System.exit(2);
        }
    }

    private static String outcome(String status, String differ, String ulp) {
        if (status.equals("-")) return "-";
        if (!status.equals("0")) return "error " + status;
        long d = Long.parseLong(differ);
        if (d == 0) return "same";
        return "differ " + d + (ulp.equals("0") ? "" : " maxulp " + (ulp.equals("-1") ? "inf" : ulp));
    }

    static void importRecording(Path export, Path results, Path out, boolean merge) throws IOException {
        Map<Integer, String[]> names = new LinkedHashMap<>();
        for (String line : Files.readAllLines(export.resolve("names.tsv"))) {
            String[] p = line.split("\t", -1);
            names.put(Integer.parseInt(p[0]), p);
        }
        Map<Integer, String[]> res = new HashMap<>();
        for (String line : Files.readAllLines(results.resolve("results.tsv"))) {
            if (line.isBlank()) continue;
            String[] p = line.split("\t", -1);
            res.put(Integer.parseInt(p[0]), p);
        }
        Map<Integer, int[]> blocks = new HashMap<>();
        ByteBuffer bb = ByteBuffer.wrap(Files.readAllBytes(results.resolve("blocks.bin"))).order(ByteOrder.LITTLE_ENDIAN);
        while (bb.remaining() >= 8) {
            int idx = bb.getInt(), nb = bb.getInt();
            int[] c = new int[nb];
            for (int i = 0; i < nb; i++) c[i] = bb.getInt();
            blocks.put(idx, c);
        }
        Map<Integer, Map<Integer, byte[]>> raw = new HashMap<>();
        Path rawFile = results.resolve("raw.bin");
        if (Files.exists(rawFile)) {
            try (DataInputStream in = new DataInputStream(new java.io.BufferedInputStream(Files.newInputStream(rawFile), 1 << 20))) {
                while (true) {
                    int idx, block, len;
                    try {
                        idx = Integer.reverseBytes(in.readInt());
                    } catch (EOFException e) {
                        break;
                    }
                    block = Integer.reverseBytes(in.readInt());
                    len = Integer.reverseBytes(in.readInt());
                    byte[] b = new byte[len];
                    in.readFully(b);
                    raw.computeIfAbsent(idx, k -> new HashMap<>()).put(block, b);
                }
            }
        }
        String info = Files.exists(results.resolve("meta.txt")) ? Files.readString(results.resolve("meta.txt")).lines().filter(l -> l.startsWith("device:")
                || l.startsWith("cuDriverGetVersion") || l.contains("NVIDIA")).reduce((a, b) -> a + "; " + b).orElse("") : "";
        if (Files.exists(results.resolve("info.txt"))) info = Files.readString(results.resolve("info.txt")).strip().replace('\n', ';') + "; " + info;
        Map<String, Recorded> forms = new LinkedHashMap<>();
        Map<String, Map<Integer, byte[]>> keep = new LinkedHashMap<>(), all = new LinkedHashMap<>();
        StringBuilder llvm = new StringBuilder("# The sweep's forms lowered to LLVM IR by dev.zluda.ptx.llvm, compiled by LLVM llc for NVPTX sm_90 and run on an NVIDIA H200\n"
                + "# beside the original PTX on the same inputs (SweepExport, sweep_harness.c; README.md says how). LLVM: "
                + (Files.exists(export.resolve("llvm-version.txt")) ? Files.readString(export.resolve("llvm-version.txt")).strip() : "?") + "\n"
                + "# name<TAB>IR for sm_90 (SHA-256 prefix, or -:why not lowered)<TAB>outcome<TAB>IR as for AMD (or same: the sm_90 IR)<TAB>outcome\n");
        Map<String, Sweep.Form> byName = new HashMap<>();
        for (Sweep.Form f : Sweep.candidates()) byName.put(f.name(), f);
        int missing = 0;
        for (var e : names.entrySet()) {
            String name = e.getValue()[1];
            String[] r = res.get(e.getKey());
            if (r == null) {
                missing++;
                continue;
            }
            int[] b = blocks.getOrDefault(e.getKey(), new int[0]);
            forms.put(name, new Recorded(name, (int) Long.parseLong(r[2], 16), r[1], (int) Long.parseLong(r[3], 16), b));
            Sweep.Form f = byName.get(name);
            Map<Integer, byte[]> rb = raw.getOrDefault(e.getKey(), Map.of());
            if (!rb.isEmpty()) all.put(name, rb);
            if (f != null && f.approx() != null && !rb.isEmpty()) keep.put(name, rb);
            String amdIr = e.getValue()[3];
            llvm.append(name).append('\t').append(e.getValue()[2]).append('\t').append(outcome(r[4], r[5], r[6])).append('\t').append(amdIr).append('\t')
                    .append(amdIr.equals("same") ? "-" : outcome(r[7], r[8], r[9])).append('\n');
        }
        Files.createDirectories(out);
        String llvmText = llvm.toString();
        List<String> differOld = new ArrayList<>();
        if (merge) {
            // a recording of some forms (an export with a NAME_REGEX) replaces those forms' records in OUT_DIR and
            // keeps the others', in the order of the candidates
            Recording old;
            try (InputStream in = Files.newInputStream(out.resolve("h200.bin.gz"))) {
                old = read(in);
            }
            Map<String, Map<Integer, byte[]>> oldRaw;
            try (InputStream in = Files.newInputStream(out.resolve("h200-raw.bin.gz"))) {
                oldRaw = readRaw(in);
            }
            Map<String, String> lines = new LinkedHashMap<>();
            String header = "";
            for (String l : Files.readAllLines(out.resolve("llvm.tsv"))) {
                if (l.startsWith("#")) header += l + "\n";
                else if (!l.isBlank()) lines.put(l.substring(0, l.indexOf('\t')), l);
            }
            for (String l : llvmText.split("\n")) if (!l.startsWith("#") && !l.isBlank()) lines.put(l.substring(0, l.indexOf('\t')), l);
            Map<String, Recorded> merged = new LinkedHashMap<>();
            Map<String, Map<Integer, byte[]>> raws = new LinkedHashMap<>();
            StringBuilder ll = new StringBuilder(header);
            for (Sweep.Form f : Sweep.candidates()) {
                String n = f.name();
                Recorded r = forms.containsKey(n) ? forms.get(n) : old.forms().get(n);
                if (r != null) merged.put(n, r);
                Map<Integer, byte[]> rb = forms.containsKey(n) ? keep.get(n) : oldRaw.get(n);
                if (rb != null) raws.put(n, rb);
                if (lines.containsKey(n)) ll.append(lines.get(n)).append('\n');
            }
            forms = merged;
            keep = raws;
            llvmText = ll.toString();
            if (Files.exists(out.resolve("llvm-differ.txt"))) {
                java.util.Set<String> exported = new java.util.HashSet<>();
                for (String[] x : names.values()) exported.add(x[1]);
                for (String l : Files.readAllLines(out.resolve("llvm-differ.txt"))) if (!exported.contains(l.substring(0, l.indexOf('\t')))) differOld.add(l);
            }
            info = old.info();
        }
        try (OutputStream os = Files.newOutputStream(out.resolve("h200.bin.gz"))) {
            write(os, new Recording(info, forms));
        }
        try (OutputStream os = Files.newOutputStream(out.resolve("h200-raw.bin.gz"))) {
            writeRaw(os, keep);
        }
        Files.writeString(out.resolve("llvm.tsv"), llvmText);
        if (Files.exists(results.resolve("differ.txt"))) {
            StringBuilder d = new StringBuilder();
            for (String l : differOld) d.append(l).append('\n');
            for (String line : Files.readAllLines(results.resolve("differ.txt"))) {
                String[] p = line.split(" ", 2);
                // the harness compares the output buffer even when the lowering failed to load or launch: keep
                // only the tuples of lowerings that ran
                String[] r = res.get(Integer.parseInt(p[0]));
                if (r == null || !r[p[1].startsWith("llvm") ? 4 : 7].equals("0")) continue;
                String[] n = names.get(Integer.parseInt(p[0]));
                d.append(n == null ? p[0] : n[1]).append('\t').append(p[1]).append('\n');
            }
            Files.writeString(out.resolve("llvm-differ.txt"), d);
        }
        Path local = Path.of("zluda-runtime/target/sweep-raw.bin.gz");
        Files.createDirectories(local.getParent());
        try (OutputStream os = Files.newOutputStream(local)) {
            writeRaw(os, all);
        }
        System.out.println(forms.size() + " forms imported (" + missing + " had no result), " + keep.size() + " approximate forms' raw outputs kept; all raw blocks in "
                + local);
    }

    /** Prints a form's recorded raw outputs of one block beside its inputs: tuple, input words, output words. */
    static void dump(Path rawFile, String form, int block) throws IOException {
        Map<String, Map<Integer, byte[]>> raw;
        try (InputStream in = Files.newInputStream(rawFile)) {
            raw = readRaw(in);
        }
        Sweep.Form f = null;
        for (Sweep.Form c : Sweep.candidates()) if (c.name().equals(form)) f = c;
        if (f == null) throw new IOException("no form " + form);
        byte[] out = raw.getOrDefault(form, Map.of()).get(block);
        if (out == null) throw new IOException("no raw block " + block + " of " + form + " (blocks: " + raw.getOrDefault(form, Map.of()).keySet() + ")");
        byte[] in = new byte[SweepValues.BLOCK * f.plan().stride()];
        SweepValues.fill(f.plan(), (long) block * SweepValues.BLOCK, SweepValues.BLOCK, in);
        for (int t = 0; t < SweepValues.BLOCK && (long) t * f.outStride() < out.length; t++) {
            System.out.println(((long) block * SweepValues.BLOCK + t) + " in " + hex(in, t * f.plan().stride(), f.plan().stride()) + " out " + hex(out, t * f.outStride(), f.outStride()));
        }
    }

    public static String hexs(byte[] b, int off, int len) {
        return hex(b, off, len);
    }

    static String hex(byte[] b, int off, int len) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < len; i += 8) {
            if (i > 0) sb.append(' ');
            long v = 0;
            for (int k = Math.min(8, len - i) - 1; k >= 0; k--) v = v << 8 | (b[off + i + k] & 0xff);
            sb.append(String.format("%0" + 2 * Math.min(8, len - i) + "x", v));
        }
        return sb.toString();
    }

    /** Parses "differ N maxulp U" of llvm.tsv: {N, U} (U: -1 none, Long.MAX_VALUE inf). */
    static long[] differ(String outcome) {
        Matcher m = Pattern.compile("differ (\\d+)(?: maxulp (\\d+|inf))?").matcher(outcome);
        if (!m.matches()) return null;
        return new long[] {Long.parseLong(m.group(1)), m.group(2) == null ? -1 : m.group(2).equals("inf") ? Long.MAX_VALUE : Long.parseLong(m.group(2))};
    }

    static byte[] gz(byte[] b) throws IOException {
        ByteArrayOutputStream bo = new ByteArrayOutputStream();
        try (GZIPOutputStream g = new GZIPOutputStream(bo)) {
            g.write(b);
        }
        return bo.toByteArray();
    }

    static List<String> lines(String resource) throws IOException {
        List<String> out = new ArrayList<>();
        try (InputStream in = SweepData.class.getResourceAsStream(resource)) {
            if (in == null) return out;
            for (String l : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) if (!l.isBlank() && !l.startsWith("#")) out.add(l);
        }
        return out;
    }
}

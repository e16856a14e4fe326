package dev.zluda.runtime.emulator.conformance;

import dev.zluda.runtime.emulator.EmulatorModule;
import dev.zluda.runtime.emulator.PtxLoadException;

import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.Arena;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Filters the sweep's candidates ({@link Sweep#candidates}) into the forms of the sweep and writes them to
 * {@code conformance/sweep/forms.tsv}: a candidate that {@code ptxas -arch=sm_90} (CUDA 13.0) refuses is not PTX
 * for an H200 and is dropped (a non-optional kernel that it refuses is an error of the kernel); the others are
 * listed with what the emulator makes of them (it runs them, or it refuses them: "not supported", with its
 * message). The file is what the recording, the tests and the documentation read; CI has no ptxas, so it is
 * committed, and {@code SweepTest} checks that it still lists exactly the candidates (by the SHA-256 of each
 * form's PTX).
 *
 * <p>Usage (from the repository root; {@code CP} as in conformance/h200/README.md):
 * {@code java -cp $CP dev.zluda.runtime.emulator.conformance.SweepCandidates zluda-runtime/src/test/resources/conformance/sweep/forms.tsv}
 * (ptxas results are cached in {@code zluda-runtime/target/sweep-ptxas-cache.tsv}).
 */
public final class SweepCandidates {
    private SweepCandidates() {}

    /** The committed list (a classpath resource). */
    public static final String FORMS = "/conformance/sweep/forms.tsv";

    /**
     * One line of the list.
     *
     * @param name     the form
     * @param family   its family
     * @param sha      SHA-256 prefix of its PTX
     * @param emulator "ok", or "refused: message"
     * @param tuples   tuples of the form
     */
    public record Entry(String name, String family, String sha, String emulator, long tuples) {
        public boolean emulatorRuns() {
            return emulator.equals("ok");
        }
    }

    /** Reads the committed list. */
    public static Map<String, Entry> read() throws IOException {
        try (InputStream in = SweepCandidates.class.getResourceAsStream(FORMS)) {
            if (in == null) throw new IOException("no " + FORMS);
            return parse(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        }
    }

    static Map<String, Entry> parse(String text) {
        Map<String, Entry> m = new LinkedHashMap<>();
        for (String line : text.split("\n")) {
            if (line.isBlank() || line.startsWith("#")) continue;
            String[] p = line.split("\t", -1);
            m.put(p[0], new Entry(p[0], p[1], p[2], p[3], Long.parseLong(p[4])));
        }
        return m;
    }

    /** The sweep: the candidates the committed list names, in candidate order. */
    public static List<Sweep.Form> forms() throws IOException {
        Map<String, Entry> list = read();
        List<Sweep.Form> out = new ArrayList<>();
        for (Sweep.Form f : Sweep.candidates()) if (list.containsKey(f.name())) out.add(f);
        return out;
    }

    /** What the emulator's translator makes of a module (whether or not its forms are checked ones): "ok" or "refused: first error line". */
    public static String emulator(String ptx) {
        try (Arena arena = Arena.ofConfined()) {
            dev.zluda.runtime.emulator.SweepLoad.load(ptx, "sweep.ptx", new EmulatorModule.Allocator() {
                public long allocate(String name, long size, long align) {
                    return arena.allocate(size, align).address();
                }

                public void free(long address) {}
            });
            return "ok";
        } catch (PtxLoadException e) {
            String msg = e.getMessage().lines().filter(l -> l.contains("error")).findFirst().orElse(e.getMessage().lines().findFirst().orElse(""));
            msg = msg.replaceFirst("^sweep\\.ptx:\\d+:\\d+: error: ", "");
            return "refused: " + msg.replace('\t', ' ').strip();
        } catch (RuntimeException e) {
            return "refused: " + e;
        }
    }

    /** ptxas's verdict on a module: "ok" or the first error line. */
    static String ptxas(String ptxas, String ptx, Path work) throws IOException, InterruptedException {
        Path f = Files.createTempFile(work, "c", ".ptx");
        try {
            Files.writeString(f, ptx);
            Process p = new ProcessBuilder(ptxas, "-arch=sm_90", f.toString(), "-o", "/dev/null").redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            int rc = p.waitFor();
            if (rc == 0) return "ok";
            String first = out.lines().filter(l -> l.contains("error")).findFirst().orElse(out.lines().findFirst().orElse("rc " + rc));
            return first.replaceFirst("^ptxas [^,]*, line \\d+; ", "").replace('\t', ' ').strip();
        } finally {
            Files.deleteIfExists(f);
        }
    }

    public static void main(String[] args) throws Exception {
        Path out = Path.of(args.length > 0 ? args[0] : "zluda-runtime/src/test/resources/conformance/sweep/forms.tsv");
        String ptxas = System.getenv().getOrDefault("PTXAS", "ptxas");
        Path cacheFile = Path.of("zluda-runtime/target/sweep-ptxas-cache.tsv");
        Map<String, String> cache = new ConcurrentHashMap<>();
        if (Files.exists(cacheFile)) {
            for (String l : Files.readAllLines(cacheFile)) {
                int t = l.indexOf('\t');
                if (t > 0) cache.put(l.substring(0, t), l.substring(t + 1));
            }
        }
        Path work = Files.createTempDirectory("sweep-ptxas");
        List<Sweep.Form> cands = Sweep.candidates();
        System.out.println(cands.size() + " candidates");
        ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, Runtime.getRuntime().availableProcessors()));
        List<Future<String>> verdicts = new ArrayList<>();
        for (Sweep.Form f : cands) {
            String sha = LlvmConformance.sha(f.ptx());
            verdicts.add(pool.submit(() -> {
                String v = cache.get(sha);
                if (v == null) {
                    v = ptxas(ptxas, f.ptx(), work);
                    cache.put(sha, v);
                }
                return v;
            }));
        }
        StringBuilder sb = new StringBuilder("# The forms of the instruction sweep (Sweep, SweepKernels, SweepMatrix): the candidates ptxas -arch=sm_90 (CUDA 13.0) accepts.\n"
                + "# Written by SweepCandidates; name<TAB>family<TAB>SHA-256 prefix of the PTX<TAB>emulator: ok or refused: message<TAB>tuples\n");
        List<String> broken = new ArrayList<>();
        int kept = 0, dropped = 0, refused = 0;
        Map<String, int[]> perFamily = new LinkedHashMap<>();
        for (int i = 0; i < cands.size(); i++) {
            Sweep.Form f = cands.get(i);
            String v = verdicts.get(i).get();
            if (i % 500 == 0) System.out.println("checked " + i);
            if (!v.equals("ok")) {
                if (!f.optional()) broken.add(f.name() + ": " + v);
                dropped++;
                continue;
            }
            String emu = emulator(f.ptx());
            if (!emu.equals("ok")) refused++;
            kept++;
            int[] pf = perFamily.computeIfAbsent(f.family(), k -> new int[2]);
            pf[0]++;
            if (!emu.equals("ok")) pf[1]++;
            sb.append(f.name()).append('\t').append(f.family()).append('\t').append(LlvmConformance.sha(f.ptx())).append('\t').append(emu).append('\t')
                    .append(f.tuples()).append('\n');
        }
        pool.shutdown();
        StringBuilder c = new StringBuilder();
        List<String> keys = new ArrayList<>(cache.keySet());
        Collections.sort(keys);
        for (String k : keys) c.append(k).append('\t').append(cache.get(k)).append('\n');
        Files.createDirectories(cacheFile.getParent());
        Files.writeString(cacheFile, c);
        Files.createDirectories(out.getParent());
        Files.writeString(out, sb);
        System.out.println(cands.size() + " candidates: " + kept + " accepted by ptxas (" + refused + " of them refused by the emulator), " + dropped + " dropped");
        for (var e : perFamily.entrySet()) System.out.println("  " + e.getKey() + ": " + e.getValue()[0] + " forms, emulator refuses " + e.getValue()[1]);
        if (!broken.isEmpty()) {
            System.out.println(broken.size() + " kernels that must compile did not:");
            for (String b : broken) System.out.println("  " + b);
            System.exit(1);
        }
    }
}

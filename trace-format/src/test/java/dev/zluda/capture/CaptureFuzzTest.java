package dev.zluda.capture;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.zluda.capture.text.Dump;
import org.junit.jupiter.api.Test;

import java.io.PrintWriter;
import java.io.Writer;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Mutated captures, read in-process the way {@code zluda dump} and {@code zluda info} read them
 * (FORMAT.md §5): 3,000 seeded mutations (truncation, bit flips, zeroed ranges, duplicated chunks,
 * damaged length words, random bytes, copied ranges) of captures committed under
 * {@code samples/traces/h200} and of two written here (three threads in 4 KiB chunks, closed and
 * crashed). For each: no exception but the reader's own {@link CaptureException} at open, no read
 * longer than {@link #READ_LIMIT_S} s, no more than {@link #ALLOC_PER_BYTE} bytes allocated per byte of
 * the file (plus {@link #ALLOC_FIXED}), every record that ends before the first changed byte read
 * unchanged. For every mutation but the two that copy well-formed bytes from elsewhere in the file
 * (copied ranges, duplicated chunks: where no SEAL covers them, copied frames read as records and
 * cannot be told from the originals), also: no record of the original missing without a damage note
 * (but the last records of a crashed capture, which look like a process that died earlier), and
 * "ended cleanly" only when every record was read. The figures go to stdout (docs/troubleshooting.md
 * quotes them).
 */
class CaptureFuzzTest {
    static final int MUTATIONS = 3000;
    static final long READ_LIMIT_S = 10;
    static final long ALLOC_PER_BYTE = 512, ALLOC_FIXED = 64L << 20;
    static final Path H200 = Path.of(System.getProperty("zluda.repo", "..")).resolve("samples/traces/h200");

    /** One unmutated capture: its bytes, manifest, and records by frame offset (canonical text, frame end). */
    record Base(String name, byte[] img, com.fasterxml.jackson.databind.JsonNode manifest, Map<Long, String> canon, Map<Long, Long> frameEnd,
                List<Long> offsets, long dataEnd, Map<Long, Long> seqs, boolean endsWithProcessEnd, int threads) {}

    static Base base(String name, byte[] img, Path manifest) throws Exception {
        Map<Long, String> canon = new HashMap<>();
        Map<Long, Long> ends = new HashMap<>(), seqs = new HashMap<>();
        Set<Long> threads = new HashSet<>();
        boolean pe;
        try (CaptureReader r = CaptureReader.open(Path.of(name), MemorySegment.ofArray(img))) {
            CaptureRecord last = null;
            for (CaptureRecord c : r) {
                canon.put(c.offset(), Canon.of(c));
                ends.put(c.offset(), TestCaptures.frameEnd(img, c.offset()));
                seqs.put(c.offset(), c.seq());
                threads.add(c.threadId());
                last = c;
            }
            assertFalse(r.status().stoppedEarly(), name + ": " + r.status());
            pe = last instanceof CaptureRecord.ProcessEnd;
        }
        long dataEnd = img.length;
        while (dataEnd > 64 && img[(int) dataEnd - 1] == 0) dataEnd--;
        var m = manifest != null && Files.exists(manifest) ? new ObjectMapper().readTree(manifest.toFile()) : null;
        List<Long> offsets = new ArrayList<>(canon.keySet());
        offsets.sort(Long::compare);
        return new Base(name, img, m, canon, ends, offsets, dataEnd, seqs, pe, threads.size());
    }

    /** What one mutated input did. */
    enum Outcome {
        /** {@link CaptureReader#open} refused it with a {@link CaptureException} naming the offset. */
        CLEAN_ERROR,
        /** Read, with damage notes. */
        READ_WITH_NOTES,
        /** Read without a note, the same records as the original (the change touched nothing the reader uses). */
        READ_SAME,
        /** Read without a note, records differing from the original's (values changed where no SEAL covers them, or the records a crashed process wrote last gone). */
        READ_CHANGED
    }

    record Result(Outcome outcome, long allocated, String problem) {}

    @Test
    void mutatedCapturesNeverEscapeHangOrLoseRecordsSilently() throws Exception {
        List<Base> bases = new ArrayList<>();
        for (String c : new String[] {"cudart_demo-replay", "structs_demo-replay", "vectorAdd-kernels", "torch_train"}) {
            Path d = H200.resolve(c);
            bases.add(base(c, Files.readAllBytes(d.resolve(CaptureFormat.CAPTURE_FILE)), d.resolve(CaptureFormat.MANIFEST_FILE)));
        }
        bases.add(base("threads-closed", TestCaptures.bytes(4096, 3, 120, false, true), null));
        bases.add(base("threads-crashed", Arrays.copyOf(TestCaptures.bytes(4096, 3, 120, true, false), 64 + 10 * 4096), null));
        int[] weight = {8, 8, 8, 1, 8, 8}; // torch_train (1 MiB, 45,000 records: 0.3 s a read) less often
        int totalWeight = Arrays.stream(weight).sum();

        Random rnd = new Random(0x29);
        ExecutorService worker = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "fuzz-reader");
            t.setDaemon(true);
            return t;
        });
        Map<Outcome, Integer> counts = new HashMap<>();
        Map<String, Integer> kinds = new HashMap<>();
        Map<String, Long> timeByBase = new HashMap<>();
        List<String> problems = new ArrayList<>();
        int hangs = 0;
        double worstAlloc = 0;
        long start = System.nanoTime();
        try {
            for (int n = 0; n < MUTATIONS; n++) {
                int pick = rnd.nextInt(totalWeight), which = 0;
                while (pick >= weight[which]) pick -= weight[which++];
                Base b = bases.get(which);
                byte[] img = b.img.clone();
                String[] kind = new String[1];
                int first = mutate(rnd, b, img, kind);
                byte[] input = first < 0 ? Arrays.copyOf(img, -first - 1) : img;
                int changed = first < 0 ? -first - 1 : first;
                kinds.merge(kind[0], 1, Integer::sum);
                if (System.getenv("FUZZ_DEBUG") != null && Integer.parseInt(System.getenv("FUZZ_DEBUG")) == n) {
                    Files.write(Path.of("target", "fuzz-input.zcap"), input);
                    Files.write(Path.of("target", "fuzz-base.zcap"), b.img);
                }
                String label = "mutation " + n + " (" + kind[0] + " of " + b.name + ", first change at byte " + changed + ")";
                long t0 = System.nanoTime();
                // well-formed frames copied from elsewhere in the file can replace records undetectably where no SEAL covers them
                boolean substitution = kind[0].equals("copied range") || kind[0].equals("duplicated chunk");
                final int nn = n;
                Future<Result> f = worker.submit(() -> check(b, input, changed, substitution, nn));
                Result r;
                try {
                    r = f.get(READ_LIMIT_S, TimeUnit.SECONDS);
                } catch (TimeoutException e) {
                    hangs++;
                    problems.add(label + ": no result in " + READ_LIMIT_S + " s");
                    f.cancel(true);
                    worker.shutdownNow();
                    worker = Executors.newSingleThreadExecutor();
                    continue;
                } catch (java.util.concurrent.ExecutionException e) {
                    problems.add(label + ": escaped: " + e.getCause());
                    continue;
                }
                counts.merge(r.outcome, 1, Integer::sum);
                timeByBase.merge(b.name, (System.nanoTime() - t0) / 1_000_000L, Long::sum);
                worstAlloc = Math.max(worstAlloc, (double) Math.max(0, r.allocated - ALLOC_FIXED) / input.length);
                if (r.problem != null) problems.add(label + ": " + r.problem);
            }
        } finally {
            worker.shutdownNow();
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        System.out.printf("capture fuzz: %d mutations of %d captures in %.1f s (%s; ms per capture %s)%n", MUTATIONS, bases.size(), seconds, kinds, timeByBase);
        System.out.printf("capture fuzz: %d clean errors at open, %d read with damage notes, %d read without a note and unchanged,"
                        + " %d read without a note with values changed or the last records of a crashed capture gone (undetectable),"
                        + " %d escapes or failed checks, %d hangs; at most %.0f bytes allocated per byte of file above %d MiB%n",
                counts.getOrDefault(Outcome.CLEAN_ERROR, 0), counts.getOrDefault(Outcome.READ_WITH_NOTES, 0),
                counts.getOrDefault(Outcome.READ_SAME, 0), counts.getOrDefault(Outcome.READ_CHANGED, 0), problems.size() - hangs, hangs,
                worstAlloc, ALLOC_FIXED >> 20);
        if (Files.isDirectory(Path.of("target"))) Files.write(Path.of("target", "capture-fuzz-problems.txt"), problems);
        assertEquals(List.of(), problems.subList(0, Math.min(20, problems.size())), problems.size() + " problems");
    }

    /**
     * Mutates {@code img} in place; returns the first changed byte, or {@code -(cut + 1)} for a
     * truncation to {@code cut} bytes.
     */
    static int mutate(Random rnd, Base b, byte[] img, String[] kind) {
        int len = img.length;
        // where: mostly inside the records (a random frame, somewhere in or near it), else anywhere
        int at;
        if (rnd.nextInt(40) == 0) {
            at = rnd.nextInt(64); // the file header
        } else if (rnd.nextInt(10) < 8 && !b.offsets.isEmpty()) {
            long off = b.offsets.get(rnd.nextInt(b.offsets.size()));
            at = (int) Math.min(len - 1, off + rnd.nextInt((int) Math.min(64, b.frameEnd.get(off) - off + 8)));
        } else {
            at = rnd.nextInt(rnd.nextBoolean() ? (int) Math.max(65, b.dataEnd) : len);
        }
        switch (rnd.nextInt(7)) {
            case 0 -> {
                kind[0] = "truncation";
                return -(at + 1);
            }
            case 1 -> {
                kind[0] = "bit flips";
                int k = 1 + rnd.nextInt(3);
                for (int i = 0; i < k; i++) img[Math.min(len - 1, at + rnd.nextInt(16) * i)] ^= (byte) (1 << rnd.nextInt(8));
            }
            case 2 -> {
                kind[0] = "zeroed range";
                Arrays.fill(img, at, Math.min(len, at + 1 + rnd.nextInt(rnd.nextBoolean() ? 8 : 300)), (byte) 0);
            }
            case 3 -> {
                kind[0] = "duplicated chunk";
                int cs = chunkSize(img);
                int units = (len - 64) / cs;
                if (units < 2) {
                    // a copy of the only unit over... itself: copy a part of it over a later part instead
                    int from = 64 + rnd.nextInt(Math.max(1, (int) b.dataEnd - 64));
                    int to = Math.min(len - 1, from + 4 * (1 + rnd.nextInt(64)));
                    int l = Math.min(len - to, 1 + rnd.nextInt(512));
                    System.arraycopy(b.img, from, img, to, l);
                    at = to;
                } else {
                    int src = rnd.nextInt(units), dst = rnd.nextInt(units);
                    if (src == dst) dst = (dst + 1) % units;
                    System.arraycopy(b.img, 64 + src * cs, img, 64 + dst * cs, cs);
                    at = 64 + dst * cs;
                }
            }
            case 4 -> {
                kind[0] = "damaged length word";
                long off = b.offsets.get(rnd.nextInt(b.offsets.size()));
                at = (int) off;
                long orig = (img[at] & 0xFFL) | (img[at + 1] & 0xFFL) << 8 | (img[at + 2] & 0xFFL) << 16 | (img[at + 3] & 0xFFL) << 24;
                long v = switch (rnd.nextInt(6)) {
                    case 0 -> 0;
                    case 1 -> 0xFFFFFFFFL;
                    case 2 -> 0x7FFFFFF0L;
                    case 3 -> orig + 1 + rnd.nextInt(8);
                    case 4 -> Math.max(1, orig - 1 - rnd.nextInt(8));
                    default -> rnd.nextInt() & 0xFFFFFFFFL;
                };
                for (int i = 0; i < 4; i++) img[at + i] = (byte) (v >>> (8 * i));
            }
            case 5 -> {
                kind[0] = "random bytes";
                int k = 1 + rnd.nextInt(8);
                for (int i = 0; i < k && at + i < len; i++) img[at + i] = (byte) rnd.nextInt(256);
            }
            default -> {
                kind[0] = "copied range";
                int from = rnd.nextInt(Math.max(1, (int) b.dataEnd));
                int l = Math.min(Math.min(len - from, len - at), 1 + rnd.nextInt(200));
                System.arraycopy(b.img, from, img, at, l);
            }
        }
        for (int i = 0; i < len; i++) if (img[i] != b.img[i]) return i;
        return len; // nothing changed
    }

    static int chunkSize(byte[] img) {
        return (img[16] & 0xFF) | (img[17] & 0xFF) << 8 | (img[18] & 0xFF) << 16 | (img[19] & 0xFF) << 24;
    }

    private static final Writer NOWHERE = Writer.nullWriter();

    /** Reads one mutated capture as zluda dump and zluda info do; null problem when every check holds. */
    static Result check(Base b, byte[] img, int first, boolean substitution, int n) {
        var mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long before = mx.getCurrentThreadAllocatedBytes();
        Path name = Path.of("fuzz.zcap");
        CaptureReader r;
        try {
            r = CaptureReader.open(name, MemorySegment.ofArray(img));
        } catch (CaptureException e) {
            long alloc = mx.getCurrentThreadAllocatedBytes() - before;
            String p = e.getMessage().startsWith("fuzz.zcap: byte ") ? null : "an error without its offset: " + e.getMessage();
            return new Result(Outcome.CLEAN_ERROR, alloc, p);
        }
        Map<Long, String> got = new HashMap<>();
        ReadStatus st;
        String problem = null;
        try (Capture cap = Capture.of(r, b.manifest)) {
            for (CaptureRecord c : r) {
                if (got.put(c.offset(), Canon.of(c)) != null) problem = "the record at byte " + c.offset() + " was delivered twice";
            }
            st = r.status();
            // what zluda dump and zluda info then do with it
            Dump.dump(cap, Dump.Options.all(), new PrintWriter(NOWHERE));
            CaptureInfo.of(cap).print(cap, new PrintWriter(NOWHERE));
        }
        long alloc = mx.getCurrentThreadAllocatedBytes() - before;
        if (alloc > ALLOC_PER_BYTE * img.length + ALLOC_FIXED) problem = "allocated " + alloc + " bytes for a " + img.length + "-byte file";
        Set<Long> missing = new HashSet<>(b.canon.keySet());
        missing.removeAll(got.keySet());
        for (long off : b.offsets) {
            if (b.frameEnd.get(off) > first) break;
            if (!b.canon.get(off).equals(got.get(off))) {
                problem = "the record at byte " + off + ", before the first change, " + (got.containsKey(off) ? "changed" : "was not read") + "; " + st;
                break;
            }
        }
        if (!missing.isEmpty() && st.damageCount() == 0 && !substitution) {
            // what no reader can tell from a capture whose process died earlier: the records written last (all
            // numbered above every record read), or one per thread being written when it died (no PROCESS_END)
            long maxRead = got.keySet().stream().mapToLong(o -> b.seqs.getOrDefault(o, -1L)).max().orElse(-1);
            long below = missing.stream().filter(o -> b.seqs.get(o) < maxRead).count();
            boolean silentOk = below == 0 || (!b.endsWithProcessEnd && below <= b.threads);
            if (!silentOk) problem = missing.size() + " records lost without a damage note (" + missing.stream().sorted().limit(5).toList() + "); " + st;
        }
        if (st.endedCleanly() && !substitution && (!missing.isEmpty() || st.damageCount() > 0)) problem = "ended cleanly although " + missing.size() + " records are missing; " + st;
        Outcome o = st.damageCount() > 0 ? Outcome.READ_WITH_NOTES : got.equals(b.canon) ? Outcome.READ_SAME : Outcome.READ_CHANGED;
        return new Result(o, alloc, problem);
    }
}

package dev.zluda.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The commands that read captures, on mutated copies of committed ones, as a user runs them: every
 * error line names where (a file and a byte offset, or a record) and what, and none is a bare Java
 * message ({@code Index -2 out of bounds for length 672}, an exception class name). Exit codes are 0,
 * 1 or 2 (dump: 1 for damage). 150 seeded mutations (bit flips, zeroed ranges, random bytes, damaged
 * length words, truncation), each read by dump, info, convert --to jsonl and diff against the original.
 */
class CaptureCommandsFuzzTest {
    @TempDir
    Path tmp;

    static final Path H200 = Path.of(System.getProperty("zluda.repo", "..")).resolve("samples/traces/h200");
    /** What a bare Java message looks like. */
    static final Pattern JAVA = Pattern.compile("Exception|Error:|out of bounds|Index -?\\d+|java\\.|null\\b|NullPointer|For input string");

    static final int MUTATIONS = 150;

    /** The safety net: a Java runtime failure while a capture is being read is reported with the record, not bare. */
    @Test
    void aJavaFailureIsReportedWithTheRecordBeingRead() throws Exception {
        String bare = Main.message(new ArrayIndexOutOfBoundsException("Index -2 out of bounds for length 672"));
        assertTrue(bare.startsWith("internal error: ArrayIndexOutOfBoundsException (Index -2 out of bounds for length 672)"), bare);
        assertTrue(bare.endsWith("please report it with the input (ZLUDA_DEBUG=1 prints where in zluda)"), bare);
        try (dev.zluda.capture.Capture c = dev.zluda.capture.Capture.open(H200.resolve("vectorAdd"))) {
            var it = c.reader().iterator();
            for (int i = 0; i < 5; i++) it.next();
            String m = Main.message(new NullPointerException());
            assertTrue(m.contains(", while reading " + H200.resolve("vectorAdd/capture.zcap") + ": record 5 in sequence order (a "), m);
            assertTrue(m.matches(".* at byte \\d+, sequence number 4\\); please report it.*"), m);
        }
        assertEquals("no such thing", Main.message(new IllegalArgumentException("no such thing")), "a message of ours is kept as it is");
    }

    @Test
    void damagedCapturesGiveClearMessagesInEveryCommand() throws Exception {
        String[] names = {"cudart_demo-replay", "vectorAdd-kernels", "matrixMul"};
        Random rnd = new Random(29);
        List<String> problems = new ArrayList<>();
        int runs = 0, damaged = 0, errors = 0;
        for (int n = 0; n < MUTATIONS; n++) {
            Path src = H200.resolve(names[n % names.length]);
            byte[] img = Files.readAllBytes(src.resolve("capture.zcap"));
            int dataEnd = img.length;
            while (dataEnd > 64 && img[dataEnd - 1] == 0) dataEnd--;
            int at = rnd.nextInt(20) == 0 ? rnd.nextInt(64) : 64 + rnd.nextInt(dataEnd - 64);
            switch (rnd.nextInt(5)) {
                case 0 -> img[at] ^= (byte) (1 << rnd.nextInt(8));
                case 1 -> Arrays.fill(img, at, Math.min(img.length, at + 1 + rnd.nextInt(64)), (byte) 0);
                case 2 -> { for (int i = 0; i < 4 && at + i < img.length; i++) img[at + i] = (byte) rnd.nextInt(256); }
                case 3 -> { at &= ~3; for (int i = 0; i < 4; i++) img[at + i] = (byte) (rnd.nextBoolean() ? 0xFF : 0); }
                default -> img = Arrays.copyOf(img, at);
            }
            Path dir = Files.createDirectories(tmp.resolve("m" + n));
            Files.write(dir.resolve("capture.zcap"), img);
            Files.copy(src.resolve("manifest.json"), dir.resolve("manifest.json"));
            String[][] commands = {
                    {"dump", dir.toString()},
                    {"info", dir.toString()},
                    {"convert", dir.toString(), tmp.resolve("out" + n + ".jsonl").toString(), "--to", "jsonl"},
                    {"diff", src.toString(), dir.toString(), "-o", tmp.resolve("d" + n + ".txt").toString()}};
            for (String[] c : commands) {
                CliRun.Result r = CliRun.run(c);
                runs++;
                if (r.code() == 2) {
                    errors++;
                    if (System.getenv("FUZZ_SHOW") != null) System.out.println("EXIT2 " + c[0] + ": " + r.err().strip().replace('\n', '|'));
                }
                if (c[0].equals("dump") && r.code() == 1) damaged++;
                if (r.code() < 0 || r.code() > 2) problems.add(String.join(" ", c) + ": exit " + r.code() + ": " + r.err());
                for (String line : r.err().split("\n")) {
                    if (!line.contains(": error:")) continue;
                    if (JAVA.matcher(line).find() || !(line.contains("byte ") || line.contains("record"))) {
                        problems.add(String.join(" ", c) + " (mutation " + n + "): " + line);
                    }
                }
            }
            if (problems.size() > 20) break;
        }
        System.out.printf("capture commands fuzz: %d runs of dump/info/convert/diff on %d mutated captures: %d exit 2 (clear errors),"
                + " dump exit 1 (damaged) %d times, %d problems%n", runs, MUTATIONS, errors, damaged, problems.size());
        assertEquals(List.of(), problems);
    }
}

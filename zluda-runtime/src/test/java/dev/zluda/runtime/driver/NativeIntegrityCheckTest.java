package dev.zluda.runtime.driver;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The NVIDIA tracer's C integrity check (nvidia-capture tracer/md2.c, through its test program
 * md2_test) against this driver's Java one ({@link IntegrityCheck}, itself tested against RFC 1319
 * and BouncyCastle): RFC 1319's MD2 test suite, HMAC-MD2 and the whole answer on the same inputs.
 */
class NativeIntegrityCheckTest {
    private static final Path MD2_TEST = Path.of(System.getProperty("zluda.repo", "..")).resolve("nvidia-capture/target/native/test/md2_test");

    private static String run(String... args) throws Exception {
        Assumptions.assumeTrue(Files.isExecutable(MD2_TEST), "SKIPPED: " + MD2_TEST + " not built (mvn package builds it)");
        List<String> cmd = new ArrayList<>();
        cmd.add(MD2_TEST.toString());
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(30, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), out);
        return out.trim();
    }

    @Test
    void cMd2PassesTheRfc1319TestSuite() throws Exception {
        assertTrue(run().endsWith("MD2 test suite: all passed"));
    }

    @Test
    void cHmacMd2MatchesTheJavaOne() throws Exception {
        Random r = new Random(2104);
        HexFormat hex = HexFormat.of();
        for (int keyLength : new int[] {16, 1, 17, 40}) {
            for (int length : new int[] {0, 1, 15, 16, 17, 76, 300}) {
                byte[] key = new byte[keyLength], message = new byte[length];
                r.nextBytes(key);
                r.nextBytes(message);
                assertEquals(hex.formatHex(IntegrityCheck.hmacMd2(key, message)), run("hmac", hex.formatHex(key), hex.formatHex(message)),
                        "key " + keyLength + ", message " + length);
            }
        }
    }

    @Test
    void cIntegrityAnswerMatchesTheJavaOne() throws Exception {
        Random r = new Random(1319);
        HexFormat hex = HexFormat.of();
        for (int version : new int[] {13000, 12091, 13002, 12345, 13009}) {
            for (int devices = 0; devices <= 2; devices++) {
                long seconds = 1_764_460_800L + r.nextInt(1_000_000);
                int pid = r.nextInt(1 << 22), tid = r.nextInt();
                long cudart = 0x7f00_0000_0000L + r.nextInt(), table = 0x7f10_0000_0000L + r.nextInt(), fn = 0x7f20_0000_0000L + r.nextInt();
                List<IntegrityCheck.Device> devs = new ArrayList<>();
                List<String> args = new ArrayList<>(List.of("integrity", Integer.toString(version), Long.toString(seconds), "13000",
                        Integer.toUnsignedString(pid), Integer.toUnsignedString(tid), "0x" + Long.toHexString(cudart),
                        "0x" + Long.toHexString(table), "0x" + Long.toHexString(fn)));
                for (int d = 0; d < devices; d++) {
                    byte[] uuid = new byte[16];
                    r.nextBytes(uuid);
                    int domain = d, bus = 0x1b + 0x20 * d, device = r.nextInt(32);
                    devs.add(new IntegrityCheck.Device(uuid, domain, bus, device));
                    args.addAll(List.of(hex.formatHex(uuid), Integer.toString(domain), Integer.toString(bus), Integer.toString(device)));
                }
                long[] java = IntegrityCheck.compute(version, seconds, 13000, pid, tid, cudart, table, fn, devs);
                assertEquals(String.format("%016x %016x", java[0], java[1]), run(args.toArray(String[]::new)),
                        "version " + version + ", " + devices + " devices");
            }
        }
    }
}

package dev.zluda.runtime;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The native fast path of {@code libcuda.so.1} (entry.c {@code fast_call}, {@code NativeFastPath}): cuCtxGetCurrent and
 * cuCtxGetDevice answered in C must give the Java driver's answers in every state they depend on (the C program
 * {@code fast_path} checks them: per thread, after contexts change, after another thread destroys a context or a kernel
 * fault leaves a sticky error), and with the trace layer on every one of those calls must be recorded.
 */
class NativeFastPathTest {
    private static String run(Map<String, String> env) throws Exception {
        Path dir = NativeTests.nativeDir();
        return NativeTests.runWithTestJvm(env, dir.resolve("tests/fast_path").toString(), dir.resolve("libcuda.so.1").toString());
    }

    @Test
    void theNativeAnswersAreTheDriversInEveryState() throws Exception {
        String out = run(Map.of());
        assertTrue(out.startsWith("exit 0\n"), out);
        assertTrue(out.contains(" 0 failed"), out);
        assertTrue(out.contains("54 passed"), "every check ran:\n" + out);
    }

    @Test
    void withTheTraceLayerEveryCallIsRecorded(@TempDir Path tmp) throws Exception {
        String out = run(Map.of("ZLUDA_LOG_DIR", tmp.toString()));
        assertTrue(out.startsWith("exit 0\n") && out.contains(" 0 failed"), out);
        Matcher m = Pattern.compile("calls: cuCtxGetCurrent (\\d+) cuCtxGetDevice (\\d+)").matcher(out);
        assertTrue(m.find(), out);
        String dump;
        try (dev.zluda.capture.Capture c = dev.zluda.capture.Capture.open(tmp.resolve("fast_path"))) {
            java.io.StringWriter s = new java.io.StringWriter();
            dev.zluda.capture.text.Dump.dump(c, dev.zluda.capture.text.Dump.Options.all(), new java.io.PrintWriter(s));
            dump = s.toString();
        }
        assertEquals(Long.parseLong(m.group(1)), Pattern.compile("cuCtxGetCurrent\\(").matcher(dump).results().count(), dump);
        assertEquals(Long.parseLong(m.group(2)), Pattern.compile("cuCtxGetDevice\\(").matcher(dump).results().count(), dump);
    }
}

package dev.zluda.ptx;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Mutation fuzzing of the front end with corpus PTX: random deletions, insertions of PTX punctuation
 * and random bytes, duplications, truncations. Fixed seed (override with -Dzluda.fuzz.seed=N),
 * bounded time (-Dzluda.fuzz.seconds, default 12). Checks that parsing, analysis and printing never
 * throw, never hang, never hit the stack-overflow backstop, that every diagnostic has a position
 * inside the text, and that inputs which still parse round-trip through the printer.
 */
class FuzzTest {
    private static final String PUNCT = "{}[]();,.:@!%|\"-+*/<>=?~^&_$0123456789xfdFDabce \t\n";

    @Test
    void mutatedAndTruncatedPtxNeverCrashes() {
        long seed = Long.getLong("zluda.fuzz.seed", 0x5EED_2025L);
        long seconds = Long.getLong("zluda.fuzz.seconds", 12);
        Random rnd = new Random(seed);
        List<String> inputs = Corpus.fuzzInputs();
        long deadline = System.nanoTime() + seconds * 1_000_000_000L;
        int iterations = 0, stillValid = 0;
        while (System.nanoTime() < deadline && iterations < 200_000) {
            String original = inputs.get(rnd.nextInt(inputs.size()));
            String mutated = mutate(original, rnd);
            iterations++;
            long t0 = System.nanoTime();
            ParseResult r;
            try {
                r = Ptx.parse(mutated, "fuzz");
            } catch (Throwable t) {
                fail("parse threw " + t + " (seed " + seed + ", iteration " + iterations + ")\n" + excerpt(mutated), t);
                return;
            }
            long ms = (System.nanoTime() - t0) / 1_000_000;
            assertTrue(ms < 5_000, "parse took " + ms + " ms (seed " + seed + ", iteration " + iterations + ")");
            int lines = (int) mutated.chars().filter(c -> c == '\n').count() + 1;
            for (Diagnostic d : r.diagnostics()) {
                assertTrue(d.line() >= 1 && d.line() <= lines && d.column() >= 1,
                        "diagnostic outside the text: " + d + " (seed " + seed + ", iteration " + iterations + ")");
                assertFalse(d.message().contains("too deeply to parse"), "stack backstop hit: " + d);
            }
            try {
                ModuleModel m = Semantics.analyze(r.module(), "fuzz");
                for (Diagnostic d : m.diagnostics()) {
                    assertTrue(d.line() >= 1 && d.line() <= lines && d.column() >= 1, "semantic diagnostic outside the text: " + d);
                }
                if (r.ok()) {
                    stillValid++;
                    String printed = PtxPrinter.print(r.module());
                    ParseResult again = Ptx.parse(printed, "fuzz-printed");
                    assertTrue(again.ok(), () -> "printed mutant does not parse: " + again.diagnostics());
                    assertEquals(r.module(), again.module(), "round trip of a mutant changed the AST");
                }
            } catch (AssertionError e) {
                throw e;
            } catch (Throwable t) {
                fail("analysis/printing threw " + t + " (seed " + seed + ", iteration " + iterations + ")\n" + excerpt(mutated), t);
            }
        }
        assertTrue(iterations > 100, "fuzzer ran only " + iterations + " iterations");
        System.out.printf("fuzz: seed %d, %d inputs, %d still valid%n", seed, iterations, stillValid);
    }

    private static String excerpt(String s) {
        return s.length() <= 2000 ? s : s.substring(0, 2000) + "...";
    }

    static String mutate(String s, Random rnd) {
        StringBuilder sb = new StringBuilder(s);
        int n = 1 + rnd.nextInt(4);
        for (int k = 0; k < n && sb.length() > 0; k++) {
            int pos = rnd.nextInt(sb.length());
            switch (rnd.nextInt(7)) {
                case 0 -> sb.delete(pos, Math.min(sb.length(), pos + 1 + rnd.nextInt(8)));
                case 1 -> sb.insert(pos, PUNCT.charAt(rnd.nextInt(PUNCT.length())));
                case 2 -> sb.setCharAt(pos, (char) rnd.nextInt(256));
                case 3 -> {
                    int end = Math.min(sb.length(), pos + 1 + rnd.nextInt(40));
                    sb.insert(rnd.nextInt(sb.length()), sb.substring(pos, end));
                }
                case 4 -> sb.setLength(pos);                                  // truncate
                case 5 -> {                                                  // drop one whole line
                    int a = sb.lastIndexOf("\n", pos), b = sb.indexOf("\n", pos);
                    if (a >= 0 && b > a) sb.delete(a, b);
                }
                default -> {                                                 // swap two characters
                    int q = rnd.nextInt(sb.length());
                    char c = sb.charAt(pos);
                    sb.setCharAt(pos, sb.charAt(q));
                    sb.setCharAt(q, c);
                }
            }
        }
        return sb.toString();
    }
}

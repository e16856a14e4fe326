package dev.zluda.ptx;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Parse + AST speed and retained heap on a large synthetic module (corpus functions repeated under
 * new names). Opt-in: {@code mvn -pl ptx test -Dtest=ParseSpeedBenchmark -Dzluda.bench=true
 * [-Dzluda.bench.mb=50]}. Prints MB/s and retained heap / file size; asserts nothing about speed
 * (the machine is shared), only that the module parses. Not JMH (see docs/ptx-front-end.md).
 */
@EnabledIfSystemProperty(named = "zluda.bench", matches = "true")
class ParseSpeedBenchmark {
    static String synthetic(int megabytes) {
        String base = Corpus.read(Corpus.dir().resolve("double_math.sm_90.ptx"));
        int cut = base.indexOf(".address_size 64") + ".address_size 64".length();
        String header = base.substring(0, cut), body = base.substring(cut);
        StringBuilder sb = new StringBuilder(megabytes * 1_048_576 + body.length()).append(header);
        for (int i = 0; sb.length() < megabytes * 1_048_576; i++) {
            sb.append(body.replace("_Z11double_mathPKdPdPxi", "dm" + i).replace("_Z10float_mathPKfPfPji", "fm" + i)
                    .replace("__internal_trig_reduction_slowpathd", "tr" + i));
        }
        return sb.toString();
    }

    @Test
    void parseLargeModule() {
        int mb = Integer.getInteger("zluda.bench.mb", 50);
        String text = synthetic(mb);
        Runtime rt = Runtime.getRuntime();
        for (int run = 0; run < 3; run++) {
            System.gc();
            long before = rt.totalMemory() - rt.freeMemory();
            long t0 = System.nanoTime();
            ParseResult r = Ptx.parse(text, "synthetic");
            long t1 = System.nanoTime();
            System.gc();
            long after = rt.totalMemory() - rt.freeMemory();
            assertTrue(r.ok());
            System.out.printf("parse+AST of %.1f MB: %.2f s = %.1f MB/s; AST retains %.0f MB = %.1f x file size%n",
                    text.length() / 1e6, (t1 - t0) / 1e9, text.length() / 1e6 / ((t1 - t0) / 1e9),
                    (after - before) / 1e6, (double) (after - before) / text.length());
            r = null;
        }
    }
}

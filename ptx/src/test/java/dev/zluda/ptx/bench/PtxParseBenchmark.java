package dev.zluda.ptx.bench;

import dev.zluda.ptx.ParseResult;
import dev.zluda.ptx.Ptx;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * JMH benchmark: parse + AST of a synthetic PTX module of {@code sizeMb} megabytes (corpus
 * functions repeated under new names). Throughput in MB/s = sizeMb / (seconds per op).
 * Run with {@code ptx/bench.sh} (single-shot runs, one fork, one core worth of work); the
 * {@code path} parameter gives the ANTLR-only baseline in the same run.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2)
@Measurement(iterations = 5)
@Fork(value = 1, jvmArgsAppend = {"-Xmx2g", "-XX:ActiveProcessorCount=1"})
public class PtxParseBenchmark {
    @Param({"50"})
    public int sizeMb;

    /** {@code fast}: {@link Ptx#parse} (hand-written fast path, ANTLR where it gives up);
     * {@code antlr}: {@link Ptx#parseWithAntlrOnly}, the baseline (ANTLR SLL, then LL on failure). */
    @Param({"fast", "antlr"})
    public String path;

    private String text;

    @Setup(Level.Trial)
    public void setup() throws IOException {
        Path dir = Path.of("src/test/resources/corpus");
        if (!Files.isDirectory(dir)) dir = Path.of("ptx/src/test/resources/corpus");
        text = PtxParseBench.synthetic(dir, sizeMb);
    }

    @Benchmark
    public ParseResult parse() {
        ParseResult r = path.equals("antlr") ? Ptx.parseWithAntlrOnly(text, "synthetic") : Ptx.parse(text, "synthetic");
        if (!r.ok()) throw new IllegalStateException(r.diagnostics().toString());
        return r;
    }
}

package dev.zluda.runtime.emulator;

import dev.zluda.runtime.emulator.conformance.Conformance;
import dev.zluda.runtime.emulator.conformance.ConformanceData;
import dev.zluda.runtime.emulator.conformance.MatrixConformance;
import org.junit.jupiter.api.Test;

import java.io.InputStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Runs every form of the matrix family of the conformance suite ({@link MatrixConformance}: mma.sync,
 * ldmatrix, stmatrix, wmma) on the emulator and compares the whole output buffer, bit for bit, with what an
 * NVIDIA H200 computed for the same inputs ({@code src/test/resources/conformance/h200/matrix.bin.gz}, see
 * the README there). Every form must match exactly; a difference prints the form, the warp and the first
 * differing 32-bit words.
 */
class MatrixConformanceTest {
    @Test
    void emulatorMatchesH200() throws Exception {
        Map<String, ConformanceData.Recorded> recorded;
        try (InputStream is = MatrixConformanceTest.class.getResourceAsStream("/conformance/h200/" + MatrixConformance.FAMILY + ".bin.gz")) {
            assertNotNull(is, "no recorded data for the matrix family");
            recorded = ConformanceData.read(is);
        }
        List<String> problems = new ArrayList<>();
        int exact = 0;
        long words = 0;
        try (PtxRun run = new PtxRun(1)) {
            MemorySegment in = run.buffer((long) Conformance.N * Conformance.IN_BYTES);
            MemorySegment out = run.buffer((long) Conformance.N * Conformance.OUT_BYTES);
            for (MatrixConformance.Form f : MatrixConformance.forms()) {
                ConformanceData.Recorded rec = recorded.get(f.name());
                if (rec == null) {
                    problems.add(f.name() + ": not in the recorded data (record it on the GPU: see conformance/h200/README.md)");
                    continue;
                }
                if (rec.crc() != MatrixConformance.inputCrc(f)) {
                    problems.add(f.name() + ": the generator's inputs differ from those recorded (CRC); record again");
                    continue;
                }
                if (rec.result() != 0) {
                    problems.add(f.name() + ": the GPU rejected it: " + rec.log());
                    continue;
                }
                Kernel k;
                try {
                    k = run.load(MatrixConformance.ptx(f)).kernels().get("k");
                } catch (PtxLoadException e) {
                    problems.add(f.name() + ": the emulator rejects it: " + e.getMessage().lines().findFirst().orElse(""));
                    continue;
                }
                byte[] inputs = MatrixConformance.inputs(f);
                MemorySegment.copy(MemorySegment.ofArray(inputs), 0, in, 0, inputs.length);
                out.fill((byte) 0);
                LaunchResult lr = run.launch(k, new int[] {(Conformance.N + 127) / 128, 1, 1}, new int[] {128, 1, 1}, 0, in.address(), out.address(),
                        Conformance.N);
                if (!lr.ok()) {
                    problems.add(f.name() + ": the launch failed: " + lr.message());
                    continue;
                }
                ByteBuffer g = ByteBuffer.wrap(out.toArray(ValueLayout.JAVA_BYTE)).order(ByteOrder.LITTLE_ENDIAN);
                ByteBuffer e = ByteBuffer.wrap(rec.out()).order(ByteOrder.LITTLE_ENDIAN);
                int bad = 0;
                StringBuilder ex = new StringBuilder();
                for (int i = 0; i < rec.out().length / 4; i++) {
                    words++;
                    int gv = g.getInt(4 * i), ev = e.getInt(4 * i);
                    if (gv != ev && bad++ < 4) {
                        // working warp w owns output bytes [1024 w, 1024 w + 1024): word j*32 + lane is register j of that lane
                        int warp = i / 256, word = i % 256;
                        ex.append(String.format("%n    working warp %d, word %d (register %d, lane %d): H200 %08x, emulator %08x", warp, word, word / 32,
                                word % 32, ev, gv));
                    }
                }
                if (bad > 0) problems.add(f.name() + ": " + bad + " of " + rec.out().length / 4 + " words differ from the H200" + ex);
                else exact++;
            }
        }
        System.out.println("matrix conformance: " + MatrixConformance.forms().size() + " forms, " + exact + " bit-exact (" + words + " words compared)");
        if (!problems.isEmpty()) fail(problems.size() + " problems:\n" + String.join("\n", problems));
        assertEquals(MatrixConformance.forms().size(), exact);
    }
}

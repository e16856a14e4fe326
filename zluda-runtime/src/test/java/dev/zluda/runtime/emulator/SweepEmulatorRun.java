package dev.zluda.runtime.emulator;

import dev.zluda.runtime.emulator.conformance.Sweep;
import dev.zluda.runtime.emulator.conformance.SweepValues;

import java.io.DataOutputStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32;

/**
 * Runs every block of every form of a sweep export ({@code SweepExport}) on the emulator and writes the CRC-32 of
 * each block's outputs to {@code DIR/emu.bin} (little endian: u32 export index, u32 blocks, u32 CRC per block; a
 * form the emulator refuses, or whose launch fails, has 0 blocks). The GPU harness then sends back the raw outputs
 * of the blocks in which the H200 and the emulator differ, so that one recording carries the evidence of every
 * difference. Usage: {@code SweepEmulatorRun DIR [NAME_REGEX]} (from the repository root; with a regex only the forms
 * whose name matches are run, the others get 0 blocks).
 */
public final class SweepEmulatorRun {
    private SweepEmulatorRun() {}

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        java.util.regex.Pattern only = args.length > 1 ? java.util.regex.Pattern.compile(args[1]) : null;
        Map<String, Sweep.Form> byName = new HashMap<>();
        for (Sweep.Form f : Sweep.candidates()) byName.put(f.name(), f);
        List<String> names = Files.readAllLines(dir.resolve("names.tsv"));
        long t0 = System.nanoTime(), tuples = 0;
        int done = 0, failed = 0;
        try (PtxRun run = new PtxRun(Math.max(1, Runtime.getRuntime().availableProcessors()));
             DataOutputStream out = new DataOutputStream(new java.io.BufferedOutputStream(Files.newOutputStream(dir.resolve("emu.bin")), 1 << 20))) {
            MemorySegment in = run.buffer((long) SweepValues.BLOCK * 64), o = run.buffer((long) SweepValues.BLOCK * 128);
            byte[] buf = new byte[SweepValues.BLOCK * 64];
            for (String line : names) {
                String[] p = line.split("\t");
                int index = Integer.parseInt(p[0]);
                Sweep.Form f = byName.get(p[1]);
                int[] crcs = new int[0];
                if (f != null && (only == null || only.matcher(f.name()).find())) {
                    try {
                        Kernel k = run.loadUnchecked(f.ptx()).kernels().get("k");
                        int nb = f.blocks();
                        int[] c = new int[nb];
                        boolean ok = true;
                        for (int b = 0; b < nb && ok; b++) {
                            int n = (int) Math.min(SweepValues.BLOCK, f.tuples() - (long) b * SweepValues.BLOCK);
                            SweepValues.fill(f.plan(), (long) b * SweepValues.BLOCK, n, buf);
                            MemorySegment.copy(MemorySegment.ofArray(buf), 0, in, 0, (long) n * f.plan().stride());
                            o.fill((byte) 0);
                            LaunchResult lr = run.launch(k, new int[] {(n + 127) / 128, 1, 1}, new int[] {128, 1, 1}, 0, in.address(), o.address(), n);
                            tuples += n;
                            if (!lr.ok()) {
                                ok = false;
                                failed++;
                                break;
                            }
                            CRC32 crc = new CRC32();
                            crc.update(o.asSlice(0, (long) n * f.outStride()).toArray(ValueLayout.JAVA_BYTE));
                            c[b] = (int) crc.getValue();
                        }
                        if (ok) crcs = c;
                    } catch (PtxLoadException e) {
                        // refused by the translator: no CRCs
                    }
                }
                out.writeInt(Integer.reverseBytes(index));
                out.writeInt(Integer.reverseBytes(crcs.length));
                for (int c : crcs) out.writeInt(Integer.reverseBytes(c));
                if (++done % 500 == 0) System.out.printf("%d forms, %d tuples, %.0f s%n", done, tuples, (System.nanoTime() - t0) / 1e9);
            }
        }
        System.out.printf("%d forms (%d launches failed), %d tuples in %.0f s; wrote %s%n", done, failed, tuples, (System.nanoTime() - t0) / 1e9,
                dir.resolve("emu.bin"));
    }
}

package dev.zluda.runtime;

import dev.zluda.capture.Capture;
import dev.zluda.capture.CaptureInfo;
import dev.zluda.capture.CaptureRecord;
import dev.zluda.capture.KernelSnapshots;
import dev.zluda.capture.Pack;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.zip.ZipFile;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Module images in captures of zluda's own trace layer (as nvidia-capture keeps them): every
 * successful load has one MODULE record (FORMAT.md §6.4) with the image as a BLOB and the CUmodule
 * the call returned, and the PTX is dumped beside capture.zcap as {@code module_NNNN_NN.ptx}. The
 * ground truth is outside zluda: for a driver-API sample, the PTX file the build embedded
 * (samples/src/main/ptx); for an nvcc-built runtime-API sample, the PTX nvcc writes for the same
 * source with {@code -ptx}, as fatbinary embeds it ({@link #minified}; the build also compresses
 * the fatbin's copy with zstd). Skipped like
 * {@link KernelSnapshotTest} and {@link CudartSamplesTest} when the samples, libcuda.so.1 or nvcc
 * are missing.
 */
class ModuleCaptureTest {
    private static Path bin, nativeDir, repo;

    @BeforeAll
    static void build() throws Exception {
        nativeDir = NativeTests.nativeDir();
        repo = NativeTests.repo();
        bin = NativeTests.driverSamples();
    }

    /** Runs a program on this module's libcuda.so.1 with the trace layer on; returns the capture directory. */
    private static Path record(Path logs, Map<String, String> env, Path exe, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(exe.toString()));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = NativeTests.onDriver(new ProcessBuilder(cmd).redirectErrorStream(true), nativeDir.toString());
        pb.environment().put("ZLUDA_LOG_DIR", logs.toString());
        pb.environment().remove("ZLUDA_CAPTURE_MODULES");
        pb.environment().putAll(env);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), out);
        assertEquals(0, p.exitValue(), out);
        assertTrue(out.lines().anyMatch("PASS"::equals), out);
        assertFalse(out.contains("[ZLUDA_TRACE]"), "the trace layer warned:\n" + out);
        return logs.resolve(exe.getFileName().toString());
    }

    /** One load call and the MODULE records between its ENTER and LEAVE, with the handle it returned. */
    private record Load(String function, long handle, List<CaptureRecord.Module> modules) {}

    private static List<Load> loads(Capture cap) {
        List<Load> loads = new ArrayList<>();
        Map<Long, CaptureRecord.Enter> open = new HashMap<>();
        Map<Long, List<CaptureRecord.Module>> inside = new HashMap<>();
        for (CaptureRecord r : cap.reader()) {
            if (r instanceof CaptureRecord.Enter e) {
                open.put(e.threadId(), e);
                inside.put(e.threadId(), new ArrayList<>());
            } else if (r instanceof CaptureRecord.Module m) {
                List<CaptureRecord.Module> l = inside.get(m.threadId());
                if (l != null) l.add(m); else loads.add(new Load("(outside calls)", 0, new ArrayList<>(List.of(m))));
            } else if (r instanceof CaptureRecord.Leave l) {
                CaptureRecord.Enter e = open.remove(l.threadId());
                List<CaptureRecord.Module> ms = inside.remove(l.threadId());
                String fn = cap.functionName(e.functionId());
                if (fn.startsWith("cuModuleLoad") || fn.startsWith("cuLibraryLoad")) {
                    assertEquals(0, l.result(), fn);
                    byte[] h = l.data().stream().filter(x -> x.param() == 0).findFirst().orElseThrow().bytes();
                    loads.add(new Load(fn, ByteBuffer.wrap(h).order(ByteOrder.LITTLE_ENDIAN).getLong(), ms));
                } else {
                    assertTrue(ms.isEmpty(), "MODULE records inside " + fn);
                }
            }
        }
        return loads;
    }

    private static String info(Capture cap) {
        StringWriter w = new StringWriter();
        CaptureInfo.of(cap).print(cap, new PrintWriter(w));
        return w.toString();
    }

    private static Set<String> packed(Capture cap, Path zip) throws Exception {
        Pack.pack(cap, zip, Set.of());
        try (ZipFile z = new ZipFile(zip.toFile())) {
            return new java.util.TreeSet<>(z.stream().map(java.util.zip.ZipEntry::getName).toList());
        }
    }

    /**
     * PTX as nvcc's fatbinary (CUDA 13.0) stores it in a fatbin: comments removed, each run of
     * spaces and tabs one space, lines without leading or trailing spaces (seen by comparing
     * {@code nvcc --keep}'s constant.ptx with the fatbin entry; newlines are kept).
     */
    static String minified(String ptx) {
        StringBuilder b = new StringBuilder();
        String[] lines = ptx.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            if (i > 0) b.append('\n');
            b.append(lines[i].replaceAll("//.*", "").replaceAll("[ \t]+", " ").strip());
        }
        return b.toString();
    }

    /** vectorAdd loads its embedded PTX with cuModuleLoadData. */
    @Test
    void driverApiSampleKeepsTheEmbeddedPtx(@TempDir Path tmp) throws Exception {
        for (String sample : List.of("vectorAdd")) {
            Path dir = record(tmp.resolve(sample), Map.of(), bin.resolve(sample), "1000");
            byte[] embedded = Files.readAllBytes(repo.resolve("samples/src/main/ptx/" + sample + ".ptx"));
            try (Capture cap = Capture.open(dir)) {
                List<Load> loads = loads(cap);
                assertEquals(1, loads.size(), loads::toString);
                Load load = loads.getFirst();
                assertEquals("cuModuleLoadData", load.function());
                assertEquals(1, load.modules().size(), "one MODULE record inside the load");
                CaptureRecord.Module m = load.modules().getFirst();
                assertEquals(1, m.library());
                assertEquals(1, m.index());
                assertEquals(1, m.kind(), "PTX");
                assertEquals(load.handle(), m.handle(), "the CUmodule the call returned");
                assertNotEquals(0, m.handle());
                assertEquals("module_0001_01.ptx", m.fileName());
                assertEquals(embedded.length, m.size());
                assertArrayEquals(embedded, KernelSnapshots.read(cap).blob(m.imageHash(), "module image"), "the image BLOB is the embedded PTX");
                assertArrayEquals(embedded, Files.readAllBytes(dir.resolve("module_0001_01.ptx")), "the dumped PTX is the embedded PTX");
                assertEquals(List.of(dir.resolve("module_0001_01.ptx")), cap.moduleFiles());
                String info = info(cap);
                assertTrue(info.contains("modules:   1\n  module_0001_01.ptx  " + embedded.length + " bytes, handle "), info);
                assertTrue(packed(cap, tmp.resolve(sample + ".zip")).contains("module_0001_01.ptx"));
            }
        }
    }

    /**
     * ZLUDA_CAPTURE_MODULES=0: the record stays (with the handle), the image and the file do not;
     * reduction loads its PTX with cuModuleLoadDataEx.
     */
    @Test
    void capturingModulesOffKeepsRecordsWithoutImages(@TempDir Path tmp) throws Exception {
        Path dir = record(tmp, Map.of("ZLUDA_CAPTURE_MODULES", "0"), bin.resolve("reduction"), "1000");
        try (Capture cap = Capture.open(dir)) {
            List<Load> loads = loads(cap);
            assertEquals(1, loads.size());
            assertEquals("cuModuleLoadDataEx", loads.getFirst().function());
            CaptureRecord.Module m = loads.getFirst().modules().getFirst();
            assertEquals(List.of(1, 1, 0L, 0L, ""), List.of(m.library(), m.kind(), m.imageHash(), m.size(), m.fileName()));
            assertEquals(loads.getFirst().handle(), m.handle());
            assertTrue(cap.moduleFiles().isEmpty());
            assertTrue(info(cap).contains("modules:   1\n  module_0001 (PTX)  image not kept: recorded with ZLUDA_CAPTURE_MODULES=0, handle "), info(cap));
        }
    }

    /**
     * An nvcc-built program (static cudart, SASS for sm_75 and zstd-compressed PTX for compute_75):
     * cudart 13 loads the fatbin with {@code cuLibraryLoadData} (docs/cuda-observations.md); that
     * is one MODULE record of kind 3 inside the call whose image BLOB is the fatbin, its PTX entry is
     * dumped, decompressed, equal to what {@code nvcc -ptx} writes once compacted as in the fatbin,
     * and its cubin beside it.
     */
    @Test
    void nvccBuiltProgramKeepsItsFatbinAndPtx(@TempDir Path tmp) throws Exception {
        Path cuda = CudartProgramTest.cudaHome();
        Assumptions.assumeTrue(cuda != null, "SKIPPED: nvcc not found: the runtime-API samples cannot be built");
        Path src = repo.resolve("samples/src/main/cu");
        Path build = repo.resolve("samples/target/native");
        Process make = new ProcessBuilder("make", "-s", "-C", src.toString(), "BUILD=" + build, "CUDA_HOME=" + cuda, build.resolve("cudart/constant").toString())
                .redirectErrorStream(true).start();
        String made = new String(make.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(make.waitFor(300, TimeUnit.SECONDS) && make.exitValue() == 0, made);
        Path ptx = tmp.resolve("constant.ptx");
        Process nvcc = new ProcessBuilder(cuda.resolve("bin/nvcc").toString(), "-O2", "-Wno-deprecated-gpu-targets", "-ptx", "-arch=compute_75",
                "-o", ptx.toString(), src.resolve("constant.cu").toString()).redirectErrorStream(true).start();
        String nvccOut = new String(nvcc.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(nvcc.waitFor(120, TimeUnit.SECONDS) && nvcc.exitValue() == 0, nvccOut);
        byte[] expected = Files.readAllBytes(ptx);

        Path dir = record(tmp.resolve("logs"), Map.of("LD_LIBRARY_PATH", nativeDir + java.io.File.pathSeparator + cuda.resolve("lib64")),
                build.resolve("cudart/constant"));
        try (Capture cap = Capture.open(dir)) {
            List<Load> loads = loads(cap);
            assertEquals(List.of("cuLibraryLoadData"), loads.stream().map(Load::function).toList());
            assertEquals(loads.getFirst().handle(), loads.getFirst().modules().getFirst().handle());
            List<CaptureRecord.Module> all = loads.stream().flatMap(l -> l.modules().stream()).toList();
            assertFalse(all.isEmpty(), "no MODULE record");
            List<Path> files = cap.moduleFiles();
            List<Path> ptxFiles = files.stream().filter(f -> f.toString().endsWith(".ptx")).toList();
            assertEquals(1, ptxFiles.size(), files::toString);
            byte[] dumped = Files.readAllBytes(ptxFiles.getFirst());
            if (!java.util.Arrays.equals(expected, dumped)) {
                assertEquals(minified(new String(expected, StandardCharsets.ISO_8859_1)), new String(dumped, StandardCharsets.ISO_8859_1),
                        "the dumped PTX is nvcc's, as fatbinary embeds it");
            }
            assertTrue(files.stream().anyMatch(f -> f.toString().endsWith(".elf")), "the sm_75 cubin is dumped too: " + files);
            CaptureRecord.Module m = all.getFirst();
            assertEquals(3, m.kind(), "fatbin");
            assertEquals("", m.fileName());
            byte[] image = KernelSnapshots.read(cap).blob(m.imageHash(), "module image");
            assertEquals(m.size(), image.length);
            assertEquals(0xBA55ED50, ByteBuffer.wrap(image).order(ByteOrder.LITTLE_ENDIAN).getInt(0), "the BLOB is a fatbin");
            assertEquals(image.length, 16 + ByteBuffer.wrap(image).order(ByteOrder.LITTLE_ENDIAN).getLong(8), "the whole fatbin, as its header sizes it");
            String info = info(cap);
            assertTrue(info.contains("modules:   " + all.size() + "\n  module_0001 (fatbin)  " + m.size() + " bytes"), info);
            for (Path f : files) assertTrue(info.contains(f.getFileName().toString()), "zluda info names the dumped entry " + f + ": " + info);
            Set<String> zip = packed(cap, tmp.resolve("constant.zip"));
            for (Path f : files) assertTrue(zip.contains(f.getFileName().toString()), f + " in " + zip);
        }
    }
}

package dev.zluda.runtime.trace;

import dev.zluda.capture.Capture;
import dev.zluda.capture.CaptureRecord;
import dev.zluda.capture.KernelSnapshots;
import dev.zluda.spec.CudaApi;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The MODULE records of {@link CallTracer} for the load paths the sample programs do not take: a
 * fatbin wrapper loaded through CUDART_INTERFACE slot 1 (what {@code ExportTableArea} reports),
 * a file given to {@code cuModuleLoad}, and {@code ZLUDA_CAPTURE_MODULES=ptx}. The fatbin is nvcc's
 * (kernels.zstd.fatbin, module-image/src/test/cuda/make-fatbins.sh); each dumped entry must have
 * the MD5 of what NVIDIA's {@code cuobjdump -xptx all / -xelf all} extracted from it
 * (kernels.cuobjdump.md5).
 */
class CallTracerModulesTest {
    private static final CudaApi API = CudaApi.get();

    static byte[] resource(String name) throws IOException {
        try (InputStream in = CallTracerModulesTest.class.getResourceAsStream("/dev/zluda/image/" + name)) {
            if (in == null) throw new IOException("test resource " + name + " missing");
            return in.readAllBytes();
        }
    }

    static String md5(byte[] b) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("MD5").digest(b));
    }

    /** A version-1 fatbin wrapper (magic, version, fatbin address, 0) around a copy of the fatbin. */
    static MemorySegment wrapper(Arena arena, byte[] fatbin) {
        MemorySegment f = arena.allocate(fatbin.length, 16);
        MemorySegment.copy(fatbin, 0, f, ValueLayout.JAVA_BYTE, 0, fatbin.length);
        MemorySegment w = arena.allocate(24, 8);
        w.set(ValueLayout.JAVA_INT, 0, 0x466243B1);
        w.set(ValueLayout.JAVA_INT, 4, 1);
        w.set(ValueLayout.JAVA_LONG, 8, f.address());
        return w;
    }

    static List<CaptureRecord.Module> modules(Capture cap) {
        List<CaptureRecord.Module> l = new ArrayList<>();
        cap.reader().forEachRecord(r -> { if (r instanceof CaptureRecord.Module m) l.add(m); });
        return l;
    }

    @Test
    void fatbinFromTheExportTablesAndAFileGiveCuobjdumpsEntries(@TempDir Path tmp) throws Exception {
        byte[] fatbin = resource("kernels.zstd.fatbin");
        byte[] ptxFile = resource("kernels.compute_75.ptx");
        Path file = tmp.resolve("kernels.ptx");
        Files.write(file, ptxFile);
        Path dir;
        try (Arena arena = Arena.ofConfined()) {
            CallTracer t = CallTracer.open(API, tmp.resolve("logs"), "app", false, null, CallTracer.ModuleImages.ALL);
            dir = t.directory();
            t.moduleImages().loaded("CUDART_INTERFACE slot 1", wrapper(arena, fatbin).address(), 0x5000);

            // cuModuleLoad(&module, "kernels.ptx") whose body hands out module 0x6000
            int id = API.function("cuModuleLoad").orElseThrow().id();
            MemorySegment pmodule = arena.allocate(8);
            MemorySegment words = arena.allocate(8 * 16);
            words.setAtIndex(ValueLayout.JAVA_LONG, 0, pmodule.address());
            words.setAtIndex(ValueLayout.JAVA_LONG, 1, arena.allocateFrom(file.toString()).address());
            assertEquals(0, t.call(id, words.toArray(ValueLayout.JAVA_LONG), () -> { pmodule.set(ValueLayout.JAVA_LONG, 0, 0x6000); return 0; }));
            // a failed load is recorded too, with handle 0
            assertEquals(301, t.call(id, words.toArray(ValueLayout.JAVA_LONG), () -> 301));
            t.close(0);
        }
        try (Capture cap = Capture.open(dir)) {
            List<CaptureRecord.Module> ms = modules(cap);
            assertEquals(3, ms.size(), ms::toString);
            assertEquals(List.of(3, 0L, "module_0003_01.ptx"), List.of(ms.get(2).library(), ms.get(2).handle(), ms.get(2).fileName()));
            CaptureRecord.Module f = ms.get(0);
            assertEquals(List.of(1, 1, 3, (long) fatbin.length, 0x5000L, ""), List.of(f.library(), f.index(), f.kind(), f.size(), f.handle(), f.fileName()));
            assertArrayEquals(fatbin, KernelSnapshots.read(cap).blob(f.imageHash(), "fatbin"), "the BLOB is the fatbin the wrapper points to");

            CaptureRecord.Module p = ms.get(1);
            assertEquals(List.of(2, 1, 1, (long) ptxFile.length, 0x6000L, "module_0002_01.ptx"),
                    List.of(p.library(), p.index(), p.kind(), p.size(), p.handle(), p.fileName()));
            assertArrayEquals(ptxFile, KernelSnapshots.read(cap).blob(p.imageHash(), "file"));
            assertArrayEquals(ptxFile, Files.readAllBytes(dir.resolve("module_0002_01.ptx")));

            // the fatbin's entries, in image order, against cuobjdump's extraction
            Map<String, String> expected = new TreeMap<>();
            for (String line : new String(resource("kernels.cuobjdump.md5"), StandardCharsets.UTF_8).split("\n")) {
                String[] w = line.split("\\s+");
                if (w.length == 4 && w[1].equals("kernels.zstd.fatbin")) expected.put(w[3] + " " + w[2], w[0]);
            }
            assertEquals(5, expected.size(), expected::toString);
            Map<String, String> dumped = new TreeMap<>();
            for (Path m : cap.moduleFiles()) {
                String name = m.getFileName().toString();
                if (name.startsWith("module_0001_")) dumped.put(name, md5(Files.readAllBytes(m)));
            }
            assertEquals(Map.of(
                    "module_0001_01.elf", expected.get("sm_75 ELF"),
                    "module_0001_02.ptx", expected.get("sm_75 PTX"),
                    "module_0001_03.elf", expected.get("sm_86 ELF"),
                    "module_0001_04.ptx", expected.get("sm_86 PTX"),
                    "module_0001_05.ptx", expected.get("sm_90 PTX")), dumped);
        }
    }

    /** ZLUDA_CAPTURE_MODULES=ptx: PTX text keeps its image; a fatbin, and a file (not read), do not. */
    @Test
    void ptxOnlyKeepsTheImagesOfPtxText(@TempDir Path tmp) throws Exception {
        byte[] ptx = resource("kernels.compute_75.ptx");
        Path dir;
        try (Arena arena = Arena.ofConfined()) {
            CallTracer t = CallTracer.open(API, tmp, "app", false, null, CallTracer.ModuleImages.PTX);
            dir = t.directory();
            t.moduleImages().loaded("CUDART_INTERFACE slot 1", wrapper(arena, resource("kernels.zstd.fatbin")).address(), 0x5000);
            int load = API.function("cuModuleLoadData").orElseThrow().id();
            MemorySegment pmodule = arena.allocate(8);
            MemorySegment words = arena.allocate(8 * 16);
            words.setAtIndex(ValueLayout.JAVA_LONG, 0, pmodule.address());
            MemorySegment text = arena.allocate(ptx.length + 1L);
            MemorySegment.copy(ptx, 0, text, ValueLayout.JAVA_BYTE, 0, ptx.length);
            words.setAtIndex(ValueLayout.JAVA_LONG, 1, text.address());
            assertEquals(0, t.call(load, words.toArray(ValueLayout.JAVA_LONG), () -> { pmodule.set(ValueLayout.JAVA_LONG, 0, 0x7000); return 0; }));
            words.setAtIndex(ValueLayout.JAVA_LONG, 1, arena.allocateFrom(tmp.resolve("x.ptx").toString()).address());
            assertEquals(0, t.call(API.function("cuModuleLoad").orElseThrow().id(), words.toArray(ValueLayout.JAVA_LONG), () -> 0));
            t.close(0);
        }
        try (Capture cap = Capture.open(dir)) {
            List<CaptureRecord.Module> ms = modules(cap);
            assertEquals(3, ms.size());
            assertEquals(List.of(1, 3, 0L, 0L, ""), List.of(ms.get(0).library(), ms.get(0).kind(), ms.get(0).imageHash(), ms.get(0).size(), ms.get(0).fileName()));
            assertEquals(List.of(2, 1, (long) ptx.length, "module_0002_01.ptx", 0x7000L),
                    List.of(ms.get(1).library(), ms.get(1).kind(), ms.get(1).size(), ms.get(1).fileName(), ms.get(1).handle()));
            assertEquals(List.of(3, 4, 0L, ""), List.of(ms.get(2).library(), ms.get(2).kind(), ms.get(2).imageHash(), ms.get(2).fileName()));
            assertEquals(List.of(dir.resolve("module_0002_01.ptx")), cap.moduleFiles());
            assertArrayEquals(ptx, Files.readAllBytes(dir.resolve("module_0002_01.ptx")));
        }
    }

    /**
     * A load that fails keeps its image: the MODULE record (handle 0) and the dump file, under the
     * name the driver's error log gives it. The driver and the trace layer number loads alike, also
     * across a failed file load: a good PTX load (0001), a missing file (0002), then PTX whose add.f32
     * has four operands (0003), which ptxas rejects.
     */
    @Test
    void aFailedLoadKeepsThePtxItsErrorMessageNames(@TempDir Path tmp) throws Exception {
        String good = ".version 8.5\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n\tret;\n}\n";
        String bad = ".version 8.5\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n.reg .f32 %f<4>;\n\tadd.f32 %f1, %f3, %f2, %f1;\n\tret;\n}\n";
        dev.zluda.runtime.driver.ZludaDriver d = new dev.zluda.runtime.driver.ZludaDriver(API, MemorySegment.NULL);
        Path dir;
        String log;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment ctx = arena.allocate(8);
            assertEquals(0, d.cuInit(0));
            assertEquals(0, d.cuDevicePrimaryCtxRetain(ctx.address(), 0));
            assertEquals(0, d.cuCtxSetCurrent(ctx.get(ValueLayout.JAVA_LONG, 0)));
            CallTracer t = CallTracer.open(API, tmp, "app", false, null, CallTracer.ModuleImages.ALL);
            dir = t.directory();
            MemorySegment pmodule = arena.allocate(8);
            MemorySegment words = arena.allocate(8 * 16);
            words.setAtIndex(ValueLayout.JAVA_LONG, 0, pmodule.address());
            long goodText = arena.allocateFrom(good).address();
            words.setAtIndex(ValueLayout.JAVA_LONG, 1, goodText);
            assertEquals(0, t.call(API.function("cuModuleLoadData").orElseThrow().id(), words.toArray(ValueLayout.JAVA_LONG), () -> d.cuModuleLoadData(pmodule.address(), goodText)));
            long missing = arena.allocateFrom(tmp.resolve("missing.ptx").toString()).address();
            words.setAtIndex(ValueLayout.JAVA_LONG, 1, missing);
            assertNotEquals(0, t.call(API.function("cuModuleLoad").orElseThrow().id(), words.toArray(ValueLayout.JAVA_LONG), () -> d.cuModuleLoad(pmodule.address(), missing)));
            MemorySegment err = arena.allocate(1024), opts = arena.allocate(8), vals = arena.allocate(16);
            opts.setAtIndex(ValueLayout.JAVA_INT, 0, 5); // CU_JIT_ERROR_LOG_BUFFER
            vals.setAtIndex(ValueLayout.JAVA_LONG, 0, err.address());
            opts.setAtIndex(ValueLayout.JAVA_INT, 1, 6); // CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES
            vals.setAtIndex(ValueLayout.JAVA_LONG, 1, 1024);
            long badText = arena.allocateFrom(bad).address();
            words.setAtIndex(ValueLayout.JAVA_LONG, 1, badText);
            words.setAtIndex(ValueLayout.JAVA_LONG, 2, 2);
            words.setAtIndex(ValueLayout.JAVA_LONG, 3, opts.address());
            words.setAtIndex(ValueLayout.JAVA_LONG, 4, vals.address());
            assertEquals(218, t.call(API.function("cuModuleLoadDataEx").orElseThrow().id(), words.toArray(ValueLayout.JAVA_LONG), // CUDA_ERROR_INVALID_PTX
                    () -> d.cuModuleLoadDataEx(pmodule.address(), badText, 2, opts.address(), vals.address())));
            log = err.getString(0);
            t.close(0);
        }
        assertTrue(log.startsWith("module_0003_01.ptx:7:2: error: add.f32 takes 3 operands"), log);
        assertEquals(bad, Files.readString(dir.resolve("module_0003_01.ptx")));
        try (Capture cap = Capture.open(dir)) {
            List<CaptureRecord.Module> ms = modules(cap);
            assertEquals(3, ms.size());
            assertEquals(List.of(1, "module_0001_01.ptx"), List.of(ms.get(0).library(), ms.get(0).fileName()));
            assertNotEquals(0L, ms.get(0).handle());
            assertEquals(List.of(2, 4, 0L, ""), List.of(ms.get(1).library(), ms.get(1).kind(), ms.get(1).handle(), ms.get(1).fileName()));
            assertEquals(List.of(3, 1, (long) bad.length(), 0L, "module_0003_01.ptx"),
                    List.of(ms.get(2).library(), ms.get(2).kind(), ms.get(2).size(), ms.get(2).handle(), ms.get(2).fileName()));
            assertEquals(List.of(dir.resolve("module_0001_01.ptx"), dir.resolve("module_0003_01.ptx")), cap.moduleFiles());
            // zluda info says which loads failed
            java.io.StringWriter w = new java.io.StringWriter();
            dev.zluda.capture.CaptureInfo.of(cap).print(cap, new java.io.PrintWriter(w));
            String info = w.toString();
            assertTrue(info.contains("module_0003_01.ptx  " + bad.length() + " bytes, no handle: the load failed"), info);
            assertTrue(info.lines().filter(l -> l.contains("module_0001_01.ptx")).noneMatch(l -> l.contains("load failed")), "the load that worked: " + info);
        }
    }
}

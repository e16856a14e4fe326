package dev.zluda.capture;

import org.junit.jupiter.api.Test;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What {@code zluda info} says of each module load (FORMAT.md §6.4): a fatbin by the entries dumped
 * beside the capture, a load without an image by why it has none — never a bare "(not dumped)".
 */
class CaptureInfoModulesTest {
    private static final Path H200 = Path.of(System.getProperty("zluda.repo", "..")).resolve("samples/traces/h200");

    private static String info(Path capture) throws CaptureException {
        StringWriter w = new StringWriter();
        try (Capture cap = Capture.open(capture)) {
            CaptureInfo.of(cap).print(cap, new PrintWriter(w));
        }
        return w.toString();
    }

    /** The nvcc-built program recorded on the H200: cudart loaded one fatbin, whose two entries the tracer dumped. */
    @Test
    void fatbinNamesItsDumpedEntries() throws Exception {
        Path dir = H200.resolve("cudart_demo");
        List<String> dumped;
        try (Stream<Path> s = Files.list(dir)) {
            dumped = s.map(p -> p.getFileName().toString()).filter(n -> n.startsWith("module_0001_")).sorted().toList();
        }
        assertEquals(List.of("module_0001_01.elf", "module_0001_02.ptx"), dumped, "the committed capture's dump files");
        String info = info(dir);
        assertTrue(info.contains("modules:   1\n  module_0001 (fatbin)  3808 bytes, handle 0x55cbcbe25a30: 1 PTX, 1 ELF (SASS) entries, "
                + "dumped as module_0001_01.elf, module_0001_02.ptx\n"), info);
        assertFalse(info.contains("not dumped"), info);
    }

    /** PyTorch recorded with ZLUDA_CAPTURE_MODULES=0: every load says why it has no image. */
    @Test
    void loadsWithoutImagesSayWhy() throws Exception {
        String info = info(H200.resolve("torch_train"));
        assertTrue(info.contains("  module_0001 (fatbin)  image not kept: recorded with ZLUDA_CAPTURE_MODULES=0"), info);
        assertTrue(info.contains("  module_0004 (ELF)  image not kept: recorded with ZLUDA_CAPTURE_MODULES=0"), info);
        assertFalse(info.contains("not dumped"), info);
    }

    /** A PTX image is shown by its dump file, as before. */
    @Test
    void ptxImageShowsItsFile() throws Exception {
        String info = info(H200.resolve("vectorAdd-kernels"));
        assertTrue(info.contains("modules:   1\n  module_0001_01.ptx  1132 bytes, handle 0x"), info);
    }

    /** Records of the other cases, made here: a fatbin with no entry files, PTX text without its image. */
    @Test
    void otherCases() {
        CaptureRecord.Module fatbin = new CaptureRecord.Module(1, 0, 1, 0, 7, 1, 3, 0x1234, 5000, 0xabc, "");
        assertEquals("module_0007 (fatbin)  5000 bytes, handle 0xabc: kept whole in the capture; no entries dumped beside it "
                + "(none is PTX or a cubin, or the files were not copied)", CaptureInfo.moduleLine(fatbin, List.of("module_0001_01.ptx")));
        assertEquals("module_0007 (fatbin)  5000 bytes, handle 0xabc: 2 compressed PTX entries, dumped as module_0007_01.ptx.zst, module_0007_02.ptx.lz4",
                CaptureInfo.moduleLine(fatbin, List.of("module_0007_01.ptx.zst", "module_0007_02.ptx.lz4", "module_0007_02.log")));
        CaptureRecord.Module ptx = new CaptureRecord.Module(1, 0, 1, 0, 2, 1, 1, 0, 0, 0xdef, "");
        assertEquals("module_0002 (PTX)  image not kept: recorded with ZLUDA_CAPTURE_MODULES=0, handle 0xdef", CaptureInfo.moduleLine(ptx, List.of()));
    }
}

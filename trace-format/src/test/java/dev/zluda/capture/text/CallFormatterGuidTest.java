package dev.zluda.capture.text;

import dev.zluda.capture.Capture;
import org.junit.jupiter.api.Test;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.*;

/**
 * CUuuid values in zluda dump: 16 bytes in memory order, 8-4-4-4-12 hex digits, as the NVIDIA tracer
 * names export tables. The CUDART_INTERFACE table's id is the byte sequence
 * 6b d5 fb 6c 5b f4 e7 4a 89 87 d9 39 12 fd 9d f9 (shared/reference/cuda-facts.md).
 */
class CallFormatterGuidTest {
    @Test
    void bytesInMemoryOrderGroupedLikeAUuid() {
        byte[] b = {(byte) 0x6b, (byte) 0xd5, (byte) 0xfb, 0x6c, 0x5b, (byte) 0xf4, (byte) 0xe7, 0x4a,
                (byte) 0x89, (byte) 0x87, (byte) 0xd9, 0x39, 0x12, (byte) 0xfd, (byte) 0x9d, (byte) 0xf9};
        assertEquals("{6bd5fb6c-5bf4-e74a-8987-d93912fd9df9}", CallFormatter.guid(b, 0));
    }

    @Test
    void cuGetExportTableShowsTheTableIdOfARealRun() throws Exception {
        // recorded on an H200 through the NVIDIA tracer (samples/traces/h200/README.md)
        try (Capture c = Capture.open(Path.of("../samples/traces/h200/cudart_demo"))) {
            StringWriter w = new StringWriter();
            Dump.dump(c, Dump.Options.all(), new PrintWriter(w));
            assertTrue(w.toString().contains("cuGetExportTable(ppExportTable: ") && w.toString().contains("pExportTableId: {6bd5fb6c-5bf4-e74a-8987-d93912fd9df9}) -> CUDA_SUCCESS"),
                    () -> w.toString().lines().filter(l -> l.contains("cuGetExportTable")).toList().toString());
        }
    }
}

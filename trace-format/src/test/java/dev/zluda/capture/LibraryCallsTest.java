package dev.zluda.capture;

import dev.zluda.capture.convert.ParquetConverter;
import dev.zluda.capture.text.Dump;
import org.apache.parquet.example.data.Group;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A capture whose function table holds library functions after the driver's (FORMAT.md §6.10,
 * "Library functions"), as the library tracers write it: dump, info and Parquet decode a library call
 * with its library's spec, name its status by the library's enum, show a returned value, and keep the
 * driver calls it made nested inside it.
 */
class LibraryCallsTest {
    private static final List<FunctionDef> FUNCS = List.of(
            new FunctionDef("cuInit", 1), new FunctionDef("cuLaunchKernel", 11),
            new FunctionDef("cublasSgemm_v2", 14), new FunctionDef("cublasGetCudartVersion", 0), new FunctionDef("cublasLtMatmulDescSetAttribute", 4));

    @Test
    void libraryCallsAreDecodedWithTheirLibrarysSpecAndKeepTheirDriverCallsNested(@TempDir Path tmp) throws Exception {
        Path dir = tmp.resolve("app");
        Files.createDirectories(dir);
        try (CaptureWriter w = CaptureWriter.create(dir.resolve(CaptureFormat.CAPTURE_FILE), TestCaptures.options(1 << 16), FUNCS)) {
            ThreadLog log = w.thread(7);
            long ts = 1000;
            long e0 = log.enter(0, 0, ts += 10, new long[] {0}, null);
            log.leave(e0, ts += 10, 0, null);
            // cublasSgemm_v2(handle, N, T, 37, 29, 41, ...) -> CUBLAS_STATUS_SUCCESS, with a nested cuLaunchKernel
            long[] sg = {0x5000, 0, 1, 37, 29, 41, 0x7ff0, 0xa000, 40, 0xb000, 45, 0x7ff4, 0xc000, 39};
            long e1 = log.enter(2, 0, ts += 10, sg, null);
            long e2 = log.enter(1, 1, ts += 10, new long[11], null);
            log.leave(e2, ts += 10, 0, null);
            log.leave(e1, ts += 10, 0, null);
            // a failing one: CUBLAS_STATUS_INVALID_VALUE (7)
            long e3 = log.enter(2, 0, ts += 10, sg, null);
            log.leave(e3, ts += 10, 7, null);
            // a value, not a status: result 0, the value in the item of parameter 0 (one past no parameters)
            long e4 = log.enter(3, 0, ts += 10, new long[0], null);
            DataItems items = new DataItems();
            byte[] v = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(13000).array();
            items.inline(0, v, 0, 8);
            log.leave(e4, ts += 10, 0, items);
            // an attribute: CUBLASLT_MATMUL_DESC_EPILOGUE (7), 4 bytes of buf: GELU_BIAS (36)
            DataItems in = new DataItems();
            byte[] buf = {36, 0, 0, 0};
            in.inline(2, buf, 0, 4);
            long e5 = log.enter(4, 0, ts += 10, new long[] {0x6000, 7, 0x7ff8, 4}, in);
            log.leave(e5, ts += 10, 0, null);
        }
        StringWriter sw = new StringWriter();
        try (Capture c = Capture.open(dir)) {
            Dump.dump(c, Dump.Options.all(), new PrintWriter(sw));
        }
        String dump = sw.toString();
        assertTrue(dump.contains("cublasSgemm_v2(handle: 0x5000, transa: CUBLAS_OP_N, transb: CUBLAS_OP_T, m: 37, n: 29, k: 41,"), dump);
        assertTrue(dump.contains("ldc: 39) -> CUBLAS_STATUS_SUCCESS\n  cuLaunchKernel("), dump);
        assertTrue(dump.contains("ldc: 39) -> CUBLAS_STATUS_INVALID_VALUE"), dump);
        assertTrue(dump.contains("cublasGetCudartVersion() -> 13000"), dump);
        assertTrue(dump.contains("cublasLtMatmulDescSetAttribute(matmulDesc: 0x6000, attr: CUBLASLT_MATMUL_DESC_EPILOGUE, buf: <4 bytes: 24 00 00 00>, sizeInBytes: 4) -> CUBLAS_STATUS_SUCCESS"), dump);

        StringWriter info = new StringWriter();
        try (Capture c = Capture.open(dir)) {
            CaptureInfo.of(c).print(c, new PrintWriter(info));
        }
        assertTrue(info.toString().contains("errors: CUBLAS_STATUS_INVALID_VALUE ×1"), info.toString());

        Path pq = tmp.resolve("pq");
        try (Capture c = Capture.open(dir)) {
            ParquetConverter.write(c, pq);
        }
        Map<String, String> api = new HashMap<>(), result = new HashMap<>();
        Map<Long, Long> parent = new HashMap<>();
        for (Group g : ParquetConvertTest.read(pq.resolve(ParquetConverter.CALLS))) {
            String fn = g.getString("function", 0);
            api.put(fn, g.getString("api", 0));
            if (g.getFieldRepetitionCount("result_name") > 0) result.merge(fn, g.getString("result_name", 0), (a, b) -> a + "," + b);
            if (fn.equals("cuLaunchKernel")) parent.put(g.getLong("seq", 0), g.getLong("parent_seq", 0));
        }
        assertEquals(Map.of("cuInit", "cuda", "cuLaunchKernel", "cuda", "cublasSgemm_v2", "cublas", "cublasGetCudartVersion", "cublas",
                "cublasLtMatmulDescSetAttribute", "cublasLt"), api);
        assertEquals("CUBLAS_STATUS_SUCCESS,CUBLAS_STATUS_INVALID_VALUE", result.get("cublasSgemm_v2"));
        assertEquals("", result.get("cublasGetCudartVersion"));
        assertEquals(1, parent.size(), "the launch has a parent: the cublasSgemm_v2 call");
    }
}

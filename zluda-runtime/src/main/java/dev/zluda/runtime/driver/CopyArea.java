package dev.zluda.runtime.driver;

import dev.zluda.spec.CudaRecord;

import static dev.zluda.runtime.driver.CuResult.*;
import static dev.zluda.runtime.driver.Native.getInt;
import static dev.zluda.runtime.driver.Native.getLong;

/**
 * Copies and memsets (CUDA Driver API group CUDA_MEM): every memcpy form on linear memory (1D, 2D, 3D, peer, async)
 * and every memset form. Device-side ranges are checked against the known allocations ({@link MemoryArea#find}): a
 * copy that would leave them returns CUDA_ERROR_INVALID_VALUE instead of touching memory; host pointers the program
 * passes are its own business, as with NVIDIA's driver. The bytes move through the backend ({@code Backend#copy},
 * {@code Backend#memset}). An async form first waits for the stream's earlier work ({@link StreamArea#streamDone}),
 * then copies: every operation has completed when its call returns, a valid schedule under the stream semantics.
 */
final class CopyArea {
    private final DriverState state;
    private final ContextArea contexts;
    private final MemoryArea memory;
    private final StreamArea streams;
    private final CudaRecord memcpy2d, memcpy3d;

    CopyArea(DriverState state, ContextArea contexts, MemoryArea memory, StreamArea streams) {
        this.state = state;
        this.contexts = contexts;
        this.memory = memory;
        this.streams = streams;
        memcpy2d = state.api.record("CUDA_MEMCPY2D").orElseThrow();
        memcpy3d = state.api.record("CUDA_MEMCPY3D").orElseThrow();
    }

    /** Copies bytes whose device-side ranges were checked, through the backend. */
    private int transfer(long dst, long src, long bytes) {
        return state.backend().copy(dst, memory.onDevice(dst, bytes), src, memory.onDevice(src, bytes), bytes);
    }

    // ---------------------------------------------------------------- copies

    /** Copies bytes after checking that each device-side range lies in one allocation. */
    private int copy(long dst, boolean dstDevice, long src, boolean srcDevice, long bytes) {
        int r = contexts.checkContext();
        if (r != SUCCESS) return r;
        if (bytes == 0) return SUCCESS;
        if (bytes < 0 || dst == 0 || src == 0) return INVALID_VALUE;
        if (dstDevice && memory.find(dst, bytes) == null) return INVALID_VALUE;
        if (srcDevice && memory.find(src, bytes) == null) return INVALID_VALUE;
        return transfer(dst, src, bytes);
    }

    public int cuMemcpyHtoD_v2(long dstDevice, long srcHost, long ByteCount) {
        return copy(dstDevice, true, srcHost, false, ByteCount);
    }

    public int cuMemcpyDtoH_v2(long dstHost, long srcDevice, long ByteCount) {
        return copy(dstHost, false, srcDevice, true, ByteCount);
    }

    public int cuMemcpyDtoD_v2(long dstDevice, long srcDevice, long ByteCount) {
        return copy(dstDevice, true, srcDevice, true, ByteCount);
    }

    public int cuMemcpy(long dst, long src, long ByteCount) {
        // unified addressing: either side may be host or device memory
        return copy(dst, memory.find(dst, 0) != null && ByteCount > 0, src, memory.find(src, 0) != null && ByteCount > 0, ByteCount);
    }

    public int cuMemcpyPeer(long dstDevice, long dstContext, long srcDevice, long srcContext, long ByteCount) {
        if (contexts.contexts.get(dstContext) == null || contexts.contexts.get(srcContext) == null) return INVALID_CONTEXT;
        return copy(dstDevice, true, srcDevice, true, ByteCount);
    }

    public int cuMemcpyHtoDAsync_v2(long dstDevice, long srcHost, long ByteCount, long hStream) {
        int s = streams.streamDone(hStream);
        return s != SUCCESS ? s : cuMemcpyHtoD_v2(dstDevice, srcHost, ByteCount);
    }

    public int cuMemcpyDtoHAsync_v2(long dstHost, long srcDevice, long ByteCount, long hStream) {
        int s = streams.streamDone(hStream);
        return s != SUCCESS ? s : cuMemcpyDtoH_v2(dstHost, srcDevice, ByteCount);
    }

    public int cuMemcpyDtoDAsync_v2(long dstDevice, long srcDevice, long ByteCount, long hStream) {
        int s = streams.streamDone(hStream);
        return s != SUCCESS ? s : cuMemcpyDtoD_v2(dstDevice, srcDevice, ByteCount);
    }

    public int cuMemcpyAsync(long dst, long src, long ByteCount, long hStream) {
        int s = streams.streamDone(hStream);
        return s != SUCCESS ? s : cuMemcpy(dst, src, ByteCount);
    }

    public int cuMemcpyPeerAsync(long dstDevice, long dstContext, long srcDevice, long srcContext, long ByteCount, long hStream) {
        int s = streams.streamDone(hStream);
        return s != SUCCESS ? s : cuMemcpyPeer(dstDevice, dstContext, srcDevice, srcContext, ByteCount);
    }

    /** A field of a CUDA_MEMCPY2D/3D descriptor, read at the offset the spec gives for x86-64. */
    private static long field(CudaRecord r, long base, String name) {
        for (CudaRecord.Field f : r.fields()) {
            if (f.name().equals(name)) return f.size() == 8 ? getLong(base + f.offset()) : getInt(base + f.offset()) & 0xFFFF_FFFFL;
        }
        throw new IllegalStateException(r.name() + " has no field " + name);
    }

    /** CUDA Driver API, cuMemcpy2D / cuMemcpy3D: copies Depth × Height rows of WidthInBytes bytes between pitched linear memory. */
    private int copy3d(CudaRecord r, long p, boolean is3d) {
        int rc = contexts.checkContext();
        if (rc != SUCCESS) return rc;
        if (p == 0) return INVALID_VALUE;
        long width = field(r, p, "WidthInBytes"), height = field(r, p, "Height"), depth = is3d ? field(r, p, "Depth") : 1;
        int srcType = (int) field(r, p, "srcMemoryType"), dstType = (int) field(r, p, "dstMemoryType");
        if (srcType == MemoryArea.MEMTYPE_ARRAY || dstType == MemoryArea.MEMTYPE_ARRAY) return NOT_SUPPORTED;
        long src = srcType == MemoryArea.MEMTYPE_HOST ? field(r, p, "srcHost") : field(r, p, "srcDevice");
        long dst = dstType == MemoryArea.MEMTYPE_HOST ? field(r, p, "dstHost") : field(r, p, "dstDevice");
        long srcPitch = field(r, p, "srcPitch"), dstPitch = field(r, p, "dstPitch");
        long srcHeight = is3d ? field(r, p, "srcHeight") : height, dstHeight = is3d ? field(r, p, "dstHeight") : height;
        long srcX = field(r, p, "srcXInBytes"), srcY = field(r, p, "srcY"), dstX = field(r, p, "dstXInBytes"), dstY = field(r, p, "dstY");
        long srcZ = is3d ? field(r, p, "srcZ") : 0, dstZ = is3d ? field(r, p, "dstZ") : 0;
        if (width == 0 || height == 0 || depth == 0) return SUCCESS;
        if (srcPitch < width && height > 1 || dstPitch < width && height > 1) return INVALID_VALUE;
        long srcFirst = src + srcX + srcPitch * (srcY + srcHeight * srcZ);
        long dstFirst = dst + dstX + dstPitch * (dstY + dstHeight * dstZ);
        long srcSpan = srcPitch * (srcHeight * (depth - 1) + height - 1) + width;
        long dstSpan = dstPitch * (dstHeight * (depth - 1) + height - 1) + width;
        boolean srcDevice = srcType == MemoryArea.MEMTYPE_DEVICE || srcType == MemoryArea.MEMTYPE_UNIFIED && memory.find(srcFirst, 0) != null;
        boolean dstDevice = dstType == MemoryArea.MEMTYPE_DEVICE || dstType == MemoryArea.MEMTYPE_UNIFIED && memory.find(dstFirst, 0) != null;
        if (srcDevice && memory.find(srcFirst, srcSpan) == null) return INVALID_VALUE;
        if (dstDevice && memory.find(dstFirst, dstSpan) == null) return INVALID_VALUE;
        for (long z = 0; z < depth; z++) {
            for (long y = 0; y < height; y++) {
                long s = srcFirst + srcPitch * (y + srcHeight * z), d = dstFirst + dstPitch * (y + dstHeight * z);
                int e = transfer(d, s, width);
                if (e != SUCCESS) return e;
            }
        }
        return SUCCESS;
    }

    public int cuMemcpy2D_v2(long pCopy) { return copy3d(memcpy2d, pCopy, false); }
    public int cuMemcpy3D_v2(long pCopy) { return copy3d(memcpy3d, pCopy, true); }

    public int cuMemcpy2DAsync_v2(long pCopy, long hStream) {
        int s = streams.streamDone(hStream);
        return s != SUCCESS ? s : cuMemcpy2D_v2(pCopy);
    }

    public int cuMemcpy3DAsync_v2(long pCopy, long hStream) {
        int s = streams.streamDone(hStream);
        return s != SUCCESS ? s : cuMemcpy3D_v2(pCopy);
    }

    // ---------------------------------------------------------------- memset

    /** CUDA Driver API, cuMemsetD2D8/16/32: Height rows of Width elements of elementSize bytes, rows dstPitch apart. */
    private int memset(long dst, long pitch, long value, long width, long height, int elementSize) {
        int r = contexts.checkContext();
        if (r != SUCCESS) return r;
        if (width == 0 || height == 0) return SUCCESS;
        if (dst % elementSize != 0 || (height > 1 && (pitch < width * elementSize || pitch % elementSize != 0))) return INVALID_VALUE;
        long rowBytes = width * elementSize;
        long span = pitch * (height - 1) + rowBytes;
        if (memory.find(dst, span) == null) return INVALID_VALUE;
        return state.backend().memset(dst, pitch, value, width, height, elementSize, memory.onDevice(dst, span));
    }

    public int cuMemsetD8_v2(long dstDevice, int uc, long N) { return memset(dstDevice, N, uc, N, 1, 1); }
    public int cuMemsetD16_v2(long dstDevice, int us, long N) { return memset(dstDevice, 2 * N, us, N, 1, 2); }
    public int cuMemsetD32_v2(long dstDevice, int ui, long N) { return memset(dstDevice, 4 * N, ui, N, 1, 4); }
    public int cuMemsetD2D8_v2(long dstDevice, long dstPitch, int uc, long Width, long Height) { return memset(dstDevice, dstPitch, uc, Width, Height, 1); }
    public int cuMemsetD2D16_v2(long dstDevice, long dstPitch, int us, long Width, long Height) { return memset(dstDevice, dstPitch, us, Width, Height, 2); }
    public int cuMemsetD2D32_v2(long dstDevice, long dstPitch, int ui, long Width, long Height) { return memset(dstDevice, dstPitch, ui, Width, Height, 4); }

    private int memsetAsync(long hStream, java.util.function.IntSupplier op) {
        int s = streams.streamDone(hStream);
        return s != SUCCESS ? s : op.getAsInt();
    }

    public int cuMemsetD8Async(long d, int v, long n, long st) { return memsetAsync(st, () -> cuMemsetD8_v2(d, v, n)); }
    public int cuMemsetD16Async(long d, int v, long n, long st) { return memsetAsync(st, () -> cuMemsetD16_v2(d, v, n)); }
    public int cuMemsetD32Async(long d, int v, long n, long st) { return memsetAsync(st, () -> cuMemsetD32_v2(d, v, n)); }
    public int cuMemsetD2D8Async(long d, long p, int v, long w, long h, long st) { return memsetAsync(st, () -> cuMemsetD2D8_v2(d, p, v, w, h)); }
    public int cuMemsetD2D16Async(long d, long p, int v, long w, long h, long st) { return memsetAsync(st, () -> cuMemsetD2D16_v2(d, p, v, w, h)); }
    public int cuMemsetD2D32Async(long d, long p, int v, long w, long h, long st) { return memsetAsync(st, () -> cuMemsetD2D32_v2(d, p, v, w, h)); }

}

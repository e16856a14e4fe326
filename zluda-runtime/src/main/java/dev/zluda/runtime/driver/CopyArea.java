package dev.zluda.runtime.driver;

import dev.zluda.image.UserMemory;
import dev.zluda.runtime.api.CudaStructs.CUDA_MEMCPY2D;
import dev.zluda.runtime.api.CudaStructs.CUDA_MEMCPY3D;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static dev.zluda.runtime.driver.CuResult.*;
import static dev.zluda.runtime.driver.Native.getInt;
import static dev.zluda.runtime.driver.Native.at;
import static dev.zluda.runtime.driver.Native.getLong;
import static dev.zluda.runtime.driver.Native.putInt;
import static dev.zluda.runtime.driver.Native.putLong;

/**
 * Copies and memsets (CUDA Driver API group CUDA_MEM): every memcpy form on linear memory (1D, 2D, 3D, peer, async)
 * and to, from and between CUDA arrays ({@link ArrayArea}: rows of packed elements, whose sides a 2D or 3D copy
 * rewrites as pitched device memory), and every memset form. Device-side ranges are checked against the known allocations ({@link MemoryArea#find}): a
 * copy that would leave them returns CUDA_ERROR_INVALID_VALUE instead of touching memory. Host ranges the program
 * passes are probed ({@link UserMemory#readable}): one that is not mapped is CUDA_ERROR_INVALID_VALUE where NVIDIA's
 * driver faults (docs/support.md, "Driver API misuse"); one that is mapped but not writable still faults, as there.
 * Sizes are size_t: a range whose end does not fit in 64 bits is CUDA_ERROR_INVALID_VALUE, never wrapped around.
 * The bytes move through the backend ({@code Backend#copy},
 * {@code Backend#memset}). An async form first waits for the stream's earlier work ({@link StreamArea#streamDone}),
 * then copies: every operation has completed when its call returns, a valid schedule under the stream semantics.
 */
final class CopyArea {
    private final DriverState state;
    private final MemoryArea memory;
    private final StreamArea streams;
    private final ArrayArea arrays;

    private final StreamCapture capture;

    CopyArea(DriverState state, MemoryArea memory, StreamArea streams, ArrayArea arrays, StreamCapture capture) {
        this.state = state;
        this.capture = capture;
        this.memory = memory;
        this.streams = streams;
        this.arrays = arrays;
    }

    /** Copies bytes whose device-side ranges were checked, through the backend. */
    private int transfer(long dst, long src, long bytes) {
        return state.backend().copy(dst, memory.onDevice(dst, bytes), src, memory.onDevice(src, bytes), bytes);
    }

    // ---------------------------------------------------------------- copies

    /** Copies bytes after checking that each device-side range lies in one allocation and each host range is mapped. */
    private int copy(long dst, boolean dstDevice, long src, boolean srcDevice, long bytes) {
        int r = state.checkContext();
        if (r != SUCCESS) return r;
        if (bytes == 0) return SUCCESS;
        if (bytes < 0 || dst == 0 || src == 0) return INVALID_VALUE;
        if (dstDevice ? memory.find(dst, bytes) == null : !UserMemory.readable(dst, bytes)) return INVALID_VALUE;
        if (srcDevice ? memory.find(src, bytes) == null : !UserMemory.readable(src, bytes)) return INVALID_VALUE;
        return transfer(dst, src, bytes);
    }

    /** {@code a * b + c} for size_t operands, or -1 when it does not fit in 63 bits (or an operand is above 2^63). */
    static long mulAdd(long a, long b, long c) {
        if (a < 0 || b < 0 || c < 0) return -1;
        try {
            return Math.addExact(Math.multiplyExact(a, b), c);
        } catch (ArithmeticException e) {
            return -1;
        }
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
        if (state.contexts.get(dstContext) == null || state.contexts.get(srcContext) == null) return INVALID_CONTEXT;
        return copy(dstDevice, true, srcDevice, true, ByteCount);
    }

    public int cuMemcpyHtoDAsync_v2(long dstDevice, long srcHost, long ByteCount, long hStream) {
        if (capturing(hStream)) return captured(hStream, MemoryArea.MEMTYPE_DEVICE, dstDevice, 0, MemoryArea.MEMTYPE_HOST, srcHost, 0, ByteCount);
        return afterStream(hStream, () -> cuMemcpyHtoD_v2(dstDevice, srcHost, ByteCount));
    }

    public int cuMemcpyDtoHAsync_v2(long dstHost, long srcDevice, long ByteCount, long hStream) {
        if (capturing(hStream)) return captured(hStream, MemoryArea.MEMTYPE_HOST, dstHost, 0, MemoryArea.MEMTYPE_DEVICE, srcDevice, 0, ByteCount);
        return afterStream(hStream, () -> cuMemcpyDtoH_v2(dstHost, srcDevice, ByteCount));
    }

    public int cuMemcpyDtoDAsync_v2(long dstDevice, long srcDevice, long ByteCount, long hStream) {
        if (capturing(hStream)) return captured(hStream, MemoryArea.MEMTYPE_DEVICE, dstDevice, 0, MemoryArea.MEMTYPE_DEVICE, srcDevice, 0, ByteCount);
        return afterStream(hStream, () -> cuMemcpyDtoD_v2(dstDevice, srcDevice, ByteCount));
    }

    public int cuMemcpyAsync(long dst, long src, long ByteCount, long hStream) {
        if (capturing(hStream)) return captured(hStream, MemoryArea.MEMTYPE_UNIFIED, dst, 0, MemoryArea.MEMTYPE_UNIFIED, src, 0, ByteCount);
        return afterStream(hStream, () -> cuMemcpy(dst, src, ByteCount));
    }

    public int cuMemcpyPeerAsync(long dstDevice, long dstContext, long srcDevice, long srcContext, long ByteCount, long hStream) {
        if (capturing(hStream)) return captured(hStream, MemoryArea.MEMTYPE_DEVICE, dstDevice, 0, MemoryArea.MEMTYPE_DEVICE, srcDevice, 0, ByteCount);
        return afterStream(hStream, () -> cuMemcpyPeer(dstDevice, dstContext, srcDevice, srcContext, ByteCount));
    }

    /**
     * What a copy of pitched linear memory reads from a CUDA_MEMCPY2D or CUDA_MEMCPY3D (a 2D copy is one slice:
     * depth 1, z 0, slice heights the copy's height).
     */
    private record Descriptor(long width, long height, long depth, int srcType, int dstType, long src, long dst, long srcPitch, long dstPitch,
                              long srcHeight, long dstHeight, long srcX, long srcY, long srcZ, long dstX, long dstY, long dstZ) {
        static Descriptor of(long p, boolean is3d) {
            if (is3d) {
                int st = CUDA_MEMCPY3D.srcMemoryType(p), dt = CUDA_MEMCPY3D.dstMemoryType(p);
                return new Descriptor(CUDA_MEMCPY3D.WidthInBytes(p), CUDA_MEMCPY3D.Height(p), CUDA_MEMCPY3D.Depth(p), st, dt,
                        st == MemoryArea.MEMTYPE_HOST ? CUDA_MEMCPY3D.srcHost(p) : CUDA_MEMCPY3D.srcDevice(p),
                        dt == MemoryArea.MEMTYPE_HOST ? CUDA_MEMCPY3D.dstHost(p) : CUDA_MEMCPY3D.dstDevice(p),
                        CUDA_MEMCPY3D.srcPitch(p), CUDA_MEMCPY3D.dstPitch(p), CUDA_MEMCPY3D.srcHeight(p), CUDA_MEMCPY3D.dstHeight(p),
                        CUDA_MEMCPY3D.srcXInBytes(p), CUDA_MEMCPY3D.srcY(p), CUDA_MEMCPY3D.srcZ(p),
                        CUDA_MEMCPY3D.dstXInBytes(p), CUDA_MEMCPY3D.dstY(p), CUDA_MEMCPY3D.dstZ(p));
            }
            int st = CUDA_MEMCPY2D.srcMemoryType(p), dt = CUDA_MEMCPY2D.dstMemoryType(p);
            long height = CUDA_MEMCPY2D.Height(p);
            return new Descriptor(CUDA_MEMCPY2D.WidthInBytes(p), height, 1, st, dt,
                    st == MemoryArea.MEMTYPE_HOST ? CUDA_MEMCPY2D.srcHost(p) : CUDA_MEMCPY2D.srcDevice(p),
                    dt == MemoryArea.MEMTYPE_HOST ? CUDA_MEMCPY2D.dstHost(p) : CUDA_MEMCPY2D.dstDevice(p),
                    CUDA_MEMCPY2D.srcPitch(p), CUDA_MEMCPY2D.dstPitch(p), height, height,
                    CUDA_MEMCPY2D.srcXInBytes(p), CUDA_MEMCPY2D.srcY(p), 0, CUDA_MEMCPY2D.dstXInBytes(p), CUDA_MEMCPY2D.dstY(p), 0);
        }
    }

    /** CUDA Driver API, cuMemcpy2D / cuMemcpy3D: copies Depth × Height rows of WidthInBytes bytes between pitched linear memory. */
    private int copy3d(long p, boolean is3d) {
        int rc = state.checkContext();
        if (rc != SUCCESS) return rc;
        if (p == 0) return INVALID_VALUE;
        Descriptor c = Descriptor.of(p, is3d);
        long width = c.width, height = c.height, depth = c.depth;
        int srcType = c.srcType, dstType = c.dstType;
        if (srcType == MemoryArea.MEMTYPE_ARRAY || dstType == MemoryArea.MEMTYPE_ARRAY) return NOT_SUPPORTED;
        long src = c.src, dst = c.dst;
        long srcPitch = c.srcPitch, dstPitch = c.dstPitch;
        long srcHeight = c.srcHeight, dstHeight = c.dstHeight;
        long srcX = c.srcX, srcY = c.srcY, dstX = c.dstX, dstY = c.dstY;
        long srcZ = c.srcZ, dstZ = c.dstZ;
        if (width == 0 || height == 0 || depth == 0) return SUCCESS;
        if (width < 0 || height < 0 || depth < 0) return INVALID_VALUE; // above 2^63
        if (Long.compareUnsigned(srcPitch, width) < 0 && height > 1 || Long.compareUnsigned(dstPitch, width) < 0 && height > 1) return INVALID_VALUE;
        // first byte and span of each side, in exact arithmetic: a pitch that would wrap around is refused
        // (NVIDIA's driver lets it wrap and answers SUCCESS: samples/traces/h200/misuse, huge_memcpy2d_pitch)
        long srcRows = mulAdd(srcHeight, srcZ, srcY), dstRows = mulAdd(dstHeight, dstZ, dstY);
        long srcOffset = srcRows < 0 ? -1 : mulAdd(srcPitch, srcRows, srcX), dstOffset = dstRows < 0 ? -1 : mulAdd(dstPitch, dstRows, dstX);
        long srcLast = mulAdd(srcHeight, depth - 1, height - 1), dstLast = mulAdd(dstHeight, depth - 1, height - 1);
        long srcSpan = srcLast < 0 ? -1 : mulAdd(srcPitch, srcLast, width), dstSpan = dstLast < 0 ? -1 : mulAdd(dstPitch, dstLast, width);
        if (srcOffset < 0 || dstOffset < 0 || srcSpan < 0 || dstSpan < 0) return INVALID_VALUE;
        long srcFirst = src + srcOffset, dstFirst = dst + dstOffset;
        if (src < 0 || dst < 0 || srcFirst < 0 || dstFirst < 0 || srcFirst + srcSpan < 0 || dstFirst + dstSpan < 0) return INVALID_VALUE;
        boolean srcDevice = srcType == MemoryArea.MEMTYPE_DEVICE || srcType == MemoryArea.MEMTYPE_UNIFIED && memory.find(srcFirst, 0) != null;
        boolean dstDevice = dstType == MemoryArea.MEMTYPE_DEVICE || dstType == MemoryArea.MEMTYPE_UNIFIED && memory.find(dstFirst, 0) != null;
        if (srcDevice && memory.find(srcFirst, srcSpan) == null) return INVALID_VALUE;
        if (dstDevice && memory.find(dstFirst, dstSpan) == null) return INVALID_VALUE;
        // host rows are probed before the first byte moves
        if (!srcDevice || !dstDevice) {
            for (long z = 0; z < depth; z++) {
                for (long y = 0; y < height; y++) {
                    if (!srcDevice && !UserMemory.readable(srcFirst + srcPitch * (y + srcHeight * z), width)) return INVALID_VALUE;
                    if (!dstDevice && !UserMemory.readable(dstFirst + dstPitch * (y + dstHeight * z), width)) return INVALID_VALUE;
                }
            }
        }
        for (long z = 0; z < depth; z++) {
            for (long y = 0; y < height; y++) {
                long s = srcFirst + srcPitch * (y + srcHeight * z), d = dstFirst + dstPitch * (y + dstHeight * z);
                int e = transfer(d, s, width);
                if (e != SUCCESS) return e;
            }
        }
        return SUCCESS;
    }

    public int cuMemcpy2DAsync_v2(long pCopy, long hStream) {
        if (capturing(hStream)) return pCopy == 0 ? INVALID_VALUE : capture.add(hStream, new Graph.Memcpy(as3d(pCopy), 0));
        return afterStream(hStream, () -> cuMemcpy2D_v2(pCopy));
    }

    public int cuMemcpy3DAsync_v2(long pCopy, long hStream) {
        if (capturing(hStream)) return pCopy == 0 ? INVALID_VALUE : capture.add(hStream, new Graph.Memcpy(at(pCopy, CUDA_MEMCPY3D.SIZE).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE), 0));
        return afterStream(hStream, () -> cuMemcpy3D_v2(pCopy));
    }

    /** cuMemcpy2D_v2, also to and from CUDA arrays (their rows as pitched device memory). */
    public int cuMemcpy2D_v2(long pCopy) {
        if (pCopy != 0 && !UserMemory.readable(pCopy, CUDA_MEMCPY2D.SIZE)) return state.initialized ? INVALID_VALUE : NOT_INITIALIZED;
        try (Arena a = Arena.ofConfined()) {
            long c = arraysAsDevice(pCopy, false, a);
            return c == 0 && pCopy != 0 ? INVALID_VALUE : copy3d(c, false);
        }
    }

    /** cuMemcpy3D_v2, also to and from CUDA arrays (their slices as pitched device memory). */
    public int cuMemcpy3D_v2(long pCopy) {
        if (pCopy != 0 && !UserMemory.readable(pCopy, CUDA_MEMCPY3D.SIZE)) return state.initialized ? INVALID_VALUE : NOT_INITIALIZED;
        try (Arena a = Arena.ofConfined()) {
            long c = arraysAsDevice(pCopy, true, a);
            return c == 0 && pCopy != 0 ? INVALID_VALUE : copy3d(c, true);
        }
    }

    // ---------------------------------------------------------------- CUDA arrays

    /** The device address of [offset, offset+bytes) of an array (row-major bytes), or 0 when it is not inside. */
    private static long inside(ArrayArea.CuArray a, long offset, long bytes) {
        return a == null || offset < 0 || bytes < 0 || offset + bytes > a.bytes() ? 0 : a.base() + offset;
    }

    /**
     * A copy between one array and linear memory: the array's bytes [offset, offset+bytes) as device memory, handed to
     * {@code copy}; CUDA_ERROR_INVALID_HANDLE for an unknown array, CUDA_ERROR_INVALID_VALUE for a range outside it.
     */
    private int arrayCopy(long hArray, long offset, long bytes, java.util.function.LongUnaryOperator copy) {
        ArrayArea.CuArray a = arrays.array(hArray);
        if (a == null) return state.initialized ? INVALID_HANDLE : NOT_INITIALIZED;
        long at = inside(a, offset, bytes);
        return at == 0 ? INVALID_VALUE : (int) copy.applyAsLong(at);
    }

    /** cuMemcpyHtoA_v2: bytes from host memory to the array at a byte offset (row-major); outside the array: CUDA_ERROR_INVALID_VALUE. */
    public int cuMemcpyHtoA_v2(long dstArray, long dstOffset, long srcHost, long ByteCount) {
        return arrayCopy(dstArray, dstOffset, ByteCount, d -> cuMemcpyHtoD_v2(d, srcHost, ByteCount));
    }

    /** cuMemcpyAtoH_v2: bytes from the array at a byte offset to host memory. */
    public int cuMemcpyAtoH_v2(long dstHost, long srcArray, long srcOffset, long ByteCount) {
        return arrayCopy(srcArray, srcOffset, ByteCount, s -> cuMemcpyDtoH_v2(dstHost, s, ByteCount));
    }

    /** cuMemcpyDtoA_v2: bytes from device memory to the array at a byte offset. */
    public int cuMemcpyDtoA_v2(long dstArray, long dstOffset, long srcDevice, long ByteCount) {
        return arrayCopy(dstArray, dstOffset, ByteCount, d -> cuMemcpyDtoD_v2(d, srcDevice, ByteCount));
    }

    /** cuMemcpyAtoD_v2: bytes from the array at a byte offset to device memory. */
    public int cuMemcpyAtoD_v2(long dstDevice, long srcArray, long srcOffset, long ByteCount) {
        return arrayCopy(srcArray, srcOffset, ByteCount, s -> cuMemcpyDtoD_v2(dstDevice, s, ByteCount));
    }

    /** cuMemcpyAtoA_v2: bytes between two arrays at byte offsets. */
    public int cuMemcpyAtoA_v2(long dstArray, long dstOffset, long srcArray, long srcOffset, long ByteCount) {
        ArrayArea.CuArray da = arrays.array(dstArray), sa = arrays.array(srcArray);
        if (da == null || sa == null) return state.initialized ? INVALID_HANDLE : NOT_INITIALIZED;
        long d = inside(da, dstOffset, ByteCount), s = inside(sa, srcOffset, ByteCount);
        return d == 0 || s == 0 ? INVALID_VALUE : cuMemcpyDtoD_v2(d, s, ByteCount);
    }

    /** cuMemcpyHtoAAsync_v2: as cuMemcpyHtoA_v2, on a stream. */
    public int cuMemcpyHtoAAsync_v2(long dstArray, long dstOffset, long srcHost, long ByteCount, long hStream) {
        if (capturing(hStream)) return captured(hStream, MemoryArea.MEMTYPE_ARRAY, dstArray, dstOffset, MemoryArea.MEMTYPE_HOST, srcHost, 0, ByteCount);
        return afterStream(hStream, () -> cuMemcpyHtoA_v2(dstArray, dstOffset, srcHost, ByteCount));
    }

    /** cuMemcpyAtoHAsync_v2: as cuMemcpyAtoH_v2, on a stream. */
    public int cuMemcpyAtoHAsync_v2(long dstHost, long srcArray, long srcOffset, long ByteCount, long hStream) {
        if (capturing(hStream)) return captured(hStream, MemoryArea.MEMTYPE_HOST, dstHost, 0, MemoryArea.MEMTYPE_ARRAY, srcArray, srcOffset, ByteCount);
        return afterStream(hStream, () -> cuMemcpyAtoH_v2(dstHost, srcArray, srcOffset, ByteCount));
    }

    /** The CUDA 3.1 forms with 32-bit offsets and sizes. */
    public int cuMemcpyHtoA(long a, int o, long h, int n) { return cuMemcpyHtoA_v2(a, o & 0xFFFF_FFFFL, h, n & 0xFFFF_FFFFL); }
    public int cuMemcpyAtoH(long h, long a, int o, int n) { return cuMemcpyAtoH_v2(h, a, o & 0xFFFF_FFFFL, n & 0xFFFF_FFFFL); }
    public int cuMemcpyAtoA(long da, int dof, long sa, int sof, int n) { return cuMemcpyAtoA_v2(da, dof & 0xFFFF_FFFFL, sa, sof & 0xFFFF_FFFFL, n & 0xFFFF_FFFFL); }
    public int cuMemcpyHtoAAsync(long a, int o, long h, int n, long s) { return cuMemcpyHtoAAsync_v2(a, o & 0xFFFF_FFFFL, h, n & 0xFFFF_FFFFL, s); }
    public int cuMemcpyAtoHAsync(long h, long a, int o, int n, long s) { return cuMemcpyAtoHAsync_v2(h, a, o & 0xFFFF_FFFFL, n & 0xFFFF_FFFFL, s); }

    /**
     * A CUDA_MEMCPY2D/3D descriptor whose array sides are rewritten as device memory (the array's
     * base, its row pitch and, for 3D, its height), for {@link #copy3d}, which copies between
     * pitched linear memory; {@code p} itself when no side is an array; 0 for an unknown array.
     */
    private long arraysAsDevice(long p, boolean is3d, Arena arena) {
        if (p == 0) return p;
        Side src = is3d ? SRC_3D : SRC_2D, dst = is3d ? DST_3D : DST_2D;
        int st = getInt(p + src.type), dt = getInt(p + dst.type);
        if (st != MemoryArea.MEMTYPE_ARRAY && dt != MemoryArea.MEMTYPE_ARRAY) return p;
        int size = is3d ? CUDA_MEMCPY3D.SIZE : CUDA_MEMCPY2D.SIZE;
        MemorySegment copy = arena.allocate(size, 8);
        MemorySegment.copy(at(p, size), 0, copy, 0, size);
        long c = copy.address();
        if (st == MemoryArea.MEMTYPE_ARRAY && !arrayAsDevice(p, c, src)) return 0;
        if (dt == MemoryArea.MEMTYPE_ARRAY && !arrayAsDevice(p, c, dst)) return 0;
        return c;
    }

    /**
     * The members of one side (source or destination) of a CUDA_MEMCPY2D/3D, by offset (the generated views'); a
     * 2D copy has no slice height ({@code height} -1).
     */
    private record Side(int type, int array, int device, int pitch, int height) {}

    private static final Side SRC_2D = new Side(CUDA_MEMCPY2D.OFF_srcMemoryType, CUDA_MEMCPY2D.OFF_srcArray, CUDA_MEMCPY2D.OFF_srcDevice,
            CUDA_MEMCPY2D.OFF_srcPitch, -1);
    private static final Side DST_2D = new Side(CUDA_MEMCPY2D.OFF_dstMemoryType, CUDA_MEMCPY2D.OFF_dstArray, CUDA_MEMCPY2D.OFF_dstDevice,
            CUDA_MEMCPY2D.OFF_dstPitch, -1);
    private static final Side SRC_3D = new Side(CUDA_MEMCPY3D.OFF_srcMemoryType, CUDA_MEMCPY3D.OFF_srcArray, CUDA_MEMCPY3D.OFF_srcDevice,
            CUDA_MEMCPY3D.OFF_srcPitch, CUDA_MEMCPY3D.OFF_srcHeight);
    private static final Side DST_3D = new Side(CUDA_MEMCPY3D.OFF_dstMemoryType, CUDA_MEMCPY3D.OFF_dstArray, CUDA_MEMCPY3D.OFF_dstDevice,
            CUDA_MEMCPY3D.OFF_dstPitch, CUDA_MEMCPY3D.OFF_dstHeight);

    /** Rewrites side {@code s} of the copy {@code c} of descriptor {@code p} as the array's device memory; false for an unknown array. */
    private boolean arrayAsDevice(long p, long c, Side s) {
        ArrayArea.CuArray a = arrays.array(getLong(p + s.array));
        if (a == null) return false;
        putInt(c + s.type, MemoryArea.MEMTYPE_DEVICE);
        putLong(c + s.device, a.base());
        putLong(c + s.pitch, a.rowBytes());
        if (s.height >= 0) putLong(c + s.height, Math.max(1, a.height()));
        return true;
    }

    // ---------------------------------------------------------------- memset

    /** CUDA Driver API, cuMemsetD2D8/16/32: Height rows of Width elements of elementSize bytes, rows dstPitch apart. */
    private int memset(long dst, long pitch, long value, long width, long height, int elementSize) {
        int r = state.checkContext();
        if (r != SUCCESS) return r;
        if (width == 0 || height == 0) return SUCCESS;
        // size_t sizes in exact arithmetic: NVIDIA's driver lets 4·N wrap around and answers SUCCESS
        // (samples/traces/h200/misuse, huge_memset_d32); zluda refuses a range it cannot hold (docs/support.md)
        long rowBytes = mulAdd(width, elementSize, 0);
        if (rowBytes < 0 || height < 0) return INVALID_VALUE;
        if (dst % elementSize != 0 || (height > 1 && (Long.compareUnsigned(pitch, rowBytes) < 0 || pitch % elementSize != 0))) return INVALID_VALUE;
        long span = height == 1 ? rowBytes : mulAdd(pitch, height - 1, rowBytes);
        if (span < 0 || memory.find(dst, span) == null) return INVALID_VALUE;
        return state.backend().memset(dst, pitch, value, width, height, elementSize, memory.onDevice(dst, span));
    }

    public int cuMemsetD8_v2(long dstDevice, int uc, long N) { return memset(dstDevice, N, uc, N, 1, 1); }
    public int cuMemsetD16_v2(long dstDevice, int us, long N) { return memset(dstDevice, 2 * N, us, N, 1, 2); }
    public int cuMemsetD32_v2(long dstDevice, int ui, long N) { return memset(dstDevice, 4 * N, ui, N, 1, 4); }
    public int cuMemsetD2D8_v2(long dstDevice, long dstPitch, int uc, long Width, long Height) { return memset(dstDevice, dstPitch, uc, Width, Height, 1); }
    public int cuMemsetD2D16_v2(long dstDevice, long dstPitch, int us, long Width, long Height) { return memset(dstDevice, dstPitch, us, Width, Height, 2); }
    public int cuMemsetD2D32_v2(long dstDevice, long dstPitch, int ui, long Width, long Height) { return memset(dstDevice, dstPitch, ui, Width, Height, 4); }

    /**
     * An async copy or memset: checks the stream and waits for its earlier work ({@link StreamArea#streamDone}), then
     * does the operation at once, ordered after it.
     */
    private int afterStream(long hStream, java.util.function.IntSupplier op) {
        int s = streams.streamDone(hStream);
        return s != SUCCESS ? s : op.getAsInt();
    }

    public int cuMemsetD8Async(long d, int v, long n, long st) { return memsetAsync(st, d, n, v, n, 1, 1, () -> cuMemsetD8_v2(d, v, n)); }
    public int cuMemsetD16Async(long d, int v, long n, long st) { return memsetAsync(st, d, 2 * n, v, n, 1, 2, () -> cuMemsetD16_v2(d, v, n)); }
    public int cuMemsetD32Async(long d, int v, long n, long st) { return memsetAsync(st, d, 4 * n, v, n, 1, 4, () -> cuMemsetD32_v2(d, v, n)); }
    public int cuMemsetD2D8Async(long d, long p, int v, long w, long h, long st) { return memsetAsync(st, d, p, v, w, h, 1, () -> cuMemsetD2D8_v2(d, p, v, w, h)); }
    public int cuMemsetD2D16Async(long d, long p, int v, long w, long h, long st) { return memsetAsync(st, d, p, v, w, h, 2, () -> cuMemsetD2D16_v2(d, p, v, w, h)); }
    public int cuMemsetD2D32Async(long d, long p, int v, long w, long h, long st) { return memsetAsync(st, d, p, v, w, h, 4, () -> cuMemsetD2D32_v2(d, p, v, w, h)); }

    /** An async memset: on a capturing stream a memset node of the capture's graph, else done after the stream's earlier work. */
    private int memsetAsync(long hStream, long dst, long pitch, int value, long width, long height, int elementSize, java.util.function.IntSupplier op) {
        if (capturing(hStream)) {
            int mask = elementSize == 4 ? -1 : (1 << (8 * elementSize)) - 1;
            return capture.add(hStream, new Graph.Memset(dst, pitch, value & mask, elementSize, width, height, 0));
        }
        return afterStream(hStream, op);
    }

    // ---------------------------------------------------------------- stream capture and graph nodes

    /** Whether the (valid) stream captures; a bad stream is left to the operation's own check. */
    private boolean capturing(long hStream) {
        return streams.checkStream(hStream) == SUCCESS && capture.capturing(hStream);
    }

    /**
     * A 1D copy enqueued on a capturing stream, as a memcpy node whose CUDA_MEMCPY3D copies {@code bytes} bytes from
     * one side to the other (a CUDA array side at a byte offset).
     */
    private int captured(long hStream, int dstType, long dst, long dstOffset, int srcType, long src, long srcOffset, long bytes) {
        if (bytes < 0 || (bytes > 0 && (dst == 0 || src == 0))) return INVALID_VALUE;
        try (Arena a = Arena.ofConfined()) {
            long c = a.allocate(CUDA_MEMCPY3D.SIZE, 8).address();
            side(c, true, dstType, dst, dstOffset, bytes);
            side(c, false, srcType, src, srcOffset, bytes);
            CUDA_MEMCPY3D.WidthInBytes(c, bytes);
            CUDA_MEMCPY3D.Height(c, 1);
            CUDA_MEMCPY3D.Depth(c, 1);
            return capture.add(hStream, new Graph.Memcpy(at(c, CUDA_MEMCPY3D.SIZE).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE), 0));
        }
    }

    private static void side(long c, boolean dst, int type, long p, long offset, long bytes) {
        if (dst) {
            CUDA_MEMCPY3D.dstMemoryType(c, type);
            switch (type) {
                case MemoryArea.MEMTYPE_HOST -> CUDA_MEMCPY3D.dstHost(c, p);
                case MemoryArea.MEMTYPE_ARRAY -> CUDA_MEMCPY3D.dstArray(c, p);
                default -> CUDA_MEMCPY3D.dstDevice(c, p);
            }
            CUDA_MEMCPY3D.dstXInBytes(c, offset);
            CUDA_MEMCPY3D.dstPitch(c, bytes);
            CUDA_MEMCPY3D.dstHeight(c, 1);
        } else {
            CUDA_MEMCPY3D.srcMemoryType(c, type);
            switch (type) {
                case MemoryArea.MEMTYPE_HOST -> CUDA_MEMCPY3D.srcHost(c, p);
                case MemoryArea.MEMTYPE_ARRAY -> CUDA_MEMCPY3D.srcArray(c, p);
                default -> CUDA_MEMCPY3D.srcDevice(c, p);
            }
            CUDA_MEMCPY3D.srcXInBytes(c, offset);
            CUDA_MEMCPY3D.srcPitch(c, bytes);
            CUDA_MEMCPY3D.srcHeight(c, 1);
        }
    }

    /** A CUDA_MEMCPY2D as the CUDA_MEMCPY3D of one slice (its bytes). */
    static byte[] as3d(long p2d) {
        try (Arena a = Arena.ofConfined()) {
            long c = a.allocate(CUDA_MEMCPY3D.SIZE, 8).address();
            CUDA_MEMCPY3D.srcXInBytes(c, CUDA_MEMCPY2D.srcXInBytes(p2d));
            CUDA_MEMCPY3D.srcY(c, CUDA_MEMCPY2D.srcY(p2d));
            CUDA_MEMCPY3D.srcMemoryType(c, CUDA_MEMCPY2D.srcMemoryType(p2d));
            CUDA_MEMCPY3D.srcHost(c, CUDA_MEMCPY2D.srcHost(p2d));
            CUDA_MEMCPY3D.srcDevice(c, CUDA_MEMCPY2D.srcDevice(p2d));
            CUDA_MEMCPY3D.srcArray(c, CUDA_MEMCPY2D.srcArray(p2d));
            CUDA_MEMCPY3D.srcPitch(c, CUDA_MEMCPY2D.srcPitch(p2d));
            CUDA_MEMCPY3D.srcHeight(c, CUDA_MEMCPY2D.Height(p2d));
            CUDA_MEMCPY3D.dstXInBytes(c, CUDA_MEMCPY2D.dstXInBytes(p2d));
            CUDA_MEMCPY3D.dstY(c, CUDA_MEMCPY2D.dstY(p2d));
            CUDA_MEMCPY3D.dstMemoryType(c, CUDA_MEMCPY2D.dstMemoryType(p2d));
            CUDA_MEMCPY3D.dstHost(c, CUDA_MEMCPY2D.dstHost(p2d));
            CUDA_MEMCPY3D.dstDevice(c, CUDA_MEMCPY2D.dstDevice(p2d));
            CUDA_MEMCPY3D.dstArray(c, CUDA_MEMCPY2D.dstArray(p2d));
            CUDA_MEMCPY3D.dstPitch(c, CUDA_MEMCPY2D.dstPitch(p2d));
            CUDA_MEMCPY3D.dstHeight(c, CUDA_MEMCPY2D.Height(p2d));
            CUDA_MEMCPY3D.WidthInBytes(c, CUDA_MEMCPY2D.WidthInBytes(p2d));
            CUDA_MEMCPY3D.Height(c, CUDA_MEMCPY2D.Height(p2d));
            CUDA_MEMCPY3D.Depth(c, 1);
            return at(c, CUDA_MEMCPY3D.SIZE).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
        }
    }

}

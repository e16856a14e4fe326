package dev.zluda.runtime.driver;

import dev.zluda.runtime.api.CudaStructs.CUDA_ARRAY3D_DESCRIPTOR;
import dev.zluda.runtime.api.CudaStructs.CUDA_ARRAY3D_DESCRIPTOR_v1;
import dev.zluda.runtime.api.CudaStructs.CUDA_ARRAY_DESCRIPTOR;
import dev.zluda.runtime.api.CudaStructs.CUDA_ARRAY_DESCRIPTOR_v1;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static dev.zluda.runtime.driver.CuResult.*;
import static dev.zluda.runtime.driver.Native.at;
import static dev.zluda.runtime.driver.Native.getInt;
import static dev.zluda.runtime.driver.Native.getLong;
import static dev.zluda.runtime.driver.Native.putInt;
import static dev.zluda.runtime.driver.Native.putLong;

/**
 * CUDA arrays (CUDA Driver API group CUDA_MEM, {@code cuArrayCreate}, {@code cuArray3DCreate} and their
 * descriptors): here row-major device memory of width × max(height,1) × max(depth,1) elements, allocated through
 * {@link MemoryArea}. Copies to and from arrays are {@link CopyArea}'s; texture and surface objects on them
 * {@link TextureArea}'s, which hears of each destroyed array ({@link #onDestroy}).
 */
final class ArrayArea {
    private final DriverState state;
    private final MemoryArea memory;
    private final java.util.List<java.util.function.Consumer<CuArray>> destroyed = new java.util.concurrent.CopyOnWriteArrayList<>();

    ArrayArea(DriverState state, MemoryArea memory) {
        this.state = state;
        this.memory = memory;
    }

    /** Adds who is told of an array before it is destroyed (the texture objects on it go with it). */
    void onDestroy(java.util.function.Consumer<CuArray> listener) {
        destroyed.add(listener);
    }

    /** CUDA_ARRAY3D_SURFACE_LDST: the only flag accepted (the others need layered, cubemap or gather textures). */
    private static final int ARRAY3D_SURFACE_LDST = 0x02;

    /**
     * A CUDA array: here row-major linear device memory of width × max(height,1) × max(depth,1)
     * elements of {@code elementBytes} (format size × channels); textures and surfaces, which would
     * read it in other layouts, are not implemented.
     */
    record CuArray(long handle, long base, long width, long height, long depth, int format, int channels, int flags, int elementBytes) {
        long rowBytes() {
            return width * elementBytes;
        }

        long bytes() {
            return rowBytes() * Math.max(1, height) * Math.max(1, depth);
        }
    }

    final Handles<CuArray> arrays = new Handles<>(0x21);

    /** Bytes of one channel of a CUarray_format: (UNSIGNED/SIGNED_)INT8/16/32, HALF, FLOAT; -1 for the others. */
    static int formatBytes(int format) {
        return switch (format) {
            case 0x01, 0x08 -> 1;
            case 0x02, 0x09, 0x10 -> 2;
            case 0x03, 0x0a, 0x20 -> 4;
            default -> -1;
        };
    }

    /** What was said once on stderr about refused arrays. */
    private static final java.util.Set<String> SAID = java.util.concurrent.ConcurrentHashMap.newKeySet();

    /** One line on stderr, once per kind, for an array the driver refuses with CUDA_ERROR_NOT_SUPPORTED. */
    private static void refuse(String what) {
        if (SAID.add(what)) System.err.println("[ZLUDA] cuArrayCreate/cuArray3DCreate: " + what + " are not supported yet: returning CUDA_ERROR_NOT_SUPPORTED");
    }

    private int createArray(long pHandle, long width, long height, long depth, int format, int channels, int flags) {
        int r = state.checkContext();
        if (r != SUCCESS) return r;
        if (pHandle == 0 || width <= 0 || height < 0 || depth < 0 || (depth > 0 && height == 0)) return INVALID_VALUE;
        if (channels != 1 && channels != 2 && channels != 4) return INVALID_VALUE;
        int fb = formatBytes(format);
        if (fb < 0) {
            if (format <= 0) return INVALID_VALUE;
            refuse("CUDA arrays of format 0x" + Integer.toHexString(format) + " (planar, block-compressed and packed formats)");
            return NOT_SUPPORTED;
        }
        if ((flags & ~ARRAY3D_SURFACE_LDST) != 0) {
            refuse("CUDA arrays with flags 0x" + Integer.toHexString(flags) + " (layered, cubemap, texture-gather, sparse, depth, ...;"
                    + " the emulator's texture instructions have no recorded H200 ground truth for those geometries yet)");
            return NOT_SUPPORTED;
        }
        long elem = (long) fb * channels;
        long bytes;
        try {
            bytes = Math.multiplyExact(Math.multiplyExact(Math.multiplyExact(width, elem), Math.max(1, height)), Math.max(1, depth));
        } catch (ArithmeticException e) {
            return INVALID_VALUE;
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment p = a.allocate(8);
            r = memory.cuMemAlloc_v2(p.address(), bytes);
            if (r != SUCCESS) return r;
            long h = arrays.reserve();
            arrays.put(h, new CuArray(h, p.get(ValueLayout.JAVA_LONG, 0), width, height, depth, format, channels, flags, (int) elem));
            putLong(pHandle, h);
        }
        return SUCCESS;
    }

    /** cuArrayCreate_v2 (CUDA_ARRAY_DESCRIPTOR: Width, Height, Format, NumChannels): a 1D (Height 0) or 2D array. */
    public int cuArrayCreate_v2(long pHandle, long desc) {
        if (desc == 0) return INVALID_VALUE;
        return createArray(pHandle, CUDA_ARRAY_DESCRIPTOR.Width(desc), CUDA_ARRAY_DESCRIPTOR.Height(desc), 0, CUDA_ARRAY_DESCRIPTOR.Format(desc),
                CUDA_ARRAY_DESCRIPTOR.NumChannels(desc), 0);
    }

    /** cuArrayCreate, the CUDA 3.1 form: CUDA_ARRAY_DESCRIPTOR_v1 with 32-bit Width and Height. */
    public int cuArrayCreate(long pHandle, long desc) {
        if (desc == 0) return INVALID_VALUE;
        return createArray(pHandle, Integer.toUnsignedLong(CUDA_ARRAY_DESCRIPTOR_v1.Width(desc)), Integer.toUnsignedLong(CUDA_ARRAY_DESCRIPTOR_v1.Height(desc)), 0,
                CUDA_ARRAY_DESCRIPTOR_v1.Format(desc), CUDA_ARRAY_DESCRIPTOR_v1.NumChannels(desc), 0);
    }

    /** cuArray3DCreate_v2 (CUDA_ARRAY3D_DESCRIPTOR: Width, Height, Depth, Format, NumChannels, Flags). */
    public int cuArray3DCreate_v2(long pHandle, long desc) {
        if (desc == 0) return INVALID_VALUE;
        return createArray(pHandle, CUDA_ARRAY3D_DESCRIPTOR.Width(desc), CUDA_ARRAY3D_DESCRIPTOR.Height(desc), CUDA_ARRAY3D_DESCRIPTOR.Depth(desc),
                CUDA_ARRAY3D_DESCRIPTOR.Format(desc), CUDA_ARRAY3D_DESCRIPTOR.NumChannels(desc), CUDA_ARRAY3D_DESCRIPTOR.Flags(desc));
    }

    /** cuArray3DCreate, the CUDA 3.1 form with 32-bit sizes (CUDA_ARRAY3D_DESCRIPTOR_v1). */
    public int cuArray3DCreate(long pHandle, long desc) {
        if (desc == 0) return INVALID_VALUE;
        return createArray(pHandle, Integer.toUnsignedLong(CUDA_ARRAY3D_DESCRIPTOR_v1.Width(desc)),
                Integer.toUnsignedLong(CUDA_ARRAY3D_DESCRIPTOR_v1.Height(desc)), Integer.toUnsignedLong(CUDA_ARRAY3D_DESCRIPTOR_v1.Depth(desc)),
                CUDA_ARRAY3D_DESCRIPTOR_v1.Format(desc), CUDA_ARRAY3D_DESCRIPTOR_v1.NumChannels(desc), CUDA_ARRAY3D_DESCRIPTOR_v1.Flags(desc));
    }

    CuArray array(long h) {
        return h == 0 ? null : arrays.get(h);
    }

    /** cuArrayDestroy: frees the array's memory; CUDA_ERROR_INVALID_HANDLE for an unknown array. */
    public int cuArrayDestroy(long hArray) {
        CuArray live = array(hArray);
        if (live != null) for (var l : destroyed) l.accept(live);
        if (!state.initialized) return NOT_INITIALIZED;
        CuArray a = arrays.remove(hArray);
        if (a == null) return INVALID_HANDLE;
        return memory.cuMemFree_v2(a.base());
    }

    /**
     * Writes an array's descriptor: CUDA_ERROR_NOT_INITIALIZED, CUDA_ERROR_INVALID_HANDLE for an unknown array,
     * CUDA_ERROR_INVALID_VALUE for a NULL descriptor, else {@code write} fills it.
     */
    private int describe(long desc, long hArray, java.util.function.Consumer<CuArray> write) {
        if (!state.initialized) return NOT_INITIALIZED;
        CuArray a = array(hArray);
        if (a == null) return INVALID_HANDLE;
        if (desc == 0) return INVALID_VALUE;
        write.accept(a);
        return SUCCESS;
    }

    /** cuArrayGetDescriptor_v2: Width, Height, Format, NumChannels as created (a 3D array's depth is not part of it). */
    public int cuArrayGetDescriptor_v2(long desc, long hArray) {
        return describe(desc, hArray, a -> {
            CUDA_ARRAY_DESCRIPTOR.Width(desc, a.width());
            CUDA_ARRAY_DESCRIPTOR.Height(desc, a.height());
            CUDA_ARRAY_DESCRIPTOR.Format(desc, a.format());
            CUDA_ARRAY_DESCRIPTOR.NumChannels(desc, a.channels());
        });
    }

    /** cuArrayGetDescriptor: the CUDA 3.1 form (32-bit Width and Height). */
    public int cuArrayGetDescriptor(long desc, long hArray) {
        return describe(desc, hArray, a -> {
            CUDA_ARRAY_DESCRIPTOR_v1.Width(desc, (int) a.width());
            CUDA_ARRAY_DESCRIPTOR_v1.Height(desc, (int) a.height());
            CUDA_ARRAY_DESCRIPTOR_v1.Format(desc, a.format());
            CUDA_ARRAY_DESCRIPTOR_v1.NumChannels(desc, a.channels());
        });
    }

    /** cuArray3DGetDescriptor_v2: Width, Height, Depth, Format, NumChannels, Flags as created. */
    public int cuArray3DGetDescriptor_v2(long desc, long hArray) {
        return describe(desc, hArray, a -> {
            CUDA_ARRAY3D_DESCRIPTOR.Width(desc, a.width());
            CUDA_ARRAY3D_DESCRIPTOR.Height(desc, a.height());
            CUDA_ARRAY3D_DESCRIPTOR.Depth(desc, a.depth());
            CUDA_ARRAY3D_DESCRIPTOR.Format(desc, a.format());
            CUDA_ARRAY3D_DESCRIPTOR.NumChannels(desc, a.channels());
            CUDA_ARRAY3D_DESCRIPTOR.Flags(desc, a.flags());
        });
    }

    /** cuArray3DGetDescriptor: the CUDA 3.1 form (32-bit sizes). */
    public int cuArray3DGetDescriptor(long desc, long hArray) {
        return describe(desc, hArray, a -> {
            CUDA_ARRAY3D_DESCRIPTOR_v1.Width(desc, (int) a.width());
            CUDA_ARRAY3D_DESCRIPTOR_v1.Height(desc, (int) a.height());
            CUDA_ARRAY3D_DESCRIPTOR_v1.Depth(desc, (int) a.depth());
            CUDA_ARRAY3D_DESCRIPTOR_v1.Format(desc, a.format());
            CUDA_ARRAY3D_DESCRIPTOR_v1.NumChannels(desc, a.channels());
            CUDA_ARRAY3D_DESCRIPTOR_v1.Flags(desc, a.flags());
        });
    }

}

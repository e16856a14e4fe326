package dev.zluda.runtime.driver;

import dev.zluda.runtime.api.CudaStructs.CUDA_RESOURCE_DESC;
import dev.zluda.runtime.api.CudaStructs.CUDA_TEXTURE_DESC;
import dev.zluda.runtime.emulator.TextureObject;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import static dev.zluda.runtime.driver.CuResult.*;
import static dev.zluda.runtime.driver.Native.at;
import static dev.zluda.runtime.driver.Native.getInt;
import static dev.zluda.runtime.driver.Native.getLong;
import static dev.zluda.runtime.driver.Native.putInt;
import static dev.zluda.runtime.driver.Native.putLong;

/**
 * Texture and surface objects (CUDA Driver API groups CUDA_TEXOBJECT, CUDA_SURFOBJECT) on CUDA arrays
 * ({@link ArrayArea}: rows of {@code Width × element size} bytes, packed), linear and pitched memory.
 *
 * <p>Texture and surface objects are registered with
 * the emulator ({@link TextureObject}) under their handle, which kernels pass as a 64-bit value.
 * Supported: 1D/2D/3D arrays (not layered, not cube maps, no mipmaps), resources of type array, linear
 * and pitch2D, every address mode, point and linear filtering, normalized coordinates, element-type and
 * normalized-float reads, sRGB. Resource views, mipmapped arrays, layered and cube-map arrays return
 * CUDA_ERROR_NOT_SUPPORTED.
 */
final class TextureArea {
    /** CUDA_ARRAY3D_* flags (cuda.h). */
    static final int ARRAY_LAYERED = 0x01, ARRAY_SURFACE_LDST = 0x02, ARRAY_CUBEMAP = 0x04, ARRAY_TEXTURE_GATHER = 0x08;
    /** CUresourcetype (cuda.h). */
    static final int RES_ARRAY = 0, RES_MIPMAPPED = 1, RES_LINEAR = 2, RES_PITCH2D = 3;
    /** sizeof(CUDA_RESOURCE_DESC) and sizeof(CUDA_TEXTURE_DESC) on x86-64 (cuda.h, the spec's layouts). */
    static final int RESOURCE_DESC_BYTES = CUDA_RESOURCE_DESC.SIZE, TEXTURE_DESC_BYTES = CUDA_TEXTURE_DESC.SIZE;
    /** CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT of the H200. */
    static final long TEXTURE_PITCH_ALIGNMENT = 32;

    /** A texture or surface object: the descriptors as the program passed them, and what the emulator reads. */
    record Obj(byte[] resourceDesc, byte[] textureDesc, TextureObject object) {}

    private final ConcurrentHashMap<Long, Obj> objects = new ConcurrentHashMap<>();
    private static final AtomicLong OBJECT_IDS = new AtomicLong(0);

    private final DriverState state;
    private final MemoryArea memory;
    private final ArrayArea arrays;

    TextureArea(DriverState state, MemoryArea memory, ArrayArea arrays) {
        this.state = state;
        this.memory = memory;
        this.arrays = arrays;
        arrays.onDestroy(this::forget);
    }

    // ---------------------------------------------------------------- texture and surface objects

    /**
     * The memory a CUDA_RESOURCE_DESC names, as an emulator object without sampling state; {@code rc[0]}
     * receives the error when null.
     */
    private TextureObject resource(long pResDesc, boolean surface, int[] rc) {
        int type = CUDA_RESOURCE_DESC.resType(pResDesc);
        long u = pResDesc;
        switch (type) {
            case RES_ARRAY -> {
                long h = CUDA_RESOURCE_DESC.res_array_hArray(u);
                ArrayArea.CuArray a = arrays.array(h);
                if (a == null) {
                    rc[0] = INVALID_HANDLE;
                    return null;
                }
                if (surface && (a.flags() & ARRAY_SURFACE_LDST) == 0) {
                    rc[0] = INVALID_VALUE;
                    return null;
                }
                // Height 0 makes a 1D array; cuArrayCreate's Height 1 makes a 2D array of one row (as on NVIDIA's driver)
                int dims = a.depth() > 0 ? 3 : a.height() > 0 ? 2 : 1;
                long rows = Math.max(1, a.height());
                return new TextureObject(a.base(), dims, (int) a.width(), (int) rows, (int) Math.max(1, a.depth()), a.rowBytes(),
                        a.rowBytes() * rows, a.format(), a.channels(), false, new int[3], false, false, false, false, new int[4], surface);
            }
            case RES_LINEAR, RES_PITCH2D -> {
                if (surface) {
                    rc[0] = NOT_SUPPORTED;
                    return null;
                }
                // res.linear and res.pitch2D begin alike: devPtr, format, numChannels
                long ptr = CUDA_RESOURCE_DESC.res_linear_devPtr(u);
                int format = CUDA_RESOURCE_DESC.res_linear_format(u), channels = CUDA_RESOURCE_DESC.res_linear_numChannels(u);
                int cs = TextureObject.formatSize(format);
                if (cs == 0 || (channels != 1 && channels != 2 && channels != 4)) {
                    rc[0] = INVALID_VALUE;
                    return null;
                }
                long es = (long) cs * channels;
                if (type == RES_LINEAR) {
                    long bytes = CUDA_RESOURCE_DESC.res_linear_sizeInBytes(u);
                    if (bytes <= 0 || memory.find(ptr, bytes) == null) {
                        rc[0] = INVALID_VALUE;
                        return null;
                    }
                    return new TextureObject(ptr, 1, (int) Math.min(Integer.MAX_VALUE, bytes / es), 1, 1, bytes, bytes, format, channels, true,
                            new int[3], false, false, false, false, new int[4], false);
                }
                long w = CUDA_RESOURCE_DESC.res_pitch2D_width(u), h = CUDA_RESOURCE_DESC.res_pitch2D_height(u);
                long pitch = CUDA_RESOURCE_DESC.res_pitch2D_pitchInBytes(u);
                if (w <= 0 || h <= 0 || pitch < w * es || pitch % TEXTURE_PITCH_ALIGNMENT != 0 || memory.find(ptr, pitch * (h - 1) + w * es) == null) {
                    rc[0] = INVALID_VALUE;
                    return null;
                }
                return new TextureObject(ptr, 2, (int) w, (int) h, 1, pitch, pitch * h, format, channels, false, new int[3], false, false, false,
                        false, new int[4], false);
            }
            case RES_MIPMAPPED -> rc[0] = NOT_SUPPORTED;
            default -> rc[0] = INVALID_VALUE;
        }
        return null;
    }

    /**
     * CUDA Driver API, cuTexObjectCreate: CUDA_TEXTURE_DESC's addressMode[3], filterMode, flags and
     * borderColor[4] are read; mipmap fields and maxAnisotropy are ignored (no mipmaps).
     *
     * @return CUDA_ERROR_INVALID_VALUE for null descriptors or an invalid resource, CUDA_ERROR_INVALID_HANDLE
     *     for an unknown array, CUDA_ERROR_NOT_SUPPORTED for resource views and mipmapped arrays, and on the hip
     *     backend (the LLVM lowering has no texture instructions)
     */
    public int cuTexObjectCreate(long pTexObject, long pResDesc, long pTexDesc, long pResViewDesc) {
        int r = state.checkContext();
        if (r != SUCCESS) return r;
        if (!state.backend().supportsTextures()) return NOT_SUPPORTED;
        if (pTexObject == 0 || pResDesc == 0 || pTexDesc == 0) return INVALID_VALUE;
        if (pResViewDesc != 0) return NOT_SUPPORTED;
        int[] rc = {SUCCESS};
        TextureObject res = resource(pResDesc, false, rc);
        if (res == null) return rc[0];
        int[] am = {CUDA_TEXTURE_DESC.addressMode(pTexDesc, 0), CUDA_TEXTURE_DESC.addressMode(pTexDesc, 1), CUDA_TEXTURE_DESC.addressMode(pTexDesc, 2)};
        for (int m : am) if (m < 0 || m > 3) return INVALID_VALUE;
        int filter = CUDA_TEXTURE_DESC.filterMode(pTexDesc), flags = CUDA_TEXTURE_DESC.flags(pTexDesc);
        if (filter != 0 && filter != 1) return INVALID_VALUE;
        int[] border = new int[4]; // the float colour's bits
        for (int i = 0; i < 4; i++) border[i] = Float.floatToRawIntBits(CUDA_TEXTURE_DESC.borderColor(pTexDesc, i));
        TextureObject t = new TextureObject(res.base(), res.dims(), res.width(), res.height(), res.depth(), res.pitch(), res.slicePitch(),
                res.format(), res.channels(), res.linearMemory(), am, filter == 1, (flags & 0x02) != 0, (flags & 0x01) != 0,
                (flags & 0x10) != 0, border, false);
        long h = OBJECT_IDS.incrementAndGet();
        objects.put(h, new Obj(at(pResDesc, RESOURCE_DESC_BYTES).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE),
                at(pTexDesc, TEXTURE_DESC_BYTES).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE), t));
        state.backend().registerTexture(h, t);
        putLong(pTexObject, h);
        return SUCCESS;
    }

    private int destroy(long handle, boolean surface) {
        if (!state.initialized) return NOT_INITIALIZED;
        Obj o = objects.get(handle);
        if (o == null || o.object.surface() != surface) return INVALID_VALUE;
        objects.remove(handle);
        state.backend().unregisterTexture(handle);
        return SUCCESS;
    }

    /** CUDA Driver API, cuTexObjectDestroy. */
    public int cuTexObjectDestroy(long texObject) {
        return destroy(texObject, false);
    }

    private int describe(long out, long handle, boolean surface, boolean texture) {
        if (!state.initialized) return NOT_INITIALIZED;
        if (out == 0) return INVALID_VALUE;
        Obj o = objects.get(handle);
        if (o == null || o.object.surface() != surface) return INVALID_VALUE;
        byte[] b = texture ? o.textureDesc : o.resourceDesc;
        MemorySegment.copy(MemorySegment.ofArray(b), 0, at(out, b.length), 0, b.length);
        return SUCCESS;
    }

    /** CUDA Driver API, cuTexObjectGetResourceDesc: the CUDA_RESOURCE_DESC the object was created with. */
    public int cuTexObjectGetResourceDesc(long pResDesc, long texObject) {
        return describe(pResDesc, texObject, false, false);
    }

    /** CUDA Driver API, cuTexObjectGetTextureDesc: the CUDA_TEXTURE_DESC the object was created with. */
    public int cuTexObjectGetTextureDesc(long pTexDesc, long texObject) {
        return describe(pTexDesc, texObject, false, true);
    }

    /** Forgets the texture and surface objects on an array that is being destroyed (cuArrayDestroy). */
    private void forget(ArrayArea.CuArray a) {
        for (var e : objects.entrySet()) {
            if (e.getValue().object().base() == a.base()) {
                objects.remove(e.getKey());
                state.backend().unregisterTexture(e.getKey());
            }
        }
    }

    /**
     * CUDA Driver API, cuSurfObjectCreate: the resource must be a CUDA array created with
     * CUDA_ARRAY3D_SURFACE_LDST (else CUDA_ERROR_INVALID_VALUE). CUDA_ERROR_NOT_SUPPORTED on the hip backend.
     */
    public int cuSurfObjectCreate(long pSurfObject, long pResDesc) {
        int r = state.checkContext();
        if (r != SUCCESS) return r;
        if (!state.backend().supportsTextures()) return NOT_SUPPORTED;
        if (pSurfObject == 0 || pResDesc == 0) return INVALID_VALUE;
        int[] rc = {SUCCESS};
        TextureObject res = resource(pResDesc, true, rc);
        if (res == null) return rc[0];
        long h = OBJECT_IDS.incrementAndGet();
        objects.put(h, new Obj(at(pResDesc, RESOURCE_DESC_BYTES).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE), new byte[0], res));
        state.backend().registerTexture(h, res);
        putLong(pSurfObject, h);
        return SUCCESS;
    }

    /** CUDA Driver API, cuSurfObjectDestroy. */
    public int cuSurfObjectDestroy(long surfObject) {
        return destroy(surfObject, true);
    }

    /** CUDA Driver API, cuSurfObjectGetResourceDesc. */
    public int cuSurfObjectGetResourceDesc(long pResDesc, long surfObject) {
        return describe(pResDesc, surfObject, true, false);
    }
}

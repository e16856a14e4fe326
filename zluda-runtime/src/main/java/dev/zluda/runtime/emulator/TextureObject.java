package dev.zluda.runtime.emulator;

import java.util.concurrent.ConcurrentHashMap;

/**
 * A texture or surface object as kernels see it: the memory it reads (a CUDA array, linear or pitched
 * memory) and, for textures, how it samples (CUDA Driver API, cuTexObjectCreate / cuSurfObjectCreate;
 * CUDA_RESOURCE_DESC, CUDA_TEXTURE_DESC). The driver registers each object under its handle
 * ({@link #register}); {@code tex}, {@code tld4}, {@code suld} and {@code sust} look the handle up
 * when they run. An unknown handle faults the kernel with CUDA_ERROR_ILLEGAL_ADDRESS.
 *
 * @param base        native address of texel (0, 0, 0)
 * @param dims        1, 2 or 3
 * @param width       texels per row
 * @param height      rows (1 for 1D)
 * @param depth       slices (1 for 1D and 2D)
 * @param pitch       bytes from one row to the next
 * @param slicePitch  bytes from one slice to the next
 * @param format      CUarray_format of each channel (cuda.h: 0x01 u8 ... 0x20 float)
 * @param channels    1, 2 or 4
 * @param linearMemory whether the resource is CU_RESOURCE_TYPE_LINEAR (tex1Dfetch: integer texel
 *                    indices, zero outside)
 * @param addressMode CUaddress_mode per dimension (0 wrap, 1 clamp, 2 mirror, 3 border)
 * @param linearFilter CU_TR_FILTER_MODE_LINEAR
 * @param normalizedCoords CU_TRSF_NORMALIZED_COORDINATES
 * @param readAsInteger CU_TRSF_READ_AS_INTEGER (8/16-bit integer formats are returned as integers,
 *                    not as normalized floats)
 * @param srgb        CU_TRSF_SRGB
 * @param border      border colour, float bits, r g b a
 * @param surface     whether this is a surface object (suld/sust), not a texture object
 */
public record TextureObject(long base, int dims, int width, int height, int depth, long pitch, long slicePitch, int format,
                            int channels, boolean linearMemory, int[] addressMode, boolean linearFilter, boolean normalizedCoords,
                            boolean readAsInteger, boolean srgb, int[] border, boolean surface) {
    /** CUarray_format values (cuda.h). */
    public static final int U8 = 0x01, U16 = 0x02, U32 = 0x03, S8 = 0x08, S16 = 0x09, S32 = 0x0a, HALF = 0x10, FLOAT = 0x20;
    /** CUaddress_mode values (cuda.h). */
    public static final int WRAP = 0, CLAMP = 1, MIRROR = 2, BORDER = 3;

    private static final ConcurrentHashMap<Long, TextureObject> OBJECTS = new ConcurrentHashMap<>();

    /** Makes {@code handle} (a CUtexObject or CUsurfObject value, never 0) name {@code t} for kernels. */
    public static void register(long handle, TextureObject t) {
        OBJECTS.put(handle, t);
    }

    /** Forgets a handle (cuTexObjectDestroy / cuSurfObjectDestroy). */
    public static void unregister(long handle) {
        OBJECTS.remove(handle);
    }

    /** The object of a handle, or null. */
    public static TextureObject lookup(long handle) {
        return OBJECTS.get(handle);
    }

    /** Bytes of one channel of a CUarray_format, or 0 for a format the emulator does not know. */
    public static int formatSize(int format) {
        return switch (format) {
            case U8, S8 -> 1;
            case U16, S16, HALF -> 2;
            case U32, S32, FLOAT -> 4;
            default -> 0;
        };
    }

    /** Bytes of one texel. */
    public int elementSize() {
        return formatSize(format) * channels;
    }

    /** Whether channels are integers returned as integers ({@code tex.s32/.u32}): 32-bit integer formats, or 8/16-bit read as integer. */
    public boolean integerTexels() {
        return format == U32 || format == S32 || (readAsInteger && format != HALF && format != FLOAT);
    }
}

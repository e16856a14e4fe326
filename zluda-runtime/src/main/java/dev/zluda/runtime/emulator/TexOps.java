package dev.zluda.runtime.emulator;

/**
 * Texture and surface instructions (PTX ISA 9.0, 9.7.10 and 9.7.11) on the objects of
 * {@link TextureObject}: {@code tex.{1d,2d,3d}.v4.{f32,s32,u32}.{f32,s32}}, {@code tld4.{r,g,b,a}.2d.v4},
 * {@code suld.b.{1d,2d,3d}} and {@code sust.b.{1d,2d,3d}} with {@code .trap/.clamp/.zero}.
 *
 * <p>Texture fetching follows the CUDA C++ Programming Guide, appendix "Texture Fetching": with
 * normalized coordinates {@code u = x * N}; point sampling reads texel {@code floor(u)}; linear filtering
 * reads texels {@code i = floor(u - 0.5)} and {@code i + 1} with weight {@code alpha = frac(u - 0.5)} held
 * in 9-bit fixed point with 8 fraction bits. The arithmetic an NVIDIA H200 does, fitted to its recorded
 * results (conformance data {@code texture.bin.gz}, the {@code probe.*} sweeps included): a normalized
 * coordinate is first truncated to 21 fraction bits ({@link #COORD_FRACTION_BITS}); alpha is rounded to
 * the nearest 1/256, halves up; the 2D and 3D corner weights are integers in 1/256 ({@link #cornerWeights});
 * f32 and half texels are summed as {@link #blend} says, 8/16-bit normalized ones in 16-bit fixed point
 * ({@link #fixedChannel}). Address modes act on texel indices: clamp to the edge, border colour
 * for a texel outside, wrap (index mod N) and mirror. Channels a format lacks read as 0. 8- and 16-bit
 * integer formats read as normalized floats map to [0, 1] ({@code v / (2^n - 1)}) or [-1, 1]
 * ({@code max(v / (2^(n-1) - 1), -1)}); sRGB textures convert r, g and b with the table the H200 uses
 * ({@link #SRGB_U8_BF16}). Mirror addressing mirrors texel indices, not coordinates. The known difference
 * from the H200 (some linear blends of sRGB textures) is listed in docs/support.md.
 */
final class TexOps {
    private TexOps() {}

    /** Result types. */
    static final int F32 = 0, S32 = 1, U32 = 2;

    static TextureObject object(Warp w, long handle, int lane, boolean surface) {
        TextureObject t = TextureObject.lookup(handle);
        if (t == null || t.surface() != surface) {
            throw new Fault(Errors.ILLEGAL_ADDRESS, lane, (surface ? "surface" : "texture") + " object " + Mem.hex(handle) + " does not exist");
        }
        // the memory must still be allocated (an array or buffer freed under a live object faults, as reads of freed memory do)
        w.global(t.base(), 1, lane, Warp.READ);
        w.global(t.base() + t.slicePitch() * t.depth() - 1, 1, lane, Warp.READ);
        return t;
    }

    // ------------------------------------------------------------------ texel access

    private static long texelAddress(TextureObject t, int x, int y, int z) {
        return t.base() + (long) x * t.elementSize() + y * t.pitch() + z * t.slicePitch();
    }

    /** Raw bits of channel c (integer value sign/zero extended, or float bits for HALF/FLOAT as f32). */
    private static int rawChannel(TextureObject t, long addr, int c) {
        int cs = TextureObject.formatSize(t.format());
        long a = addr + (long) c * cs;
        return switch (t.format()) {
            case TextureObject.U8 -> Mem.ALL.get(Mem.B, a) & 0xFF;
            case TextureObject.S8 -> Mem.ALL.get(Mem.B, a);
            case TextureObject.U16 -> Mem.ALL.get(Mem.S, a) & 0xFFFF;
            case TextureObject.S16 -> Mem.ALL.get(Mem.S, a);
            case TextureObject.HALF -> Float.floatToRawIntBits(Float.float16ToFloat(Mem.ALL.get(Mem.S, a)));
            default -> Mem.ALL.get(Mem.I, a);
        };
    }

    /** Channel c of a texel as the float the filter works with. */
    private static double floatChannel(TextureObject t, long addr, int c) {
        if (c >= t.channels()) return 0;
        int v = rawChannel(t, addr, c);
        double d = switch (t.format()) {
            case TextureObject.U8 -> v / 255.0;
            case TextureObject.S8 -> Math.max(v / 127.0, -1);
            case TextureObject.U16 -> v / 65535.0;
            case TextureObject.S16 -> Math.max(v / 32767.0, -1);
            case TextureObject.U32 -> v & 0xFFFF_FFFFL;
            case TextureObject.S32 -> v;
            default -> Float.intBitsToFloat(v);
        };
        d = (float) d;
        if (t.srgb() && c < 3) d = t.format() == TextureObject.U8 ? srgbU8ToLinear(v & 0xFF) : (float) srgbToLinear(d);
        return d;
    }

    /** The sRGB curve (IEC 61966-2-1), for sRGB textures of formats other than u8 (not recorded on the H200). */
    private static double srgbToLinear(double c) {
        return c <= 0.04045 ? c / 12.92 : Math.pow((c + 0.055) / 1.055, 2.4);
    }

    /**
     * What an NVIDIA H200 returns for a u8 value of an sRGB texture's r, g or b channel, point-sampled: the
     * upper 16 bits of the f32 (a bfloat16, 8 significant bits), measured for every value 0..255
     * ({@code probe.2d.u8x4.clamp.point.srgb.table}, each value in three channels, identical). The H200
     * converts with a table of this precision, not the sRGB curve: values 1..10 are {@code v * 5/16384} (the
     * curve's linear segment is {@code v / (255 * 12.92)}), the others lie within one bfloat16 step of the
     * curve but 19 of them are not its nearest bfloat16; no formula is known, so the measured table is the
     * ground truth here.
     */
    private static final short[] SRGB_U8_BF16 = {
            0x0000, 0x39a0, 0x3a20, 0x3a70, 0x3aa0, 0x3ac8, 0x3af0, 0x3b0c, 0x3b20, 0x3b34, 0x3b48, 0x3b5c, 0x3b70, 0x3b84, 0x3b90, 0x3b9c,
            0x3baa, 0x3bb8, 0x3bc6, 0x3bd6, 0x3be6, 0x3bf6, 0x3c03, 0x3c0c, 0x3c16, 0x3c1f, 0x3c29, 0x3c34, 0x3c3e, 0x3c49, 0x3c55, 0x3c60,
            0x3c6c, 0x3c7a, 0x3c83, 0x3c8a, 0x3c91, 0x3c98, 0x3c9f, 0x3ca6, 0x3cae, 0x3cb6, 0x3cbe, 0x3cc6, 0x3cce, 0x3cd7, 0x3ce0, 0x3ce9,
            0x3cf2, 0x3cfc, 0x3d03, 0x3d08, 0x3d0d, 0x3d12, 0x3d17, 0x3d1c, 0x3d22, 0x3d28, 0x3d2d, 0x3d33, 0x3d39, 0x3d3f, 0x3d45, 0x3d4c,
            0x3d52, 0x3d58, 0x3d60, 0x3d66, 0x3d6c, 0x3d74, 0x3d7a, 0x3d81, 0x3d85, 0x3d88, 0x3d8c, 0x3d90, 0x3d94, 0x3d98, 0x3d9c, 0x3da0,
            0x3da4, 0x3da9, 0x3dad, 0x3db1, 0x3db6, 0x3dba, 0x3dbf, 0x3dc3, 0x3dc8, 0x3dcd, 0x3dd1, 0x3dd6, 0x3ddb, 0x3de0, 0x3de5, 0x3dea,
            0x3df0, 0x3df4, 0x3dfa, 0x3e00, 0x3e02, 0x3e05, 0x3e08, 0x3e0b, 0x3e0e, 0x3e11, 0x3e14, 0x3e17, 0x3e1a, 0x3e1d, 0x3e20, 0x3e23,
            0x3e26, 0x3e29, 0x3e2c, 0x3e30, 0x3e33, 0x3e36, 0x3e3a, 0x3e3d, 0x3e40, 0x3e44, 0x3e47, 0x3e4b, 0x3e4e, 0x3e52, 0x3e56, 0x3e59,
            0x3e5d, 0x3e61, 0x3e65, 0x3e68, 0x3e6c, 0x3e70, 0x3e74, 0x3e78, 0x3e7c, 0x3e80, 0x3e82, 0x3e84, 0x3e86, 0x3e88, 0x3e8a, 0x3e8d,
            0x3e8f, 0x3e91, 0x3e93, 0x3e95, 0x3e98, 0x3e9a, 0x3e9c, 0x3e9e, 0x3ea1, 0x3ea3, 0x3ea5, 0x3ea8, 0x3eaa, 0x3ead, 0x3eaf, 0x3eb2,
            0x3eb4, 0x3eb6, 0x3eb9, 0x3ebc, 0x3ebe, 0x3ec1, 0x3ec3, 0x3ec6, 0x3ec8, 0x3ecb, 0x3ece, 0x3ed1, 0x3ed3, 0x3ed6, 0x3ed9, 0x3edb,
            0x3ede, 0x3ee1, 0x3ee4, 0x3ee7, 0x3eea, 0x3eed, 0x3ef0, 0x3ef2, 0x3ef6, 0x3ef8, 0x3efc, 0x3efe, 0x3f01, 0x3f02, 0x3f04, 0x3f05,
            0x3f07, 0x3f09, 0x3f0a, 0x3f0c, 0x3f0d, 0x3f0f, 0x3f11, 0x3f12, 0x3f14, 0x3f16, 0x3f17, 0x3f19, 0x3f1b, 0x3f1c, 0x3f1e, 0x3f20,
            0x3f21, 0x3f23, 0x3f25, 0x3f27, 0x3f29, 0x3f2a, 0x3f2c, 0x3f2e, 0x3f30, 0x3f32, 0x3f33, 0x3f35, 0x3f37, 0x3f39, 0x3f3b, 0x3f3d,
            0x3f3f, 0x3f41, 0x3f43, 0x3f45, 0x3f47, 0x3f49, 0x3f4b, 0x3f4d, 0x3f4f, 0x3f51, 0x3f53, 0x3f55, 0x3f57, 0x3f59, 0x3f5b, 0x3f5d,
            0x3f5f, 0x3f61, 0x3f63, 0x3f65, 0x3f68, 0x3f6a, 0x3f6c, 0x3f6e, 0x3f70, 0x3f72, 0x3f74, 0x3f76, 0x3f7a, 0x3f7c, 0x3f7e, 0x3f80
    };

    /** A u8 value of an sRGB texture converted to linear as the H200 does ({@link #SRGB_U8_BF16}). */
    static float srgbU8ToLinear(int u8) {
        return Float.intBitsToFloat((SRGB_U8_BF16[u8] & 0xFFFF) << 16);
    }

    /**
     * Channel c of the border colour as the texture returns it (measured on an NVIDIA H200): the colour
     * is converted to the texel format (8/16-bit normalized: rounded to the nearest step; half: to f16)
     * and back; channels the format lacks and integer reads give 0.
     */
    private static double borderChannel(TextureObject t, int c) {
        if (c >= t.channels() || t.integerTexels()) return 0;
        float b = Float.intBitsToFloat(t.border()[c]);
        return switch (t.format()) {
            case TextureObject.U8 -> (float) (Math.rint(Math.clamp(b, 0f, 1f) * 255.0) / 255.0);
            case TextureObject.S8 -> (float) Math.max(Math.rint(Math.clamp(b, -1f, 1f) * 127.0) / 127.0, -1);
            case TextureObject.U16 -> (float) (Math.rint(Math.clamp(b, 0f, 1f) * 65535.0) / 65535.0);
            case TextureObject.S16 -> (float) Math.max(Math.rint(Math.clamp(b, -1f, 1f) * 32767.0) / 32767.0, -1);
            case TextureObject.HALF -> Float.float16ToFloat(Float.floatToFloat16(b));
            default -> b;
        };
    }

    /**
     * Channel c of the border colour of an integer read (H200): the colour's float bits, cut to the channel's
     * width and sign- or zero-extended as the format is; 0 for channels the format lacks.
     */
    private static long integerBorder(TextureObject t, int c) {
        if (c >= t.channels()) return 0;
        int bits = t.border()[c];
        int v = switch (t.format()) {
            case TextureObject.U8 -> bits & 0xFF;
            case TextureObject.S8 -> (byte) bits;
            case TextureObject.U16 -> bits & 0xFFFF;
            case TextureObject.S16 -> (short) bits;
            default -> bits;
        };
        return v & 0xFFFF_FFFFL;
    }

    /** Resolves a texel index along an axis of n texels by the address mode; -1 when it is outside (border). */
    private static int address(int i, int n, int mode) {
        if (i >= 0 && i < n) return i;
        return switch (mode) {
            case TextureObject.WRAP -> Math.floorMod(i, n);
            case TextureObject.MIRROR -> {
                int p = Math.floorMod(i, 2 * n);
                yield p < n ? p : 2 * n - 1 - p;
            }
            case TextureObject.BORDER -> -1;
            default -> Math.clamp(i, 0, n - 1);
        };
    }

    /** Wrap and mirror need normalized coordinates; with unnormalized ones the H200 clamps. */
    private static int effectiveMode(TextureObject t, int axis) {
        int m = t.addressMode()[axis];
        return !t.normalizedCoords() && (m == TextureObject.WRAP || m == TextureObject.MIRROR) ? TextureObject.CLAMP : m;
    }

    private static int size(TextureObject t, int axis) {
        return axis == 0 ? t.width() : axis == 1 ? t.height() : t.depth();
    }

    /** Texel (x, y, z) after addressing, or null for the border colour. */
    private static long texel(TextureObject t, int[] idx) {
        int[] r = new int[3];
        for (int k = 0; k < 3; k++) {
            if (k >= t.dims()) {
                r[k] = 0;
                continue;
            }
            int mode = t.linearMemory() ? TextureObject.BORDER : effectiveMode(t, k);
            r[k] = address(idx[k], size(t, k), mode);
            if (r[k] < 0) return -1;
        }
        return texelAddress(t, r[0], r[1], r[2]);
    }

    /** Floor of a coordinate as a texel index, saturating (NaN reads texel 0). */
    private static int floorIndex(double u) {
        if (Double.isNaN(u)) return 0;
        double f = Math.floor(u);
        return f >= Integer.MAX_VALUE / 2 ? Integer.MAX_VALUE / 2 : f <= Integer.MIN_VALUE / 2 ? Integer.MIN_VALUE / 2 : (int) f;
    }

    /**
     * Fraction bits a normalized coordinate keeps: it is truncated (toward -inf) to a multiple of 2^-21 first,
     * for point sampling and linear filtering alike (H200, measured with the {@code probe.*.norm.coord} sweeps:
     * 20 or 22 bits mispredict 136 to 576 of their fetches).
     */
    static final int COORD_FRACTION_BITS = 21;

    /**
     * The coordinate along an axis in texel units. Unnormalized coordinates are used as they are; a
     * normalized one is truncated to {@link #COORD_FRACTION_BITS} fraction bits, wrapped into [0, 1) (wrap)
     * or reduced to the mirror period [0, 2) (mirror; the texel indices are mirrored afterwards) when the
     * address mode says so, and scaled by the size exactly.
     */
    private static double unnormalized(TextureObject t, float x, int axis) {
        if (!t.normalizedCoords() || t.linearMemory()) return x;
        double v = x;
        if (Double.isFinite(v)) v = Math.floor(v * (1 << COORD_FRACTION_BITS)) / (1 << COORD_FRACTION_BITS);
        int mode = t.addressMode()[axis];
        // ±inf wraps and mirrors to 0 (H200)
        if (Double.isInfinite(v) && (mode == TextureObject.WRAP || mode == TextureObject.MIRROR)) v = 0;
        if (Double.isFinite(v) && mode == TextureObject.WRAP) v -= Math.floor(v);
        // mirror: the coordinate is reduced to one period [0, 2) but not reflected; the texel indices are
        // mirrored ({@link #address}), so in the reflected half the texel called i+1 lies left of i (H200:
        // tld4 gathers and 3D linear filtering at the seams, probe.*.mirror.*)
        if (Double.isFinite(v) && mode == TextureObject.MIRROR) v -= 2 * Math.floor(v / 2);
        return v * size(t, axis);
    }

    /** Fetch with f32 coordinates: four result words (float bits or integers). */
    static void sample(TextureObject t, float[] coord, int resultType, long[] out) {
        int dims = t.dims();
        int[] i0 = new int[3];
        int[] a = new int[3];
        boolean linear = t.linearFilter() && !t.integerTexels();
        for (int k = 0; k < dims; k++) {
            // a NaN coordinate reads as 0 (H200: point sampling reads texel 0, linear filtering blends texels -1 and 0 equally)
            double u = unnormalized(t, Float.isNaN(coord[k]) ? 0f : coord[k], k);
            if (linear) {
                double xb = u - 0.5;
                i0[k] = floorIndex(xb);
                if (Double.isFinite(xb)) {
                    double fr = xb - Math.floor(xb);
                    a[k] = (int) Math.floor(fr * 256 + 0.5);
                    if (a[k] == 256) {
                        a[k] = 0;
                        i0[k]++;
                    }
                }
            } else {
                i0[k] = floorIndex(u);
            }
        }
        if (!linear) {
            fetch(t, i0, resultType, out);
            return;
        }
        // clamp to the edge: a footprint that reaches past an edge reads the edge texel alone (weight 0 on the
        // other), as if the position were clamped to [0.5, N - 0.5] (H200: the same result in 1D and 2D, where
        // weights split exactly per axis; in 3D the corner weights depend on it, tex.3d.f32x2.clamp.linear)
        for (int k = 0; k < dims; k++) {
            if (t.linearMemory() || effectiveMode(t, k) != TextureObject.CLAMP) continue;
            int n = size(t, k);
            if (i0[k] < 0 || i0[k] >= n - 1) {
                i0[k] = i0[k] < 0 ? 0 : n - 1;
                a[k] = 0;
            }
        }
        int[] w = cornerWeights(dims, a);
        boolean fixedFormat = switch (t.format()) {
            case TextureObject.U8, TextureObject.U16, TextureObject.S8, TextureObject.S16 -> true;
            default -> false;
        };
        float[][] v = new float[w.length][4];
        int[][] q = new int[w.length][4];
        int[] idx = new int[3];
        for (int c = 0; c < w.length; c++) {
            if (w[c] == 0) continue;
            for (int k = 0; k < dims; k++) idx[k] = i0[k] + ((c >> k) & 1);
            long addr = texel(t, idx);
            for (int ch = 0; ch < 4; ch++) {
                // sRGB: r, g and b are converted to linear and blended as floats, alpha as the format is
                boolean fixed = fixedFormat && !(t.srgb() && ch < 3);
                if (fixed) q[c][ch] = ch >= t.channels() ? 0 : addr < 0 ? fixedBorder(t, ch) : fixedChannel(t, rawChannel(t, addr, ch));
                else v[c][ch] = (float) (addr < 0 ? borderChannel(t, ch) : floatChannel(t, addr, ch));
            }
        }
        float[] col = new float[w.length];
        for (int ch = 0; ch < 4; ch++) {
            float f;
            if (fixedFormat && !(t.srgb() && ch < 3)) {
                long sum = 0;
                for (int c = 0; c < w.length; c++) sum += (long) w[c] * q[c][ch];
                // to 16 bits, halves up; s8 blends are of the raw values, scaled to 16 bits by about 32767/32512 =
                // 1 + 257/32768 with the correction taken from the blend's upper 12 bits (H200, every blend recorded)
                long r = t.format() == TextureObject.S8 ? sum + (((sum >> 4) * 257 + 1024) >> 11) : Math.floorDiv(sum + 128, 256);
                boolean signed = t.format() == TextureObject.S8 || t.format() == TextureObject.S16;
                f = signed ? (float) Math.max(r / 32767.0, -1) : (float) (r / 65535.0);
            } else {
                for (int c = 0; c < w.length; c++) col[c] = v[c][ch];
                f = t.srgb() && ch < 3 ? blend(w, col, SRGB_FILTER_FRACTION_BITS, 11, -149) : blend(w, col, t.format() == TextureObject.HALF);
            }
            out[ch] = result(f, resultType);
        }
    }

    /**
     * An 8/16-bit normalized texel as the filter takes it (fitted to the H200's results): u8 as a 16-bit
     * fraction of 65535 ({@code v * 257}, its bits replicated), u16 and s16 as they are, s8 as its raw value:
     * the blend {@code S} of s8 texels (in 1/256) becomes the 16-bit {@code S + floor(((S >> 4) * 257 + 1024)
     * / 2048)} (S shifted arithmetically, i.e. floor), a fraction of 32767 (clamped to -1): every one of the
     * 65280 blends of {@code probe.2d.s8x1.clamp.linear.all}, which are every S from -32768 to 32511.
     */
    private static int fixedChannel(TextureObject t, int raw) {
        return switch (t.format()) {
            case TextureObject.U8 -> raw * 257;
            default -> raw;
        };
    }

    /** The border colour of an 8/16-bit normalized texture in the filter's 16-bit units ({@link #fixedChannel}). */
    private static int fixedBorder(TextureObject t, int c) {
        float b = Float.intBitsToFloat(t.border()[c]);
        return switch (t.format()) {
            case TextureObject.U8 -> fixedChannel(t, (int) Math.rint(Math.clamp(b, 0f, 1f) * 255.0));
            case TextureObject.S8 -> fixedChannel(t, (int) Math.rint(Math.clamp(b, -1f, 1f) * 127.0));
            case TextureObject.U16 -> (int) Math.rint(Math.clamp(b, 0f, 1f) * 65535.0);
            default -> (int) Math.rint(Math.clamp(b, -1f, 1f) * 32767.0);
        };
    }

    /**
     * The weights of the 2^dims texels of the filter footprint, in 1/256, corner c taking the upper texel
     * along axis k when bit k of c is set; they sum to 256. From the per-axis weights {@code a[k]} (0..255,
     * the fraction rounded to 1/256), as an NVIDIA H200 computes them (fitted to and checked on all 16381
     * weight triples of {@code probe.3d.f32x4.clamp.linear.weights} and the 2D cases):
     * <ul>
     * <li>1D: {@code {256 - a, a}};
     * <li>2D: the corner of both upper texels gets {@code round(a*b/256)} (halves up) and the others what keeps
     *     each axis's sum exact: {@code a - w11}, {@code b - w11}, {@code 256 - a - b + w11};
     * <li>3D: each z slice, of weight {@code Z = 256 - c} or {@code c}, is split along x into
     *     {@code X1 = round(a*Z/256)} (halves up) and {@code X0 = Z - X1}; each of these along y:
     *     {@code X1}'s upper texel gets {@code round(X1*b/256)} rounded halves up, {@code X0}'s upper texel
     *     {@code round(X0*b/256)} rounded halves down, the lower texels the rest (so the x and y sums may
     *     be 1/256 off a and b; with c = 0 this is the 2D rule).
     * </ul>
     * 1D (a 1D CUDA array made with Height 0) has not been recorded on the H200.
     */
    static int[] cornerWeights(int dims, int[] a) {
        if (dims == 1) return new int[] {256 - a[0], a[0]};
        if (dims == 2) {
            int w11 = (a[0] * a[1] + 128) >> 8;
            return new int[] {256 - a[0] - a[1] + w11, a[0] - w11, a[1] - w11, w11};
        }
        int[] w3 = new int[8];
        for (int k = 0; k < 2; k++) {
            int z = k == 0 ? 256 - a[2] : a[2];
            int x1 = (a[0] * z + 128) >> 8, x0 = z - x1;
            int w11 = (x1 * a[1] + 128) >> 8, w01 = (x0 * a[1] + 127) >> 8;
            w3[4 * k] = x0 - w01;
            w3[4 * k + 1] = x1 - w11;
            w3[4 * k + 2] = w01;
            w3[4 * k + 3] = w11;
        }
        return w3;
    }

    /** Bits below the largest texel's leading bit that the filter keeps of each texel (H200). */
    static final int FILTER_FRACTION_BITS = 27;

    /**
     * The filtered value {@code sum(w[i] * v[i]) / 256} as an NVIDIA H200 computes it (fitted to the
     * recorded conformance data, {@code texture.bin.gz}): the texels are taken in groups of four (a 2D
     * footprint; a 3D footprint is two groups, its z slices): each texel with a nonzero weight is cut (toward
     * zero) to a multiple of {@code 2^(E - 27)}, E being the exponent of the largest such texel of its group;
     * the weighted sum of all groups is then exact and rounded once, halves away from zero: to f32, or to
     * f16 for half textures. A NaN or infinite texel makes the sum what f32 arithmetic gives.
     */
    static float blend(int[] w, float[] v, boolean half) {
        return half ? blend(w, v, FILTER_FRACTION_BITS, 11, -24) : blend(w, v, FILTER_FRACTION_BITS, 24, -149);
    }

    /**
     * Bits below the largest texel's leading bit that the filter keeps of the r, g, b channels of an sRGB
     * texture after conversion, whose blend it rounds to 11 significant bits: an approximation fitted to the
     * H200's linear sRGB results ({@code probe.2d.u8x4.clamp.linear.srgb.mix}), which gives most of them but
     * not all (docs/support.md).
     */
    static final int SRGB_FILTER_FRACTION_BITS = 7;

    /**
     * {@link #blend(int[], float[], boolean)} with the texel cut to {@code fractionBits} bits below the
     * group's largest leading bit and the sum rounded (halves away from zero) to {@code p} significant bits,
     * the smallest subnormal being {@code 2^minExp}.
     */
    static float blend(int[] w, float[] v, int fractionBits, int p, int minExp) {
        for (int i = 0; i < w.length; i++) {
            if (w[i] != 0 && !Float.isFinite(v[i])) {
                double s = 0;
                for (int k = 0; k < w.length; k++) if (w[k] != 0) s += w[k] * (double) v[k];
                return (float) (s / 256);
            }
        }
        long total = 0;
        int scale = Integer.MAX_VALUE; // total * 2^scale is the weighted sum (in 1/256)
        java.math.BigInteger big = null; // when the groups' scales are too far apart for a long
        for (int from = 0; from < w.length; from += 4) {
            int to = Math.min(w.length, from + 4);
            int e = Integer.MIN_VALUE;
            for (int i = from; i < to; i++) if (w[i] != 0 && v[i] != 0) e = Math.max(e, exponent(v[i]));
            if (e == Integer.MIN_VALUE) continue;
            int g = e - fractionBits;
            long sum = 0;
            for (int i = from; i < to; i++) {
                if (w[i] == 0 || v[i] == 0) continue;
                int bits = Float.floatToRawIntBits(v[i]);
                int be = (bits >>> 23) & 0xFF;
                long m = be == 0 ? bits & 0x7FFFFF : (bits & 0x7FFFFF) | 0x800000;
                int x = be == 0 ? -149 : be - 150; // v = m * 2^x
                long q = x >= g ? m << (x - g) : (g - x >= 63 ? 0 : m >> (g - x));
                sum += w[i] * (bits < 0 ? -q : q);
            }
            if (sum == 0) continue;
            if (scale == Integer.MAX_VALUE) {
                total = sum;
                scale = g;
                continue;
            }
            // align the two sums exactly
            java.math.BigInteger t = big != null ? big : java.math.BigInteger.valueOf(total);
            java.math.BigInteger u = java.math.BigInteger.valueOf(sum);
            int lo = Math.min(scale, g);
            t = t.shiftLeft(scale - lo);
            u = u.shiftLeft(g - lo);
            big = t.add(u);
            scale = lo;
        }
        if (scale == Integer.MAX_VALUE) return 0f;
        if (big != null) {
            if (big.signum() == 0) return 0f;
            // keep 62 bits; the bits shifted out only matter as a sticky bit for the rounding below
            int drop = Math.max(0, big.bitLength() - 62);
            java.math.BigInteger mag = big.abs();
            long kept = mag.shiftRight(drop).longValue();
            if (drop > 0 && mag.getLowestSetBit() < drop) kept |= 1;
            total = big.signum() < 0 ? -kept : kept;
            scale += drop;
        }
        return roundHalfAway(total, scale - 8, p, minExp);
    }

    /** Exponent of the leading bit of a nonzero finite float (subnormals included). */
    private static int exponent(float f) {
        int bits = Float.floatToRawIntBits(f);
        int be = (bits >>> 23) & 0xFF;
        return be != 0 ? be - 127 : -149 + 31 - Integer.numberOfLeadingZeros(bits & 0x7FFFFF);
    }

    /**
     * {@code s * 2^x} rounded, halves away from zero, to a float format of {@code p} significand bits whose
     * smallest subnormal is {@code 2^minExp} (f32: 24, -149; f16: 11, -24), returned as a float.
     */
    static float roundHalfAway(long s, int x, int p, int minExp) {
        if (s == 0) return 0f;
        long mag = Math.abs(s);
        int msb = 63 - Long.numberOfLeadingZeros(mag);
        int shift = Math.max(msb - (p - 1), minExp - x);
        if (shift > 0) {
            mag = (mag + (1L << (shift - 1))) >> shift;
            x += shift;
        }
        float f = Math.scalb((float) mag, x);
        if (minExp == -24 && Math.abs(f) >= 65520f) f = Float.POSITIVE_INFINITY; // beyond f16's largest finite value
        return s < 0 ? -f : f;
    }

    private static long result(float f, int resultType) {
        return switch (resultType) {
            case S32 -> (long) (int) f & 0xFFFF_FFFFL;
            case U32 -> (long) f & 0xFFFF_FFFFL;
            default -> Float.floatToRawIntBits(f) & 0xFFFF_FFFFL;
        };
    }

    /** Point fetch of the texel at integer indices (after addressing). */
    static void fetch(TextureObject t, int[] idx, int resultType, long[] out) {
        long addr = texel(t, idx);
        for (int ch = 0; ch < 4; ch++) {
            if (addr < 0) {
                out[ch] = t.integerTexels() ? integerBorder(t, ch) : result((float) borderChannel(t, ch), resultType);
            } else if (t.integerTexels()) {
                out[ch] = ch < t.channels() ? rawChannel(t, addr, ch) & 0xFFFF_FFFFL : 0;
            } else {
                out[ch] = result((float) floatChannel(t, addr, ch), resultType);
            }
        }
    }

    /**
     * Fetch with integer coordinates (texel indices, tex1Dfetch): a texel outside the texture reads 0 in every channel
     * (H200), whatever the address mode; so does every fetch of a geometry with fewer dimensions than the texture
     * ({@code tex.1d} with {@code .s32} coordinates on the 2D array of one row that cuArrayCreate makes for Height 1
     * reads 0 at every coordinate on the H200: TextureCases {@code cover.tex.1d.v4.u32.s32}; with {@code .f32}
     * coordinates it reads row 0).
     */
    static void fetchIndexed(TextureObject t, int[] idx, int dims, int resultType, long[] out) {
        if (dims < t.dims()) {
            java.util.Arrays.fill(out, 0);
            return;
        }
        for (int k = 0; k < t.dims(); k++) {
            if (idx[k] < 0 || idx[k] >= size(t, k)) {
                java.util.Arrays.fill(out, 0);
                return;
            }
        }
        fetch(t, idx, resultType, out);
    }

    /**
     * tld4: component comp of the four texels of the bilinear footprint, in the order (i, j+1), (i+1, j+1),
     * (i+1, j), (i, j). The footprint is that of linear filtering: the position rounded to 1/256 texel first
     * (halves up); with mirror addressing i+1 is the texel after i in the unreflected coordinate, so in the
     * reflected half of the period it lies left of i ({@code tld4.r.2d.f32x1.mirror.norm.f32},
     * {@code probe.tld4.r.2d.f32x1.mirror.norm.seam}).
     */
    static void gather(TextureObject t, float[] coord, int comp, int resultType, long[] out) {
        int[] i0 = new int[2];
        for (int k = 0; k < 2; k++) {
            double xb = unnormalized(t, coord[k], k) - 0.5;
            i0[k] = Double.isFinite(xb) ? floorIndex(Math.floor(xb * 256 + 0.5) / 256) : floorIndex(xb);
        }
        int[][] order = {{0, 1}, {1, 1}, {1, 0}, {0, 0}};
        long[] one = new long[4];
        for (int q = 0; q < 4; q++) {
            fetch(t, new int[] {i0[0] + order[q][0], i0[1] + order[q][1], 0}, resultType, one);
            out[q] = one[comp];
        }
    }

    // ------------------------------------------------------------------ ops

    /** {@code tex.geom.v4.dtype.ctype d, [obj, {c...}]} and {@code tld4.comp.2d.v4.dtype.f32}. */
    static final class Tex extends Op {
        final int obj, dims, resultType, gather;
        final int[] coords, dst;
        final boolean floatCoords;

        Tex(int obj, int dims, int[] coords, boolean floatCoords, int resultType, int gather, int[] dst) {
            super(NORMAL);
            this.obj = obj;
            this.dims = dims;
            this.coords = coords;
            this.floatCoords = floatCoords;
            this.resultType = resultType;
            this.gather = gather;
            this.dst = dst;
        }

        @Override
        void exec(Warp w, int m) {
            final long[] r = w.r;
            long[] out = new long[4];
            float[] fc = new float[3];
            int[] ic = new int[3];
            for (int x = m; x != 0; x &= x - 1) {
                int l = Integer.numberOfTrailingZeros(x);
                TextureObject t = object(w, r[obj + l], l, false);
                if (t.dims() < dims) throw new Fault(Errors.ILLEGAL_INSTRUCTION, l, dims + "D fetch from a " + t.dims() + "D texture");
                // a lower-dimensional fetch reads at coordinate 0 of the other axes (tex.1d on a 2D array of height 1,
                // which cuArrayCreate makes for Height 1: on the H200 linear filtering then blends row 0 with row -1)
                for (int k = 0; k < 3; k++) {
                    fc[k] = k < dims ? Float.intBitsToFloat((int) r[coords[k] + l]) : 0f;
                    ic[k] = k < dims ? (int) r[coords[k] + l] : 0;
                }
                if (gather >= 0) gather(t, fc, gather, resultType, out);
                else if (floatCoords) sample(t, fc, resultType, out);
                else fetchIndexed(t, ic, dims, resultType, out);
                for (int k = 0; k < 4; k++) if (dst[k] >= 0) r[dst[k] + l] = out[k];
            }
        }
    }

    /** Clamp modes of suld/sust. */
    static final int TRAP = 0, CLAMP = 1, ZERO = 2;

    /**
     * The texel a surface access addresses (x in bytes), or -1 when it is outside and the mode is
     * {@code .zero}; {@code .trap} faults.
     */
    private static long surfaceAddress(TextureObject t, int[] c, int dims, int bytes, int mode, int lane) {
        int es = t.elementSize();
        long x = c[0];
        boolean outside = x < 0 || x + bytes > (long) t.width() * es;
        int[] idx = {0, 0, 0};
        for (int k = 1; k < dims; k++) {
            idx[k] = c[k];
            outside |= c[k] < 0 || c[k] >= size(t, k);
        }
        if (outside) {
            if (mode == ZERO) return -1;
            if (mode == TRAP) throw new Fault(Errors.ILLEGAL_ADDRESS, lane, "surface access outside the surface (.trap)");
            x = Math.clamp(x, 0, (long) (t.width() - 1) * es);
            for (int k = 1; k < dims; k++) idx[k] = Math.clamp(idx[k], 0, size(t, k) - 1);
        }
        return t.base() + x + idx[1] * t.pitch() + idx[2] * t.slicePitch();
    }

    /**
     * What {@code suld.b} and {@code sust.b} share: the surface object, the coordinates and the
     * address of a lane's element ({@link #surfaceAddress}, negative when {@code .zero} drops it).
     */
    abstract static class SurfaceAccess extends Op {
        final int obj, dims, elemBytes, mode;
        final int[] coords, regs;

        SurfaceAccess(int obj, int dims, int[] coords, int elemBytes, int mode, int[] regs) {
            super(NORMAL);
            this.obj = obj;
            this.dims = dims;
            this.coords = coords;
            this.elemBytes = elemBytes;
            this.mode = mode;
            this.regs = regs;
        }

        /** The address of lane {@code l}'s first element; {@code c} is scratch space of 3 ints. */
        final long address(Warp w, int l, int[] c) {
            final long[] r = w.r;
            TextureObject t = object(w, r[obj + l], l, true);
            for (int k = 0; k < 3; k++) c[k] = k < dims ? (int) r[coords[k] + l] : 0;
            return surfaceAddress(t, c, t.dims(), elemBytes * regs.length, mode, l);
        }
    }

    /** {@code suld.b.geom{.v2,.v4}.b{8,16,32,64}.mode d, [surf, {x, y, z}]}. */
    static final class Suld extends SurfaceAccess {
        Suld(int obj, int dims, int[] coords, int elemBytes, int mode, int[] dst) {
            super(obj, dims, coords, elemBytes, mode, dst);
        }

        @Override
        void exec(Warp w, int m) {
            final long[] r = w.r;
            int[] c = new int[3];
            for (int x = m; x != 0; x &= x - 1) {
                int l = Integer.numberOfTrailingZeros(x);
                long a = address(w, l, c);
                for (int k = 0; k < regs.length; k++) {
                    long v = a < 0 ? 0 : Mem.load(a + (long) k * elemBytes, elemBytes, false);
                    if (regs[k] >= 0) r[regs[k] + l] = v;
                }
            }
        }
    }

    /** {@code sust.b.geom{.v2,.v4}.b{8,16,32,64}.mode [surf, {x, y, z}], v}. */
    static final class Sust extends SurfaceAccess {
        Sust(int obj, int dims, int[] coords, int elemBytes, int mode, int[] src) {
            super(obj, dims, coords, elemBytes, mode, src);
        }

        @Override
        void exec(Warp w, int m) {
            final long[] r = w.r;
            int[] c = new int[3];
            for (int x = m; x != 0; x &= x - 1) {
                int l = Integer.numberOfTrailingZeros(x);
                long a = address(w, l, c);
                if (a < 0) continue;
                for (int k = 0; k < regs.length; k++) Mem.store(a + (long) k * elemBytes, elemBytes, r[regs[k] + l]);
            }
        }
    }
}

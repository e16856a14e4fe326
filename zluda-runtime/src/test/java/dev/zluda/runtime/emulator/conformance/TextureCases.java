package dev.zluda.runtime.emulator.conformance;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.zip.CRC32;

/**
 * The texture, surface and launch-state conformance suite: kernels that need driver-side setup (CUDA
 * arrays, texture and surface objects, launch shapes, dynamic shared memory) which the instruction suite
 * ({@link Conformance}) lacks. Each case names a resource, a texture descriptor, a launch shape and a
 * PTX kernel; {@code texture_harness.c} (test sources, {@code src/test/conformance/}) ran every case on an
 * NVIDIA H200 through the CUDA driver API, and {@code TextureConformanceTest} runs them through zluda's
 * driver and compares bit for bit.
 *
 * <p>Kernel shape: {@code .entry k(.param .u64 obj, .param .u64 args, .param .u64 out)}; {@code obj} is
 * the texture or surface object (0 when the case has none), thread {@code i} (linear over the grid:
 * {@code ctaid.x * ntid.x + tid.x} for one-dimensional launches) reads eight 32-bit words at
 * {@code args + 32*i} (coordinates in words 0-3, store values or parameters in words 4-7) and writes
 * {@code outWords} 32-bit words at {@code out + 4*outWords*i}. For surface-store cases the output is the
 * whole array read back after the kernel.
 *
 * <p>Everything (texel data, coordinates, PTX) is a pure function of {@link Conformance#SEED} and the case
 * name; the export's CRC-32 ({@link #crc}) is stored with the recording.
 */
public final class TextureCases {
    private TextureCases() {}

    // cuda.h values
    public static final int U8 = 0x01, U16 = 0x02, U32 = 0x03, S8 = 0x08, S16 = 0x09, S32 = 0x0a, HALF = 0x10, FLOAT = 0x20;
    public static final int WRAP = 0, CLAMP = 1, MIRROR = 2, BORDER = 3;
    public static final int READ_AS_INTEGER = 1, NORMALIZED = 2, SRGB = 0x10;
    /** Resource kinds: none, CUDA array, linear memory, pitched 2D memory. */
    public static final int RES_NONE = 0, RES_ARRAY = 1, RES_LINEAR = 2, RES_PITCH2D = 3;
    /** Object kinds: none, texture object, surface object. */
    public static final int OBJ_NONE = 0, OBJ_TEX = 1, OBJ_SURF = 2;
    /** Row pitch of pitched 2D resources, bytes. */
    public static final int PITCH = 512;

    /**
     * One case.
     *
     * @param name     unique
     * @param res      RES_*
     * @param dims     1, 2 or 3 (array / resource dimensionality)
     * @param w        width in texels
     * @param h        height (1 for 1D)
     * @param d        depth (1 for 1D/2D)
     * @param format   CUarray_format
     * @param channels 1, 2 or 4
     * @param obj      OBJ_*
     * @param am       address modes x, y, z (CUaddress_mode)
     * @param filter   0 point, 1 linear
     * @param flags    CU_TRSF_* flags
     * @param border   border colour, float bits
     * @param grid     grid dimensions
     * @param block    block dimensions
     * @param dynSmem  dynamic shared memory, bytes
     * @param outWords 32-bit words each thread writes (ignored when readback)
     * @param readback whether the output is the array read back after the kernel (surface stores)
     * @param ptx      the module
     * @param texels   texel data, rows packed ({@code w * elementSize} bytes each)
     * @param args     eight words per thread
     */
    public record Case(String name, int res, int dims, int w, int h, int d, int format, int channels, int obj, int[] am,
                       int filter, int flags, int[] border, int[] grid, int[] block, int dynSmem, int outWords,
                       boolean readback, String ptx, byte[] texels, int[] args) {
        public int threads() {
            return grid[0] * grid[1] * grid[2] * block[0] * block[1] * block[2];
        }

        /** Bytes of one texel. */
        public int elementSize() {
            return formatSize(format) * channels;
        }

        /** Bytes the case outputs. */
        public int outBytes() {
            return readback ? texels.length : threads() * outWords * 4;
        }

        /** The line of {@code cases.txt} the harness reads. */
        public String line() {
            return String.join(" ", name, "" + res, "" + dims, "" + w, "" + h, "" + d, "" + format, "" + channels, "" + obj,
                    "" + am[0], "" + am[1], "" + am[2], "" + filter, "" + flags,
                    Integer.toUnsignedString(border[0]), Integer.toUnsignedString(border[1]), Integer.toUnsignedString(border[2]), Integer.toUnsignedString(border[3]),
                    "" + grid[0], "" + grid[1], "" + grid[2], "" + block[0], "" + block[1], "" + block[2], "" + dynSmem,
                    "" + (readback ? 1 : 0), "" + outBytes(), "" + PITCH);
        }
    }

    /** Bytes of one channel of a CUarray_format. */
    public static int formatSize(int format) {
        return switch (format) {
            case U8, S8 -> 1;
            case U16, S16, HALF -> 2;
            default -> 4;
        };
    }

    private static final List<Case> CASES = new ArrayList<>();

    /** Every case, in recording order. */
    public static List<Case> cases() {
        if (CASES.isEmpty()) build();
        return CASES;
    }

    // ------------------------------------------------------------------ PTX

    private static final String HEAD = """
            .version 9.0
            .target sm_90
            .address_size 64
            """;

    /** A kernel: loads the thread's 8 argument words into %r0..%r7, runs body, stores %o0..%o(n-1). */
    private static String kernel(String decls, String body, int outWords) {
        StringBuilder sb = new StringBuilder(HEAD);
        sb.append(decls);
        sb.append("""
                .visible .entry k(.param .u64 obj, .param .u64 args, .param .u64 out)
                {
                    .reg .b32 %r<8>;
                    .reg .b32 %o<40>;
                    .reg .b32 %t<16>;
                    .reg .f32 %f<8>;
                    .reg .b64 %rd<16>;
                    .reg .pred %p<8>;
                    ld.param.u64 %rd0, [obj];
                    ld.param.u64 %rd1, [args];
                    ld.param.u64 %rd2, [out];
                    mov.u32 %t0, %tid.x;
                    mov.u32 %t1, %ctaid.x;
                    mov.u32 %t2, %ntid.x;
                    mad.lo.u32 %t3, %t1, %t2, %t0;
                    mul.wide.u32 %rd3, %t3, 32;
                    add.u64 %rd4, %rd1, %rd3;
                    ld.global.v4.b32 {%r0, %r1, %r2, %r3}, [%rd4];
                    ld.global.v4.b32 {%r4, %r5, %r6, %r7}, [%rd4+16];
                """);
        for (int i = 0; i < outWords; i++) sb.append("    mov.b32 %o").append(i).append(", 0;\n");
        sb.append(body.indent(4));
        sb.append("    mul.wide.u32 %rd5, %t3, ").append(4 * outWords).append(";\n");
        sb.append("    add.u64 %rd6, %rd2, %rd5;\n");
        for (int i = 0; i < outWords; i++) sb.append("    st.global.b32 [%rd6+").append(4 * i).append("], %o").append(i).append(";\n");
        sb.append("    ret;\n}\n");
        return sb.toString();
    }

    private static String coords(int dims, boolean f32) {
        String p = f32 ? "%f" : "%r";
        return switch (dims) {
            case 1 -> "{" + p + "0}";
            case 2 -> "{" + p + "0, " + p + "1}";
            default -> "{" + p + "0, " + p + "1, " + p + "2, " + p + "3}";
        };
    }

    private static final String F_COORDS = "mov.b32 %f0, %r0;\nmov.b32 %f1, %r1;\nmov.b32 %f2, %r2;\nmov.b32 %f3, %r3;\n";

    /** tex.{1d,2d,3d}.v4.dtype.ctype. */
    private static String texKernel(int dims, String dtype, boolean fcoord) {
        String body = (fcoord ? F_COORDS : "") + "tex." + dims + "d.v4." + dtype + "." + (fcoord ? "f32" : "s32")
                + " {%o0, %o1, %o2, %o3}, [%rd0, " + coords(dims, fcoord) + "];\n";
        return kernel("", body, 4);
    }

    /** tld4.comp.2d.v4.dtype.f32. */
    private static String tld4Kernel(char comp, String dtype) {
        String body = F_COORDS + "tld4." + comp + ".2d.v4." + dtype + ".f32 {%o0, %o1, %o2, %o3}, [%rd0, {%f0, %f1}];\n";
        return kernel("", body, 4);
    }

    /** suld.b.{1d,2d}{.v2,.v4}.btype.mode; x coordinate in bytes. */
    private static String suldKernel(int dims, int vec, String btype, String mode) {
        String v = vec == 1 ? "" : ".v" + vec;
        String dst = btype.equals(".b64") ? (vec == 1 ? "%rd8" : "{%rd8, %rd9}") : vec == 1 ? "%o0" : vec == 2 ? "{%o0, %o1}" : "{%o0, %o1, %o2, %o3}";
        String c = dims == 1 ? "{%r0}" : dims == 2 ? "{%r0, %r1}" : "{%r0, %r1, %r2, %r3}";
        String body = "suld.b." + dims + "d" + v + btype + mode + " " + dst + ", [%rd0, " + c + "];\n";
        if (btype.equals(".b64")) body += vec == 1 ? "mov.b64 {%o0, %o1}, %rd8;\n" : "mov.b64 {%o0, %o1}, %rd8;\nmov.b64 {%o2, %o3}, %rd9;\n";
        if (btype.equals(".b16")) {
            // 16-bit registers
            String d16 = vec == 1 ? "%h0" : vec == 2 ? "{%h0, %h1}" : "{%h0, %h1, %h2, %h3}";
            body = "suld.b." + dims + "d" + v + btype + mode + " " + d16 + ", [%rd0, " + c + "];\n";
            for (int i = 0; i < vec; i++) body += "cvt.u32.u16 %o" + i + ", %h" + i + ";\n";
            return kernel("", ".reg .b16 %h<4>;\n" + body, 4);
        }
        return kernel("", body, 4);
    }

    /** sust.b.{1d,2d}{.v2,.v4}.btype.mode, values from words 4-7. */
    private static String sustKernel(int dims, int vec, String btype, String mode) {
        String v = vec == 1 ? "" : ".v" + vec;
        String c = dims == 1 ? "{%r0}" : dims == 2 ? "{%r0, %r1}" : "{%r0, %r1, %r2, %r3}";
        String src = vec == 1 ? "%r4" : vec == 2 ? "{%r4, %r5}" : "{%r4, %r5, %r6, %r7}";
        String pre = "";
        if (btype.equals(".b16")) {
            pre = ".reg .b16 %h<4>;\n";
            for (int i = 0; i < vec; i++) pre += "cvt.u16.u32 %h" + i + ", %r" + (4 + i) + ";\n";
            src = vec == 1 ? "%h0" : vec == 2 ? "{%h0, %h1}" : "{%h0, %h1, %h2, %h3}";
        }
        if (btype.equals(".b64")) {
            // 64-bit values from word pairs 4-5 and 6-7
            pre = "mov.b64 %rd8, {%r4, %r5};\nmov.b64 %rd9, {%r6, %r7};\n";
            src = vec == 1 ? "%rd8" : "{%rd8, %rd9}";
        }
        String body = pre + "sust.b." + dims + "d" + v + btype + mode + " [%rd0, " + c + "], " + src + ";\n";
        return kernel("", body, 0);
    }

    // ------------------------------------------------------------------ data

    private static SplittableRandom rng(String name) {
        return new SplittableRandom(Conformance.SEED ^ (long) name.hashCode() * 0x9E3779B97F4A7C15L ^ 0x7E47L);
    }

    private static byte[] texels(SplittableRandom r, int n, int format, int channels) {
        int cs = formatSize(format);
        ByteBuffer b = ByteBuffer.allocate(n * channels * cs).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < n * channels; i++) {
            switch (format) {
                case FLOAT -> b.putFloat((float) ((r.nextDouble() - 0.5) * 8) * (r.nextInt(8) == 0 ? 1e-3f : 1f));
                case HALF -> b.putShort(Float.floatToFloat16((float) ((r.nextDouble() - 0.5) * 8)));
                case U8, S8 -> b.put((byte) (i < 8 ? new int[] {0, 255, 128, 127, 1, 0x80, 0x81, 0xFE}[i] : r.nextInt(256)));
                case U16, S16 -> b.putShort((short) (i < 8 ? new int[] {0, 0xFFFF, 0x8000, 0x7FFF, 1, 0x8001, 0xFFFE, 0x100}[i] : r.nextInt(65536)));
                default -> b.putInt(r.nextInt());
            }
        }
        return b.array();
    }

    /** A float coordinate along an axis of n texels: edges, texel centres, fine fractions, random; unnormalized or normalized. */
    private static float coord(SplittableRandom r, int n, boolean normalized, int i) {
        float u;
        switch (i % 8) {
            case 0 -> u = r.nextInt(n + 1); // texel boundary
            case 1 -> u = r.nextInt(n) + 0.5f; // centre
            case 2 -> u = r.nextInt(n) + r.nextInt(512) / 512f; // fine fractions
            case 3 -> u = r.nextInt(n) + r.nextInt(256) / 256f + (r.nextBoolean() ? 1 : -1) * r.nextInt(4) / 65536f;
            case 4 -> u = (float) ((r.nextDouble() * 3 - 1) * n); // far outside
            case 5 -> u = (float) (r.nextDouble() * n);
            case 6 -> u = new float[] {-0.5f, -0.25f, 0f, 0.25f, n - 0.5f, n - 0.25f, n, n + 0.25f, -1e-7f, 1e-7f}[r.nextInt(10)];
            default -> u = (float) ((r.nextDouble() * 1.4 - 0.2) * n);
        }
        if (i == 61) u = Float.NaN;
        if (i == 62) u = Float.POSITIVE_INFINITY;
        if (i == 63) u = Float.NEGATIVE_INFINITY;
        return normalized && Float.isFinite(u) ? u / n : u;
    }

    private static void add(String name, int res, int dims, int w, int h, int d, int format, int channels, int obj, int[] am,
                            int filter, int flags, float[] border, int threads, int outWords, boolean readback, String ptx,
                            java.util.function.BiFunction<SplittableRandom, Integer, int[]> arg) {
        SplittableRandom r = rng(name);
        byte[] tex = res == RES_NONE ? new byte[0] : texels(r, w * h * d, format, channels);
        int[] args = new int[threads * 8];
        for (int i = 0; i < threads; i++) {
            int[] a = arg.apply(r, i);
            System.arraycopy(a, 0, args, 8 * i, a.length);
        }
        int[] b = new int[4];
        for (int i = 0; i < 4; i++) b[i] = Float.floatToRawIntBits(border == null ? 0 : border[i]);
        int bx = Math.min(threads, 64);
        CASES.add(new Case(name, res, dims, w, h, d, format, channels, obj, am, filter, flags, b, new int[] {threads / bx, 1, 1},
                new int[] {bx, 1, 1}, 0, outWords, readback, ptx, tex, args));
    }

    private static final float[] BORDER_COLOR = {0.25f, -1.5f, 3.0f, 0.75f};

    private static String amName(int m) {
        return switch (m) {
            case WRAP -> "wrap";
            case CLAMP -> "clamp";
            case MIRROR -> "mirror";
            default -> "border";
        };
    }

    private static String fmtName(int f) {
        return switch (f) {
            case U8 -> "u8";
            case U16 -> "u16";
            case U32 -> "u32";
            case S8 -> "s8";
            case S16 -> "s16";
            case S32 -> "s32";
            case HALF -> "f16";
            default -> "f32";
        };
    }

    /** A texture-fetch case on a CUDA array with float coordinates. */
    private static void tex(int dims, int w, int h, int d, int format, int ch, int am, int filter, int flags, String dtype, int threads) {
        boolean norm = (flags & NORMALIZED) != 0;
        String name = "tex." + dims + "d." + fmtName(format) + "x" + ch + "." + amName(am) + (filter == 1 ? ".linear" : ".point")
                + (norm ? ".norm" : "") + ((flags & READ_AS_INTEGER) != 0 ? ".elem" : "") + ((flags & SRGB) != 0 ? ".srgb" : "") + "." + dtype.substring(0, 3);
        int[] size = {w, h, d};
        add(name, RES_ARRAY, dims, w, h, d, format, ch, OBJ_TEX, new int[] {am, am, am}, filter, flags, BORDER_COLOR, threads, 4, false,
                texKernel(dims, dtype, true), (r, i) -> {
                    int[] a = new int[8];
                    for (int k = 0; k < dims; k++) a[k] = Float.floatToRawIntBits(coord(r, size[k], norm, (i + 5 * k) % 61));
                    if (i % 64 >= 61) a[0] = Float.floatToRawIntBits(coord(r, w, norm, i % 64));
                    return a;
                });
    }

    private static void build() {
        int n = 128;
        // 1D float arrays: every address mode, point and linear, unnormalized and normalized
        for (int filter = 0; filter < 2; filter++) {
            for (int am : new int[] {CLAMP, BORDER}) tex(1, 13, 1, 1, FLOAT, 1, am, filter, 0, "f32", n);
            for (int am : new int[] {WRAP, CLAMP, MIRROR, BORDER}) tex(1, 13, 1, 1, FLOAT, 1, am, filter, NORMALIZED, "f32", n);
        }
        // 2D float4
        for (int filter = 0; filter < 2; filter++) {
            for (int am : new int[] {CLAMP, BORDER, WRAP}) tex(2, 8, 6, 1, FLOAT, 4, am, filter, 0, "f32", n);
            for (int am : new int[] {WRAP, CLAMP, MIRROR, BORDER}) tex(2, 8, 6, 1, FLOAT, 4, am, filter, NORMALIZED, "f32", n);
        }
        // filtering probes: fine sweeps over a 1D texture with chosen texels (weights show directly)
        for (int norm = 0; norm < 2; norm++) {
            int w = norm == 0 ? 4 : 13, threads = norm == 0 ? 4864 : 8448;
            boolean nz = norm != 0;
            String name = "tex.1d.f32x1.clamp.linear" + (nz ? ".norm" : "") + ".sweep";
            add(name, RES_ARRAY, 1, w, 1, 1, FLOAT, 1, OBJ_TEX, new int[] {CLAMP, CLAMP, CLAMP}, 1, nz ? NORMALIZED : 0, BORDER_COLOR, threads, 4, false,
                    texKernel(1, "f32", true), (r, i) -> new int[] {Float.floatToRawIntBits(nz ? (i - 128) / 8192f : (i - 128) / 1024f)});
            byte[] t = CASES.getLast().texels();
            ByteBuffer b = ByteBuffer.wrap(t).order(ByteOrder.LITTLE_ENDIAN);
            float[] v = {0f, 1f, -3.7f, 100000.3f, 0f, 1f, 0.1f, -0.1f, 7f, 1e-30f, 2f, 1f, 1.0000001f};
            for (int k = 0; k < w; k++) b.putFloat(4 * k, v[k]);
        }
        // 3D float2
        for (int filter = 0; filter < 2; filter++) {
            tex(3, 5, 4, 3, FLOAT, 2, CLAMP, filter, 0, "f32", n);
            tex(3, 5, 4, 3, FLOAT, 2, WRAP, filter, NORMALIZED, "f32", n);
            tex(3, 5, 4, 3, FLOAT, 2, BORDER, filter, NORMALIZED, "f32", n);
        }
        // 8- and 16-bit formats read as normalized floats, and as their element type
        for (int filter = 0; filter < 2; filter++) {
            tex(2, 7, 5, 1, U8, 4, CLAMP, filter, 0, "f32", n);
            tex(2, 7, 5, 1, U8, 4, WRAP, filter, NORMALIZED, "f32", n);
            tex(2, 7, 5, 1, U8, 4, CLAMP, filter, SRGB, "f32", n);
            tex(2, 7, 5, 1, S8, 2, CLAMP, filter, 0, "f32", n);
            tex(2, 7, 5, 1, U16, 1, CLAMP, filter, 0, "f32", n);
            tex(2, 7, 5, 1, S16, 4, MIRROR, filter, NORMALIZED, "f32", n);
            tex(2, 7, 5, 1, HALF, 4, CLAMP, filter, 0, "f32", n);
            tex(1, 9, 1, 1, U8, 1, BORDER, filter, 0, "f32", n);
        }
        tex(2, 7, 5, 1, U8, 4, CLAMP, 0, READ_AS_INTEGER, "u32", n);
        tex(2, 7, 5, 1, S8, 2, BORDER, 0, READ_AS_INTEGER, "s32", n);
        tex(2, 7, 5, 1, U16, 1, CLAMP, 0, READ_AS_INTEGER, "u32", n);
        tex(2, 7, 5, 1, S16, 4, WRAP, 0, READ_AS_INTEGER | NORMALIZED, "s32", n);
        tex(2, 7, 5, 1, U32, 1, CLAMP, 0, READ_AS_INTEGER, "u32", n);
        tex(2, 7, 5, 1, S32, 2, BORDER, 0, READ_AS_INTEGER, "s32", n);
        tex(1, 9, 1, 1, S32, 4, CLAMP, 0, READ_AS_INTEGER, "s32", n);

        // integer coordinates on arrays (unnormalized texel indices)
        for (int am : new int[] {CLAMP, BORDER}) {
            String name = "tex.2d.f32x4." + amName(am) + ".point.s32coord";
            add(name, RES_ARRAY, 2, 8, 6, 1, FLOAT, 4, OBJ_TEX, new int[] {am, am, am}, 0, 0, BORDER_COLOR, n, 4, false,
                    texKernel(2, "f32", false), (r, i) -> new int[] {r.nextInt(14) - 3, i == 5 ? Integer.MIN_VALUE : r.nextInt(10) - 2});
        }
        // linear memory (tex1Dfetch) and pitched 2D memory
        add("tex.linear.f32x1.s32coord", RES_LINEAR, 1, 40, 1, 1, FLOAT, 1, OBJ_TEX, new int[] {CLAMP, CLAMP, CLAMP}, 0, 0, null, n, 4, false,
                texKernel(1, "f32", false), (r, i) -> new int[] {i < 40 ? i : r.nextInt(60) - 10});
        add("tex.linear.u8x4.s32coord", RES_LINEAR, 1, 40, 1, 1, U8, 4, OBJ_TEX, new int[] {CLAMP, CLAMP, CLAMP}, 0, 0, null, n, 4, false,
                texKernel(1, "f32", false), (r, i) -> new int[] {i < 40 ? i : r.nextInt(60) - 10});
        add("tex.linear.s16x2.elem.s32coord", RES_LINEAR, 1, 40, 1, 1, S16, 2, OBJ_TEX, new int[] {CLAMP, CLAMP, CLAMP}, 0, READ_AS_INTEGER, null, n, 4, false,
                texKernel(1, "s32", false), (r, i) -> new int[] {i < 40 ? i : r.nextInt(60) - 10});
        for (int filter = 0; filter < 2; filter++) {
            for (int[] m : new int[][] {{CLAMP, 0}, {WRAP, NORMALIZED}, {BORDER, 0}}) {
                String name = "tex.pitch2d.f32x1." + amName(m[0]) + (filter == 1 ? ".linear" : ".point") + (m[1] != 0 ? ".norm" : "");
                boolean norm = m[1] != 0;
                add(name, RES_PITCH2D, 2, 10, 7, 1, FLOAT, 1, OBJ_TEX, new int[] {m[0], m[0], m[0]}, filter, m[1], BORDER_COLOR, n, 4, false,
                        texKernel(2, "f32", true), (r, i) -> new int[] {Float.floatToRawIntBits(coord(r, 10, norm, i % 61)), Float.floatToRawIntBits(coord(r, 7, norm, (i + 1) % 61))});
            }
        }
        // tld4 (texture gather)
        for (char comp : new char[] {'r', 'g', 'b', 'a'}) {
            String name = "tld4." + comp + ".2d.f32x4.clamp";
            add(name, RES_ARRAY, 2, 8, 6, 1, FLOAT, 4, OBJ_TEX, new int[] {CLAMP, CLAMP, CLAMP}, 0, 0, BORDER_COLOR, n, 4, false,
                    tld4Kernel(comp, "f32"), (r, i) -> new int[] {Float.floatToRawIntBits(coord(r, 8, false, i % 61)), Float.floatToRawIntBits(coord(r, 6, false, (i + 2) % 61))});
        }
        int[][] tld4 = {{U8, 4, WRAP, NORMALIZED, 'g'}, {FLOAT, 2, BORDER, 0, 'r'}, {FLOAT, 1, MIRROR, NORMALIZED, 'r'}, {U32, 1, CLAMP, READ_AS_INTEGER, 'r'}, {FLOAT, 1, CLAMP, 0, 'a'}};
        for (int[] t : tld4) {
            boolean norm = (t[3] & NORMALIZED) != 0;
            String dtype = t[0] == U32 ? "u32" : "f32";
            String name = "tld4." + (char) t[4] + ".2d." + fmtName(t[0]) + "x" + t[1] + "." + amName(t[2]) + (norm ? ".norm" : "") + "." + dtype;
            add(name, RES_ARRAY, 2, 7, 5, 1, t[0], t[1], OBJ_TEX, new int[] {t[2], t[2], t[2]}, 0, t[3], BORDER_COLOR, n, 4, false,
                    tld4Kernel((char) t[4], dtype), (r, i) -> new int[] {Float.floatToRawIntBits(coord(r, 7, norm, i % 61)), Float.floatToRawIntBits(coord(r, 5, norm, (i + 2) % 61))});
        }

        // surfaces: loads
        Object[][] sl = {
                {1, 1, ".b32", FLOAT, 1}, {2, 4, ".b32", FLOAT, 4}, {2, 1, ".b8", U8, 1}, {2, 2, ".b16", U16, 2}, {2, 2, ".b32", FLOAT, 2},
                {2, 1, ".b64", U32, 2}, {1, 4, ".b16", S16, 4}, {2, 2, ".b8", U8, 2}};
        for (Object[] s : sl) {
            int dims = (Integer) s[0], vec = (Integer) s[1], fmt = (Integer) s[3], ch = (Integer) s[4];
            String bt = (String) s[2];
            for (String mode : new String[] {".trap", ".clamp", ".zero"}) {
                int w = 9, h = dims == 1 ? 1 : 5, es = formatSize(fmt) * ch;
                String name = "suld.b." + dims + "d" + (vec == 1 ? "" : ".v" + vec) + bt + mode + "." + fmtName(fmt) + "x" + ch;
                boolean inRange = mode.equals(".trap");
                add(name, RES_ARRAY, dims, w, h, 1, fmt, ch, OBJ_SURF, new int[] {0, 0, 0}, 0, 0, null, 64, 4, false,
                        suldKernel(dims, vec, bt, mode), (r, i) -> {
                            int x = r.nextInt(w), y = r.nextInt(h);
                            if (!inRange && i % 3 == 0) x = new int[] {-1, -2, w, w + 3, -100}[r.nextInt(5)];
                            if (!inRange && dims == 2 && i % 4 == 1) y = new int[] {-1, h, h + 2}[r.nextInt(3)];
                            return new int[] {x * es, y};
                        });
            }
        }
        // surfaces: stores (output is the array read back)
        Object[][] ss = {{2, 4, ".b32", FLOAT, 4}, {1, 1, ".b32", FLOAT, 1}, {2, 1, ".b8", U8, 1}, {2, 2, ".b16", U16, 2}, {1, 2, ".b32", S32, 2}};
        for (Object[] s : ss) {
            int dims = (Integer) s[0], vec = (Integer) s[1], fmt = (Integer) s[3], ch = (Integer) s[4];
            String bt = (String) s[2];
            for (String mode : new String[] {".trap", ".clamp", ".zero"}) {
                int w = dims == 1 ? 48 : 11, h = dims == 1 ? 1 : 6, es = formatSize(fmt) * ch;
                String name = "sust.b." + dims + "d" + (vec == 1 ? "" : ".v" + vec) + bt + mode + "." + fmtName(fmt) + "x" + ch;
                // distinct targets: no two threads store to the same texel (after clamping)
                SplittableRandom pr = rng(name + "/targets");
                List<int[]> plan = new ArrayList<>();
                Set<Long> used = new HashSet<>();
                int threads = 32;
                while (plan.size() < threads) {
                    int x = pr.nextInt(w), y = pr.nextInt(h);
                    if (!mode.equals(".trap") && pr.nextInt(3) == 0) {
                        x = new int[] {-1, -3, w, w + 2}[pr.nextInt(4)];
                        if (dims == 2 && pr.nextBoolean()) y = new int[] {-1, h, h + 5}[pr.nextInt(3)];
                    }
                    int cx = Math.clamp(x, 0, w - 1), cy = Math.clamp(y, 0, h - 1);
                    boolean oob = cx != x || cy != y;
                    long key = mode.equals(".zero") && oob ? -1L - plan.size() : (long) cy * w + cx;
                    if (!used.add(key)) continue;
                    plan.add(new int[] {x * es, y});
                }
                add(name, RES_ARRAY, dims, w, h, 1, fmt, ch, OBJ_SURF, new int[] {0, 0, 0}, 0, 0, null, threads, 0, true,
                        sustKernel(dims, vec, bt, mode), (r, i) -> new int[] {plan.get(i)[0], plan.get(i)[1], 0, 0, r.nextInt(), r.nextInt(), r.nextInt(), r.nextInt()});
            }
        }
        launchState();
        filterProbes();
        secondProbes();
        formCoverage();
    }

    /**
     * One case for each texture and surface instruction form the emulator's translator takes that no case above
     * uses (so that every such form is checked against the H200: {@code tex} of every geometry, result and
     * coordinate type, {@code tld4} of every component and result type, {@code suld.b}/{@code sust.b} of every
     * geometry, vector width, size and out-of-range mode): named {@code cover.<form>}.
     */
    private static void formCoverage() {
        Set<String> used = new HashSet<>();
        java.util.regex.Pattern ins = java.util.regex.Pattern.compile("\\b((?:tex|tld4|suld|sust)\\.[a-z0-9.]+)\\s");
        for (Case c : CASES) {
            java.util.regex.Matcher m = ins.matcher(c.ptx());
            while (m.find()) used.add(m.group(1));
        }
        int n = 64;
        for (int dims = 1; dims <= 3; dims++) {
            for (String dtype : new String[] {"f32", "s32", "u32"}) {
                for (boolean fc : new boolean[] {true, false}) {
                    String form = "tex." + dims + "d.v4." + dtype + "." + (fc ? "f32" : "s32");
                    if (!used.add(form)) continue;
                    int w = 7, h = dims >= 2 ? 5 : 1, d = dims == 3 ? 3 : 1;
                    int fmt = dtype.equals("f32") ? FLOAT : dtype.equals("s32") ? S32 : U32;
                    int flags = dtype.equals("f32") ? 0 : READ_AS_INTEGER;
                    int[] size = {w, h, d};
                    int nd = dims;
                    add("cover." + form, RES_ARRAY, dims, w, h, d, fmt, 4, OBJ_TEX, new int[] {CLAMP, CLAMP, CLAMP}, 0, flags, BORDER_COLOR, n, 4, false,
                            texKernel(dims, dtype, fc), (r, i) -> {
                                int[] a = new int[8];
                                for (int k = 0; k < nd; k++) a[k] = fc ? Float.floatToRawIntBits(coord(r, size[k], false, (i + 3 * k) % 61)) : r.nextInt(size[k] + 4) - 2;
                                return a;
                            });
                }
            }
        }
        for (char comp : new char[] {'r', 'g', 'b', 'a'}) {
            for (String dtype : new String[] {"f32", "s32", "u32"}) {
                String form = "tld4." + comp + ".2d.v4." + dtype + ".f32";
                if (!used.add(form)) continue;
                int fmt = dtype.equals("f32") ? FLOAT : dtype.equals("s32") ? S32 : U32;
                add("cover." + form, RES_ARRAY, 2, 7, 5, 1, fmt, 4, OBJ_TEX, new int[] {CLAMP, CLAMP, CLAMP}, 0, dtype.equals("f32") ? 0 : READ_AS_INTEGER, BORDER_COLOR,
                        n, 4, false, tld4Kernel(comp, dtype), (r, i) -> new int[] {Float.floatToRawIntBits(coord(r, 7, false, i % 61)),
                                Float.floatToRawIntBits(coord(r, 5, false, (i + 2) % 61))});
            }
        }
        for (int dims = 1; dims <= 3; dims++) {
            for (int vec : new int[] {1, 2, 4}) {
                for (String bt : new String[] {".b8", ".b16", ".b32", ".b64"}) {
                    if (bt.equals(".b64") && vec == 4) continue; // 32 bytes: more than a texel holds
                    int fmt = switch (bt) {
                        case ".b8" -> U8;
                        case ".b16" -> U16;
                        case ".b32" -> FLOAT;
                        default -> U32;
                    };
                    int ch = bt.equals(".b64") ? 2 * vec : vec;
                    // room for 32 distinct store targets in every geometry
                    int w = dims == 1 ? 48 : 11, h = dims >= 2 ? 6 : 1, d = dims == 3 ? 3 : 1, es = formatSize(fmt) * ch;
                    for (String mode : new String[] {".trap", ".clamp", ".zero"}) {
                        String sfx = dims + "d" + (vec == 1 ? "" : ".v" + vec) + bt + mode;
                        String lf = "suld.b." + sfx;
                        int nd = dims;
                        if (used.add(lf)) {
                            boolean inRange = mode.equals(".trap");
                            add("cover." + lf, RES_ARRAY, dims, w, h, d, fmt, ch, OBJ_SURF, new int[] {0, 0, 0}, 0, 0, null, n, 4, false,
                                    suldKernel(dims, vec, bt, mode), (r, i) -> {
                                        int x = r.nextInt(w), y = r.nextInt(h), z = r.nextInt(d);
                                        if (!inRange && i % 3 == 0) x = new int[] {-1, -2, w, w + 3}[r.nextInt(4)];
                                        if (!inRange && nd >= 2 && i % 4 == 1) y = new int[] {-1, h, h + 2}[r.nextInt(3)];
                                        if (!inRange && nd == 3 && i % 5 == 2) z = new int[] {-1, d}[r.nextInt(2)];
                                        return new int[] {x * es, y, z, 0};
                                    });
                        }
                        String sf = "sust.b." + sfx;
                        if (used.add(sf)) {
                            SplittableRandom pr = rng("cover." + sf + "/targets");
                            List<int[]> plan = new ArrayList<>();
                            Set<Long> taken = new HashSet<>();
                            int threads = 32;
                            while (plan.size() < threads) {
                                int x = pr.nextInt(w), y = pr.nextInt(h), z = pr.nextInt(d);
                                if (!mode.equals(".trap") && pr.nextInt(3) == 0) x = new int[] {-1, -3, w, w + 2}[pr.nextInt(4)];
                                int cx = Math.clamp(x, 0, w - 1);
                                boolean oob = cx != x;
                                long key = mode.equals(".zero") && oob ? -1L - plan.size() : ((long) z * h + y) * w + cx;
                                if (!taken.add(key)) continue;
                                plan.add(new int[] {x * es, y, z});
                            }
                            add("cover." + sf, RES_ARRAY, dims, w, h, d, fmt, ch, OBJ_SURF, new int[] {0, 0, 0}, 0, 0, null, threads, 0, true,
                                    sustKernel(dims, vec, bt, mode), (r, i) -> new int[] {plan.get(i)[0], plan.get(i)[1], plan.get(i)[2], 0, r.nextInt(), r.nextInt(),
                                            r.nextInt(), r.nextInt()});
                        }
                    }
                }
            }
        }
    }

    /** Special registers, cp.async and mbarrier cases (no texture). */
    private static void launchState() {
        // special registers: bit-comparable values, and 0/1 flags for invariants of the others
        String sregs = """
                mov.u32 %o0, %tid.x;
                mov.u32 %o1, %tid.y;
                mov.u32 %o2, %tid.z;
                mov.u32 %o3, %ntid.x;
                mov.u32 %o4, %ntid.y;
                mov.u32 %o5, %ntid.z;
                mov.u32 %o6, %ctaid.x;
                mov.u32 %o7, %ctaid.y;
                mov.u32 %o8, %ctaid.z;
                mov.u32 %o9, %nctaid.x;
                mov.u32 %o10, %nctaid.y;
                mov.u32 %o11, %nctaid.z;
                mov.u32 %o12, %laneid;
                mov.u32 %t4, %warpid;
                mov.u32 %o14, %nwarpid;
                setp.lt.u32 %p0, %t4, %o14;
                selp.u32 %o13, 1, 0, %p0;
                mov.u32 %t5, %smid;
                mov.u32 %o16, %nsmid;
                setp.lt.u32 %p0, %t5, %o16;
                selp.u32 %o15, 1, 0, %p0;
                mov.u64 %rd8, %gridid;
                mov.u32 %o18, %lanemask_eq;
                mov.u32 %o19, %lanemask_le;
                mov.u32 %o20, %lanemask_lt;
                mov.u32 %o21, %lanemask_ge;
                mov.u32 %o22, %lanemask_gt;
                mov.u32 %o23, %dynamic_smem_size;
                mov.u32 %o24, %total_smem_size;
                mov.u64 %rd9, %clock64;
                mov.u32 %t6, %clock;
                mov.u64 %rd10, %globaltimer;
                st.shared.u32 [buf], %t6;
                mov.u64 %rd11, %clock64;
                mov.u64 %rd12, %globaltimer;
                mov.u32 %t7, %clock;
                setp.gt.u64 %p0, %rd11, %rd9;
                selp.u32 %o25, 1, 0, %p0;
                setp.ge.u64 %p0, %rd12, %rd10;
                setp.ne.and.u64 %p0, %rd10, 0, %p0;
                selp.u32 %o26, 1, 0, %p0;
                sub.u32 %t8, %t7, %t6;
                setp.ne.u32 %p0, %t8, 0;
                selp.u32 %o27, 1, 0, %p0;
                shfl.sync.idx.b32 %t9, %t5, 0, 31, -1;
                setp.eq.u32 %p0, %t9, %t5;
                selp.u32 %o28, 1, 0, %p0;
                mov.b64 {%t10, %t11}, %rd8;
                shfl.sync.idx.b32 %t12, %t10, 0, 31, -1;
                setp.eq.u32 %p0, %t12, %t10;
                selp.u32 %o29, 1, 0, %p0;
                mov.u32 %t13, %warpid;
                setp.eq.u32 %p0, %t13, %t4;
                selp.u32 %o30, 1, 0, %p0;
                mov.u32 %o31, %envreg0;
                """;
        // linear thread index over a 2D block and grid: the head of kernel() uses x only, so the special-register
        // case uses its own index
        String sk = kernel(".shared .align 4 .b8 buf[256];\n", """
                mov.u32 %t0, %tid.x;
                mov.u32 %t1, %tid.y;
                mov.u32 %t2, %ntid.x;
                mad.lo.u32 %t0, %t1, %t2, %t0;
                mov.u32 %t1, %ntid.y;
                mul.lo.u32 %t2, %t2, %t1;
                mov.u32 %t1, %ctaid.y;
                mov.u32 %t4, %nctaid.x;
                mov.u32 %t5, %ctaid.x;
                mad.lo.u32 %t1, %t1, %t4, %t5;
                mad.lo.u32 %t3, %t1, %t2, %t0;
                """ + sregs, 32);
        CASES.add(new Case("sreg.grid3x2.block40x2.dyn1000", RES_NONE, 0, 0, 1, 1, FLOAT, 1, OBJ_NONE, new int[3], 0, 0, new int[4],
                new int[] {3, 2, 1}, new int[] {40, 2, 1}, 1000, 32, false, sk, new byte[0], new int[3 * 2 * 80 * 8]));
        CASES.add(new Case("sreg.grid1.block1024", RES_NONE, 0, 0, 1, 1, FLOAT, 1, OBJ_NONE, new int[3], 0, 0, new int[4],
                new int[] {1, 1, 1}, new int[] {1024, 1, 1}, 0, 32, false, sk, new byte[0], new int[1024 * 8]));
        StringBuilder env = new StringBuilder();
        for (int i = 0; i < 32; i++) env.append("mov.u32 %o").append(i).append(", %envreg").append(i).append(";\n");
        CASES.add(new Case("sreg.envreg", RES_NONE, 0, 0, 1, 1, FLOAT, 1, OBJ_NONE, new int[3], 0, 0, new int[4],
                new int[] {2, 1, 1}, new int[] {32, 1, 1}, 0, 32, false, kernel("", env.toString(), 32), new byte[0], new int[64 * 8]));

        // cp.async: 8 words of shared per thread, prefilled with a pattern, then copies of the thread's own arguments
        String[][] cps = {{".ca", "4"}, {".ca", "8"}, {".ca", "16"}, {".cg", "16"}};
        for (String[] c : cps) {
            int size = Integer.parseInt(c[1]);
            String body = """
                    mov.u32 %t4, sh;
                    shl.b32 %t5, %t0, 5;
                    add.u32 %t4, %t4, %t5;
                    mov.b32 %t6, 0xA5A5A5A5;
                    st.shared.v4.b32 [%t4], {%t6, %t6, %t6, %t6};
                    st.shared.v4.b32 [%t4+16], {%t6, %t6, %t6, %t6};
                    bar.sync 0;
                    and.b32 %t7, %r7, 0xFF;
                    setp.eq.u32 %p1, %r6, 1;
                    cp.async%CA.shared.global [%t4], [%rd4], %N, %t7;
                    cp.async.commit_group;
                    @%p1 bra SKIP;
                    cp.async%CA.shared.global [%t4+16], [%rd4+%N], %N;
                    SKIP:
                    cp.async.commit_group;
                    cp.async.wait_group 1;
                    cp.async.wait_all;
                    bar.sync 0;
                    ld.shared.v4.b32 {%o0, %o1, %o2, %o3}, [%t4];
                    ld.shared.v4.b32 {%o4, %o5, %o6, %o7}, [%t4+16];
                    """.replace("%CA", c[0]).replace("%N", c[1]);
            String name = "cp.async" + c[0] + ".shared.global." + size;
            SplittableRandom r = rng(name);
            int[] args = new int[128 * 8];
            for (int i = 0; i < 128; i++) {
                for (int k = 0; k < 6; k++) args[8 * i + k] = r.nextInt();
                args[8 * i + 6] = r.nextInt(4) == 0 ? 1 : 0;
                // src-size: 0..size (zero fill of the rest); the ISA requires src-size <= cp-size
                args[8 * i + 7] = (r.nextInt() & 0xFFFFFF00) | (i < size + 1 ? i : r.nextInt(size + 1));
            }
            // for 4-byte copies the src-size must be 0 or 4? no: any value <= 4 is allowed
            CASES.add(new Case(name, RES_NONE, 0, 0, 1, 1, FLOAT, 1, OBJ_NONE, new int[3], 0, 0, new int[4],
                    new int[] {2, 1, 1}, new int[] {64, 1, 1}, 0, 8, false, kernel(".shared .align 16 .b8 sh[2048];\n", body, 8), new byte[0], args));
        }
        // cp.async with ignore-src predicate
        {
            String body = """
                    mov.u32 %t4, sh;
                    shl.b32 %t5, %t0, 5;
                    add.u32 %t4, %t4, %t5;
                    mov.b32 %t6, 0x5A5A5A5A;
                    st.shared.v4.b32 [%t4], {%t6, %t6, %t6, %t6};
                    st.shared.v4.b32 [%t4+16], {%t6, %t6, %t6, %t6};
                    bar.sync 0;
                    setp.ne.u32 %p1, %r6, 0;
                    cp.async.cg.shared.global [%t4], [%rd4], 16, %p1;
                    cp.async.commit_group;
                    cp.async.wait_group 0;
                    bar.sync 0;
                    ld.shared.v4.b32 {%o0, %o1, %o2, %o3}, [%t4];
                    ld.shared.v4.b32 {%o4, %o5, %o6, %o7}, [%t4+16];
                    """;
            SplittableRandom r = rng("cp.async.ignore-src");
            int[] args = new int[64 * 8];
            for (int i = 0; i < 64; i++) {
                for (int k = 0; k < 8; k++) args[8 * i + k] = r.nextInt();
                args[8 * i + 6] = r.nextInt(2);
            }
            CASES.add(new Case("cp.async.cg.shared.global.16.ignore-src", RES_NONE, 0, 0, 1, 1, FLOAT, 1, OBJ_NONE, new int[3], 0, 0, new int[4],
                    new int[] {1, 1, 1}, new int[] {64, 1, 1}, 0, 8, false, kernel(".shared .align 16 .b8 sh[2048];\n", body, 8), new byte[0], args));
        }
        // mbarrier: one thread drives a barrier step by step; then the whole CTA arrives on a second one
        String mb = """
                mov.u32 %t4, bars;
                setp.ne.u32 %p7, %t0, 0;
                @%p7 bra ALL;
                mbarrier.init.shared.b64 [%t4], 3;
                mbarrier.arrive.shared.b64 %rd8, [%t4];
                mbarrier.pending_count.b64 %o0, %rd8;
                mbarrier.test_wait.shared.b64 %p0, [%t4], %rd8;
                selp.u32 %o1, 1, 0, %p0;
                mbarrier.arrive.shared.b64 %rd9, [%t4];
                mbarrier.pending_count.b64 %o2, %rd9;
                mbarrier.arrive_drop.shared.b64 %rd10, [%t4];
                mbarrier.pending_count.b64 %o3, %rd10;
                mbarrier.test_wait.shared.b64 %p0, [%t4], %rd8;
                selp.u32 %o4, 1, 0, %p0;
                mbarrier.test_wait.parity.shared.b64 %p0, [%t4], 0;
                selp.u32 %o5, 1, 0, %p0;
                mbarrier.test_wait.parity.shared.b64 %p0, [%t4], 1;
                selp.u32 %o6, 1, 0, %p0;
                mbarrier.arrive.shared.b64 %rd11, [%t4];
                mbarrier.pending_count.b64 %o7, %rd11;
                mbarrier.test_wait.shared.b64 %p0, [%t4], %rd11;
                selp.u32 %o8, 1, 0, %p0;
                mbarrier.arrive.shared.b64 %rd12, [%t4];
                mbarrier.pending_count.b64 %o9, %rd12;
                mbarrier.test_wait.shared.b64 %p0, [%t4], %rd11;
                selp.u32 %o10, 1, 0, %p0;
                mbarrier.try_wait.shared.b64 %p0, [%t4], %rd12;
                selp.u32 %o11, 1, 0, %p0;
                mbarrier.try_wait.parity.shared.b64 %p0, [%t4], 1;
                selp.u32 %o12, 1, 0, %p0;
                mbarrier.arrive.shared.b64 %rd13, [%t4], 2;
                mbarrier.pending_count.b64 %o13, %rd13;
                mbarrier.test_wait.shared.b64 %p0, [%t4], %rd12;
                selp.u32 %o14, 1, 0, %p0;
                mbarrier.init.shared.b64 [%t4+8], 64;
                ALL:
                bar.sync 0;
                mbarrier.arrive.shared.b64 %rd14, [%t4+8];
                mbarrier.pending_count.b64 %t5, %rd14;
                setp.le.u32 %p0, %t5, 64;
                selp.u32 %o15, 1, 0, %p0;
                bar.sync 0;
                mbarrier.test_wait.shared.b64 %p0, [%t4+8], %rd14;
                selp.u32 %o16, 1, 0, %p0;
                mbarrier.try_wait.shared.b64 %p0, [%t4+8], %rd14;
                selp.u32 %o17, 1, 0, %p0;
                mbarrier.test_wait.parity.shared.b64 %p0, [%t4+8], 0;
                selp.u32 %o18, 1, 0, %p0;
                mbarrier.arrive.expect_tx.shared.b64 %rd15, [%t4+16], 0;
                bar.sync 0;
                mbarrier.init.shared.b64 [%t4+24], 64;
                bar.sync 0;
                mbarrier.arrive_drop.shared.b64 %rd15, [%t4+24];
                bar.sync 0;
                mbarrier.test_wait.parity.shared.b64 %p0, [%t4+24], 0;
                selp.u32 %o19, 1, 0, %p0;
                @%p7 bra DONE;
                mbarrier.inval.shared.b64 [%t4];
                DONE:
                """;
        // the expect_tx line above would need a transaction count setup; keep the case to the basics
        mb = mb.replace("mbarrier.arrive.expect_tx.shared.b64 %rd15, [%t4+16], 0;\n", "");
        CASES.add(new Case("mbarrier.basics", RES_NONE, 0, 0, 1, 1, FLOAT, 1, OBJ_NONE, new int[3], 0, 0, new int[4],
                new int[] {1, 1, 1}, new int[] {64, 1, 1}, 0, 24, false, kernel(".shared .align 8 .b64 bars[4];\n", mb, 24), new byte[0], new int[64 * 8]));
    }


    /** Pads a probe's coordinate list to a whole number of 64-thread blocks (repeating its first entry). */
    private static List<float[]> pad64(List<float[]> l) {
        while (l.size() % 64 != 0) l.add(l.getFirst());
        return l;
    }

    private static void probe(String name, int dims, int w, int h, int d, int format, int ch, int am, int filter, int flags, byte[] texels,
                              List<float[]> coords) {
        probe(name, dims, w, h, d, format, ch, am, filter, flags, texels, coords, texKernel(dims, "f32", true));
    }

    private static void probe(String name, int dims, int w, int h, int d, int format, int ch, int am, int filter, int flags, byte[] texels,
                              List<float[]> coords, String ptx) {
        pad64(coords);
        int[] b = new int[4];
        for (int i = 0; i < 4; i++) b[i] = Float.floatToRawIntBits(BORDER_COLOR[i]);
        int[] args = new int[coords.size() * 8];
        for (int i = 0; i < coords.size(); i++) for (int k = 0; k < coords.get(i).length; k++) args[8 * i + k] = Float.floatToRawIntBits(coords.get(i)[k]);
        CASES.add(new Case(name, RES_ARRAY, dims, w, h, d, format, ch, OBJ_TEX, new int[] {am, am, am}, filter, flags, b,
                new int[] {coords.size() / 64, 1, 1}, new int[] {64, 1, 1}, 0, 4, false, ptx, texels, args));
    }

    /**
     * Fine probes of the filter (recorded after the first 125 cases): where normalized coordinates change
     * texel and weight (f32 texels 0..12, so a linear fetch returns {@code i + alpha}), the 3D corner weights
     * (f32x4 texels of 1.0 and 4096.0 at two corners per channel, so each channel returns two weights), and
     * the s8 to 16-bit conversion of the filter (every s8 value at its centre, blends of neighbours).
     */
    private static void filterProbes() {
        ByteBuffer ramp = ByteBuffer.allocate(13 * 4).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < 13; i++) ramp.putFloat(i);
        // linear, normalized: the coordinates nearest to where alpha changes (x*13 - 0.5 = k + (n + 0.5)/256), 48 f32 steps either side
        List<float[]> lin = new ArrayList<>();
        for (int n = 5; n < 3328; n += 69) {
            float x0 = (float) ((2.0 * n + 257) / 6656);
            for (int sign = 0; sign < 2; sign++) {
                float x = x0;
                for (int j = 0; j < 48; j++) x = Math.nextDown(x);
                for (int j = 0; j < 97; j++, x = Math.nextUp(x)) lin.add(new float[] {sign == 0 ? x : x - 1f, 0.5f});
            }
        }
        probe("probe.2d.f32x1.wrap.linear.norm.coord", 2, 13, 1, 1, FLOAT, 1, WRAP, 1, NORMALIZED, ramp.array(), lin);
        // point, normalized: the coordinates nearest to the texel boundaries x = i/13
        List<float[]> pt = new ArrayList<>();
        for (int i = 1; i < 13; i++) {
            for (int sign = 0; sign < 2; sign++) {
                float x = (float) (i / 13.0);
                for (int j = 0; j < 48; j++) x = Math.nextDown(x);
                for (int j = 0; j < 97; j++, x = Math.nextUp(x)) pt.add(new float[] {sign == 0 ? x : x - 1f, 0.5f});
            }
        }
        probe("probe.2d.f32x1.wrap.point.norm.coord", 2, 13, 1, 1, FLOAT, 1, WRAP, 0, NORMALIZED, ramp.array(), pt);
        // 3D weights: corner c = x + 2y + 4z; channel k holds 1.0 at corner 2k and 4096.0 at corner 2k+1
        ByteBuffer cube = ByteBuffer.allocate(8 * 16).order(ByteOrder.LITTLE_ENDIAN);
        for (int c = 0; c < 8; c++) for (int k = 0; k < 4; k++) cube.putFloat(c == 2 * k ? 1f : c == 2 * k + 1 ? 4096f : 0f);
        int[] fr = {0, 1, 2, 3, 4, 7, 8, 15, 16, 31, 32, 63, 64, 65, 96, 127, 128, 129, 160, 191, 192, 224, 240, 255};
        List<float[]> w3 = new ArrayList<>();
        for (int a : fr) for (int b2 : fr) for (int c : fr) w3.add(new float[] {0.5f + (a + 0.25f) / 256, 0.5f + (b2 + 0.25f) / 256, 0.5f + (c + 0.25f) / 256});
        SplittableRandom r = rng("probe.3d");
        while (w3.size() < 16384) w3.add(new float[] {0.5f + (r.nextInt(256) + 0.25f) / 256, 0.5f + (r.nextInt(256) + 0.25f) / 256, 0.5f + (r.nextInt(256) + 0.25f) / 256});
        probe("probe.3d.f32x4.clamp.linear.weights", 3, 2, 2, 2, FLOAT, 4, CLAMP, 1, 0, cube.array(), w3);
        // s8: texel i holds i - 128; every centre, then neighbours blended with several weights
        byte[] s8 = new byte[256];
        for (int i = 0; i < 256; i++) s8[i] = (byte) (i - 128);
        List<float[]> sc = new ArrayList<>();
        for (int i = 0; i < 256; i++) sc.add(new float[] {i + 0.5f, 0.5f});
        for (int a : new int[] {1, 32, 64, 96, 128, 160, 192, 224, 255}) for (int i = 0; i < 255; i++) sc.add(new float[] {i + 0.5f + (a + 0.25f) / 256, 0.5f});
        probe("probe.2d.s8x1.clamp.linear.ramp", 2, 256, 1, 1, S8, 1, CLAMP, 1, 0, s8, sc);
        // s8, random texels and positions (blends of values of either sign)
        SplittableRandom q = rng("probe.s8.mix");
        byte[] mix = new byte[256];
        for (int i = 0; i < 256; i++) mix[i] = (byte) q.nextInt(256);
        List<float[]> mc = new ArrayList<>();
        for (int i = 0; i < 2048; i++) mc.add(new float[] {0.5f + q.nextInt(255) + (q.nextInt(256) + 0.25f) / 256, 0.5f});
        probe("probe.2d.s8x1.clamp.linear.mix", 2, 256, 1, 1, S8, 1, CLAMP, 1, 0, mix, mc);
    }

    /**
     * The second set of probes (recorded after the first 130 cases): every s8 blend {@code S} (texel i holds
     * i - 128, each pair of neighbours with every weight 0..255), the sRGB conversion of every u8 value
     * (point-sampled; r = i, g = 255 - i, b = i + 128 mod 256, a = i) and 2D linear blends of random sRGB
     * texels, and {@code tld4} and point/linear fetches with mirror addressing at and around the mirror seams
     * (normalized coordinates at multiples of 1/8 texel from -2 to 3, and the f32 steps next to each texel
     * boundary and seam), and 3D linear filtering with mirror addressing.
     */
    private static void secondProbes() {
        byte[] s8 = new byte[256];
        for (int i = 0; i < 256; i++) s8[i] = (byte) (i - 128);
        List<float[]> all = new ArrayList<>();
        for (int i = 0; i < 255; i++) for (int a = 0; a < 256; a++) all.add(new float[] {i + 0.5f + (a + 0.25f) / 256, 0.5f});
        probe("probe.2d.s8x1.clamp.linear.all", 2, 256, 1, 1, S8, 1, CLAMP, 1, 0, s8, all);
        byte[] srgb = new byte[256 * 4];
        for (int i = 0; i < 256; i++) {
            srgb[4 * i] = (byte) i;
            srgb[4 * i + 1] = (byte) (255 - i);
            srgb[4 * i + 2] = (byte) (i + 128);
            srgb[4 * i + 3] = (byte) i;
        }
        List<float[]> centres = new ArrayList<>();
        for (int i = 0; i < 256; i++) centres.add(new float[] {i + 0.5f, 0.5f});
        probe("probe.2d.u8x4.clamp.point.srgb.table", 2, 256, 1, 1, U8, 4, CLAMP, 0, SRGB, srgb, centres);
        SplittableRandom q = rng("probe.srgb.mix");
        byte[] mix = new byte[16 * 16 * 4];
        for (int i = 0; i < mix.length; i++) mix[i] = (byte) q.nextInt(256);
        List<float[]> mc = new ArrayList<>();
        for (int i = 0; i < 2048; i++) {
            mc.add(new float[] {0.5f + q.nextInt(15) + (q.nextInt(256) + 0.25f) / 256, 0.5f + q.nextInt(15) + (q.nextInt(256) + 0.25f) / 256});
        }
        probe("probe.2d.u8x4.clamp.linear.srgb.mix", 2, 16, 16, 1, U8, 4, CLAMP, 1, SRGB, mix, mc);
        // mirror seams: a 7 x 5 f32x1 texture holding its texel index (x + 7y), coordinates along x and y around the seams
        ByteBuffer idx = ByteBuffer.allocate(35 * 4).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < 35; i++) idx.putFloat(i);
        List<float[]> seam = new ArrayList<>();
        SplittableRandom sr = rng("probe.mirror.seam");
        for (int k = -16; k <= 24; k++) {
            for (int j = -3; j <= 3; j++) {
                float x = k / 8f;
                for (int s = 0; s < Math.abs(j); s++) x = j < 0 ? Math.nextDown(x) : Math.nextUp(x);
                seam.add(new float[] {x, (sr.nextInt(40) - 10) / 8f + 1 / 64f});
                seam.add(new float[] {(sr.nextInt(40) - 10) / 8f + 1 / 64f, x});
            }
        }
        for (int k = -14; k <= 21; k++) { // texel boundaries x = k / 7 (in every period)
            for (int j = -3; j <= 3; j++) {
                float x = (float) (k / 7.0);
                for (int s = 0; s < Math.abs(j); s++) x = j < 0 ? Math.nextDown(x) : Math.nextUp(x);
                seam.add(new float[] {x, (sr.nextInt(40) - 10) / 8f + 1 / 64f});
            }
        }
        for (int i = 0; i < 512; i++) seam.add(new float[] {(float) (sr.nextDouble() * 5 - 2), (float) (sr.nextDouble() * 5 - 2)});
        List<float[]> seam2 = new ArrayList<>();
        for (float[] c : seam) seam2.add(c.clone());
        List<float[]> seam3 = new ArrayList<>();
        for (float[] c : seam) seam3.add(c.clone());
        probe("probe.tld4.r.2d.f32x1.mirror.norm.seam", 2, 7, 5, 1, FLOAT, 1, MIRROR, 0, NORMALIZED, idx.array(), seam, tld4Kernel('r', "f32"));
        probe("probe.2d.f32x1.mirror.point.norm.seam", 2, 7, 5, 1, FLOAT, 1, MIRROR, 0, NORMALIZED, idx.array(), seam2);
        probe("probe.2d.f32x1.mirror.linear.norm.seam", 2, 7, 5, 1, FLOAT, 1, MIRROR, 1, NORMALIZED, idx.array(), seam3);
        // 3D linear filtering with mirror addressing (the texels at a seam coincide)
        tex(3, 5, 4, 3, FLOAT, 2, MIRROR, 1, NORMALIZED, "f32", 256);
    }

    // ------------------------------------------------------------------ export

    /** Little-endian bytes of the argument words. */
    public static byte[] argBytes(Case c) {
        ByteBuffer b = ByteBuffer.allocate(c.args().length * 4).order(ByteOrder.LITTLE_ENDIAN);
        for (int v : c.args()) b.putInt(v);
        return b.array();
    }

    /** CRC-32 over every case's line, PTX, texels and arguments: identifies the export the data was recorded with. */
    public static long crc() {
        CRC32 crc = new CRC32();
        for (Case c : cases()) {
            crc.update(c.line().getBytes(StandardCharsets.UTF_8));
            crc.update(c.ptx().getBytes(StandardCharsets.UTF_8));
            crc.update(c.texels());
            crc.update(argBytes(c));
        }
        return crc.getValue();
    }

    /**
     * Writes the export the harness reads: {@code cases.txt} (one line per case, see {@link Case#line}),
     * {@code c/NNN.ptx}, {@code c/NNN.tex} (texels), {@code c/NNN.arg} (argument words), {@code crc.txt}.
     * Usage: {@code TextureCases DIR}.
     */
    public static void main(String[] a) throws IOException {
        Path dir = Path.of(a[0]);
        Files.createDirectories(dir.resolve("c"));
        StringBuilder lines = new StringBuilder();
        int i = 0;
        for (Case c : cases()) {
            String id = String.format("%03d", i++);
            lines.append(c.line()).append('\n');
            Files.writeString(dir.resolve("c/" + id + ".ptx"), c.ptx());
            Files.write(dir.resolve("c/" + id + ".tex"), c.texels());
            Files.write(dir.resolve("c/" + id + ".arg"), argBytes(c));
        }
        Files.writeString(dir.resolve("cases.txt"), lines.toString());
        Files.writeString(dir.resolve("crc.txt"), String.format("%08x%n", crc()));
        System.out.println(cases().size() + " cases, crc " + String.format("%08x", crc()));
    }
}

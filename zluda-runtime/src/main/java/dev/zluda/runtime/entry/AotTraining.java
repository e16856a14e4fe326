package dev.zluda.runtime.entry;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;

/**
 * The training run of the driver's AOT cache ({@code dist/lib/driver.aot}, JDK 25's AOT cache, JEP 483/514): the
 * CUDA calls a small driver-API program makes, through the same {@code libcuda.so.1} a program loads, so that the
 * classes they load are the ones a program's JVM finds loaded and linked at start. (The cache keeps no method profiles,
 * JEP 515: those of this one small kernel made the JIT compile other kernels' code worse.)
 *
 * <p>Run at {@code mvn package} (cli/pom.xml) as
 * {@code java -XX:AOTCacheOutput=dist/lib/driver.aot -XX:-AOTRecordTraining <the entry's JVM options> -cp <dist/lib's jars, sorted>
 * dev.zluda.runtime.entry.AotTraining dist/lib/libcuda.so.1}: the JVM is the launcher's, and the native entry, finding
 * it running, enters the driver through it (entry.c), by the same {@code NativeEntry.boot} and upcall stub a program's
 * JVM uses. The calls: {@code cuInit}, device queries, the primary context, a PTX module with one kernel (c = a + b),
 * allocations, copies, launches, synchronisation, unload and release: what a trivial program and a first launch need.
 *
 * <p>Exit status 0 when every call returned CUDA_SUCCESS and the kernel's results are right, 1 otherwise (the build
 * then makes no cache: a cache trained on a failing run would not be wrong, but a failing driver is worth a message).
 */
public final class AotTraining {
    /** The training kernel, c = a + b over n floats (resource aot-training.ptx beside this class). */
    private static String trainingPtx() throws java.io.IOException {
        try (java.io.InputStream in = AotTraining.class.getResourceAsStream("aot-training.ptx")) {
            if (in == null) throw new java.io.IOException("aot-training.ptx is missing from the class path");
            return new String(in.readAllBytes(), java.nio.charset.StandardCharsets.US_ASCII);
        }
    }

    private final Linker linker = Linker.nativeLinker();
    private final SymbolLookup lib;

    private AotTraining(SymbolLookup lib) {
        this.lib = lib;
    }

    /** args[0]: the path of the driver's libcuda.so.1. */
    public static void main(String[] args) throws Throwable {
        if (args.length != 1) {
            System.err.println("usage: AotTraining PATH/TO/libcuda.so.1");
            System.exit(2);
        }
        try (Arena arena = Arena.ofConfined()) {
            new AotTraining(SymbolLookup.libraryLookup(Path.of(args[0]), Arena.global())).run(arena);
        }
        System.out.println("AotTraining: every call returned CUDA_SUCCESS");
    }

    private MethodHandle fn(String name, ValueLayout... params) {
        return linker.downcallHandle(lib.find(name).orElseThrow(() -> new IllegalStateException("no export " + name)),
                FunctionDescriptor.of(ValueLayout.JAVA_INT, params));
    }

    private static void check(String what, int r) {
        if (r != 0) {
            System.err.println("AotTraining: " + what + " returned " + r);
            System.exit(1);
        }
    }

    private void run(Arena arena) throws Throwable {
        var I = ValueLayout.JAVA_INT;
        var L = ValueLayout.JAVA_LONG;
        var A = ValueLayout.ADDRESS;
        MemorySegment out = arena.allocate(256);
        MemorySegment dev = arena.allocate(8);
        check("cuInit", (int) fn("cuInit", I).invokeExact(0));
        check("cuDriverGetVersion", (int) fn("cuDriverGetVersion", A).invokeExact(out));
        check("cuDeviceGetCount", (int) fn("cuDeviceGetCount", A).invokeExact(out));
        check("cuDeviceGet", (int) fn("cuDeviceGet", A, I).invokeExact(dev, 0));
        int d = dev.get(ValueLayout.JAVA_INT, 0);
        check("cuDeviceGetName", (int) fn("cuDeviceGetName", A, I, I).invokeExact(out, 256, d));
        check("cuDeviceTotalMem_v2", (int) fn("cuDeviceTotalMem_v2", A, I).invokeExact(out, d));
        MethodHandle attr = fn("cuDeviceGetAttribute", A, I, I);
        for (int a = 1; a <= 16; a++) check("cuDeviceGetAttribute", (int) attr.invokeExact(out, a, d));
        check("cuDeviceComputeCapability", (int) fn("cuDeviceComputeCapability", A, A, I).invokeExact(out, out.asSlice(8), d));
        MemorySegment ctx = arena.allocate(8);
        check("cuDevicePrimaryCtxRetain", (int) fn("cuDevicePrimaryCtxRetain", A, I).invokeExact(ctx, d));
        MemorySegment c = ctx.get(A, 0);
        check("cuCtxSetCurrent", (int) fn("cuCtxSetCurrent", A).invokeExact(c));
        check("cuCtxGetCurrent", (int) fn("cuCtxGetCurrent", A).invokeExact(out));
        check("cuCtxGetDevice", (int) fn("cuCtxGetDevice", A).invokeExact(out));
        check("cuGetProcAddress_v2", (int) fn("cuGetProcAddress_v2", A, A, I, L, A)
                .invokeExact(arena.allocateFrom("cuMemAlloc"), out, 12000, 0L, MemorySegment.NULL));

        MemorySegment module = arena.allocate(8), function = arena.allocate(8);
        check("cuModuleLoadData", (int) fn("cuModuleLoadData", A, A).invokeExact(module, arena.allocateFrom(trainingPtx())));
        check("cuModuleGetFunction", (int) fn("cuModuleGetFunction", A, A, A)
                .invokeExact(function, module.get(A, 0), arena.allocateFrom("vectorAdd")));
        int n = 1 << 16;
        long bytes = 4L * n;
        MemorySegment ha = arena.allocate(bytes, 4), hb = arena.allocate(bytes, 4), hc = arena.allocate(bytes, 4);
        for (int i = 0; i < n; i++) {
            ha.setAtIndex(ValueLayout.JAVA_FLOAT, i, i);
            hb.setAtIndex(ValueLayout.JAVA_FLOAT, i, 2 * i);
        }
        MethodHandle alloc = fn("cuMemAlloc_v2", A, L);
        MemorySegment ptrs = arena.allocate(3 * 8L + 4, 8);
        for (int k = 0; k < 3; k++) check("cuMemAlloc_v2", (int) alloc.invokeExact(ptrs.asSlice(8L * k), bytes));
        MethodHandle htod = fn("cuMemcpyHtoD_v2", L, A, L);
        check("cuMemcpyHtoD_v2", (int) htod.invokeExact(ptrs.get(L, 0), ha, bytes));
        check("cuMemcpyHtoD_v2", (int) htod.invokeExact(ptrs.get(L, 8), hb, bytes));
        ptrs.set(ValueLayout.JAVA_INT, 24, n);
        MemorySegment params = arena.allocate(4 * 8L, 8);
        for (int k = 0; k < 4; k++) params.setAtIndex(A, k, ptrs.asSlice(8L * k));
        MethodHandle launch = fn("cuLaunchKernel", A, I, I, I, I, I, I, I, A, A, A);
        MethodHandle sync = fn("cuCtxSynchronize");
        MemorySegment f = function.get(A, 0);
        for (int k = 0; k < 3; k++) {
            check("cuLaunchKernel", (int) launch.invokeExact(f, n / 256, 1, 1, 256, 1, 1, 0, MemorySegment.NULL, params, MemorySegment.NULL));
            check("cuCtxSynchronize", (int) sync.invokeExact());
        }
        check("cuMemcpyDtoH_v2", (int) fn("cuMemcpyDtoH_v2", A, L, L).invokeExact(hc, ptrs.get(L, 16), bytes));
        for (int i = 0; i < n; i++) {
            if (hc.getAtIndex(ValueLayout.JAVA_FLOAT, i) != 3f * i) {
                System.err.println("AotTraining: c[" + i + "] = " + hc.getAtIndex(ValueLayout.JAVA_FLOAT, i) + ", expected " + 3f * i);
                System.exit(1);
            }
        }
        MethodHandle free = fn("cuMemFree_v2", L);
        for (int k = 0; k < 3; k++) check("cuMemFree_v2", (int) free.invokeExact(ptrs.get(L, 8L * k)));
        check("cuModuleUnload", (int) fn("cuModuleUnload", A).invokeExact(module.get(A, 0)));
        check("cuDevicePrimaryCtxRelease_v2", (int) fn("cuDevicePrimaryCtxRelease_v2", I).invokeExact(d));
    }
}

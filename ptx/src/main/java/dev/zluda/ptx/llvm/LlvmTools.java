package dev.zluda.ptx.llvm;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * LLVM's command-line tools, run as processes: {@code opt} (the -O2 pipeline), {@code llc} (code generation),
 * {@code ld.lld} (linking an AMDGPU object into a code object, a shared ELF) and {@code llvm-readelf} (reading the
 * code object's metadata notes back). LLVM 22 from Debian 12's security updates ({@code llvm-22}, {@code lld-22}),
 * else LLVM 19 (Debian 12's main archive); the directory is {@code $ZLUDA_LLVM_BIN}, else
 * {@code /usr/lib/llvm-22/bin}, {@code /usr/lib/llvm-19/bin}, else the {@code -22}/{@code -19}-suffixed names in
 * {@code /usr/bin}.
 *
 * <p>Why processes and textual IR rather than a Java binding of the LLVM C API: the tools are the interface Debian
 * packages and keeps stable; a binding would tie the build to one libLLVM's ABI and load it into the JVM for a
 * compile that takes milliseconds. Errors of a tool become an {@link IOException} with its stderr.
 */
public final class LlvmTools {
    private final Path bin;
    private final String suffix;

    private LlvmTools(Path bin, String suffix) {
        this.bin = bin;
        this.suffix = suffix;
    }

    /** The tools of this machine, or {@code null} when {@code llc}, {@code opt} and {@code ld.lld} (LLVM 22 or 19) are not installed. */
    public static LlvmTools find() {
        String env = System.getenv("ZLUDA_LLVM_BIN");
        List<LlvmTools> candidates = new ArrayList<>();
        if (env != null && !env.isEmpty()) candidates.add(new LlvmTools(Path.of(env), ""));
        for (String v : new String[] {"22", "19"}) {
            candidates.add(new LlvmTools(Path.of("/usr/lib/llvm-" + v + "/bin"), ""));
            candidates.add(new LlvmTools(Path.of("/usr/bin"), "-" + v));
        }
        for (LlvmTools t : candidates) {
            if (Files.isExecutable(t.path("llc")) && Files.isExecutable(t.path("opt")) && Files.isExecutable(t.path("ld.lld"))) return t;
        }
        return null;
    }

    /** What {@link #find} looks for, for messages when the tools are missing. */
    public static String missingMessage() {
        return "LLVM tools not found (llc, opt, ld.lld: apt-get install llvm-22 lld-22, or set ZLUDA_LLVM_BIN)";
    }

    /** The first line of {@code llc --version} that names the version, e.g. "Debian LLVM version 22.1.8". */
    public String version() throws IOException {
        for (String l : run(List.of(path("llc").toString(), "--version")).split("\n")) {
            if (l.contains("LLVM version")) return l.strip();
        }
        return "unknown";
    }

    /** The path of a tool ({@code "llc"}, {@code "opt"}, {@code "ld.lld"}, {@code "llvm-readelf"}). */
    public Path path(String tool) {
        return bin.resolve(tool + suffix);
    }

    /**
     * Optimizes and compiles LLVM IR text: for an AMD target into a code object (ELF shared object,
     * {@code .hsaco}, code object v5), for NVPTX into PTX text (as bytes).
     *
     * @throws IOException when a tool fails (its message included)
     */
    public byte[] compile(String ir, LlvmTarget target) throws IOException {
        Path dir = Files.createTempDirectory("zluda-llvm");
        try {
            Path ll = dir.resolve("in.ll"), bc = dir.resolve("opt.bc");
            Files.writeString(ll, ir, StandardCharsets.UTF_8);
            run(List.of(path("opt").toString(), "-O2", "-mtriple=" + target.triple(), "-mcpu=" + target.cpu(), ll.toString(), "-o", bc.toString()));
            if (target.amd()) {
                Path o = dir.resolve("out.o"), so = dir.resolve("out.hsaco");
                run(List.of(path("llc").toString(), "-O2", "-mtriple=" + target.triple(), "-mcpu=" + target.cpu(),
                        "-filetype=obj", bc.toString(), "-o", o.toString()));
                run(List.of(path("ld.lld").toString(), "-shared", "--no-undefined", o.toString(), "-o", so.toString()));
                return Files.readAllBytes(so);
            }
            Path ptx = dir.resolve("out.ptx");
            run(List.of(path("llc").toString(), "-O2", "-mtriple=" + target.triple(), "-mcpu=" + target.cpu(), bc.toString(), "-o", ptx.toString()));
            return Files.readAllBytes(ptx);
        } finally {
            try (Stream<Path> s = Files.walk(dir)) {
                s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    /** {@code llvm-readelf --notes} of a code object: the AMDGPU metadata (kernels, .args, kernarg sizes) as text. */
    public String notes(Path codeObject) throws IOException {
        return run(List.of(path("llvm-readelf").toString(), "--notes", codeObject.toString()));
    }

    private static String run(List<String> cmd) throws IOException {
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        try {
            int rc = p.waitFor();
            if (rc != 0) throw new IOException(Path.of(cmd.get(0)).getFileName() + " failed (exit " + rc + "): " + out.strip());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
        return out;
    }
}

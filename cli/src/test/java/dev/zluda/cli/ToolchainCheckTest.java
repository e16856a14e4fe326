package dev.zluda.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The build's toolchain check (tools/toolchain.sh, run by the root pom before any module) on a machine
 * that lacks tools, simulated: PATH holds only the commands a test gives it, and a directory stands in
 * for / when headers and libraries are looked for. Nothing is installed or removed on this machine: an
 * {@code apt-get} on that PATH is a script that writes down how it was called.
 */
class ToolchainCheckTest {
    private static final Path SCRIPT = Path.of(System.getProperty("zluda.repo", "..")).toAbsolutePath().normalize().resolve("tools/toolchain.sh");

    record Ran(int code, String out, String err) {}

    /**
     * Runs the check in {@code mode} with PATH = {@code tmp/bin} holding {@code commands} (links to the
     * real ones, or stand-ins) and {@code tmp/root} standing in for / with {@code files}.
     */
    private static Ran check(Path tmp, String mode, String policy, List<String> commands, List<String> files, boolean fakeAptGet) throws Exception {
        Path bin = Files.createDirectories(tmp.resolve("bin")), root = Files.createDirectories(tmp.resolve("root"));
        for (String c : List.of("id", "awk")) link(bin, c);
        for (String c : commands) {
            Path p = bin.resolve(c);
            if (!Files.exists(p)) {
                Files.writeString(p, "#!/bin/sh\nexit 0\n");
                assertTrue(p.toFile().setExecutable(true));
            }
        }
        if (fakeAptGet) {
            Path apt = bin.resolve("apt-get");
            Files.writeString(apt, "#!/bin/sh\necho \"$*\" >> " + tmp.resolve("apt-get.log") + "\n");
            assertTrue(apt.toFile().setExecutable(true));
        }
        for (String f : files) Files.createDirectories(root.resolve(f.substring(1)).getParent()).resolve(Path.of(f).getFileName()).toFile().createNewFile();
        ProcessBuilder pb = new ProcessBuilder("/bin/bash", SCRIPT.toString(), mode);
        pb.environment().put("PATH", bin.toString());
        pb.environment().put("ZLUDA_TOOLCHAIN_ROOT", root.toString());
        pb.environment().put("ZLUDA_TOOLCHAIN", policy);
        pb.environment().put("CUDA_HOME", root.resolve("usr/local/cuda").toString());
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        return new Ran(p.exitValue(), out, err);
    }

    private static void link(Path bin, String c) throws Exception {
        for (String d : new String[] {"/usr/bin", "/bin"}) {
            if (Files.isExecutable(Path.of(d, c))) {
                if (!Files.exists(bin.resolve(c))) Files.createSymbolicLink(bin.resolve(c), Path.of(d, c));
                return;
            }
        }
        throw new AssertionError("no " + c + " here");
    }

    private static final List<String> ALL_COMMANDS = List.of("gcc", "make", "clang-22", "llc-22", "ld.lld-22", "node", "npm");
    private static final List<String> ALL_FILES = List.of("/usr/include/xxhash.h", "/usr/include/GL/gl.h", "/usr/include/EGL/egl.h",
            "/usr/include/vdpau/vdpau.h", "/usr/lib/x86_64-linux-gnu/libamdhip64.so.5", "/usr/local/cuda/include/cuda.h");

    @Test
    void aCompleteMachinePassesSilently(@TempDir Path tmp) throws Exception {
        Ran r = check(tmp, "test", "check", ALL_COMMANDS, ALL_FILES, false);
        assertEquals(0, r.code(), r.err());
        assertEquals("", r.out() + r.err());
    }

    /** A fresh Debian 12 with only a JDK and Maven: the build stops with the one apt-get command that installs the rest. */
    @Test
    void aFreshMachineGetsTheExactAptGetCommand(@TempDir Path tmp) throws Exception {
        Ran build = check(tmp, "build", "check", List.of(), List.of(), false);
        assertEquals(1, build.code());
        assertTrue(build.err().contains("missing gcc make /usr/include/xxhash.h (mvn package needs them)"), build.err());
        assertTrue(build.err().contains("  sudo apt-get update && sudo apt-get install -y --no-install-recommends gcc make libxxhash-dev\n"), build.err());
        Ran test = check(tmp, "test", "check", List.of(), List.of(), false);
        assertEquals(1, test.code());
        assertTrue(test.err().contains("  sudo apt-get update && sudo apt-get install -y --no-install-recommends gcc make libxxhash-dev clang-22"
                + " libgl-dev libegl-dev libvdpau-dev llvm-22 lld-22 libamdhip64-5 nodejs npm\n"), test.err());
    }

    /** One tool missing: only its package is named (node without npm: Debian packages npm apart). */
    @Test
    void oneMissingToolNamesOnlyItsPackage(@TempDir Path tmp) throws Exception {
        List<String> noNpm = ALL_COMMANDS.stream().filter(c -> !c.equals("npm")).toList();
        Ran r = check(tmp, "test", "check", noNpm, ALL_FILES, false);
        assertEquals(1, r.code());
        assertTrue(r.err().contains("missing npm (mvn verify needs them)"), r.err());
        assertTrue(r.err().contains("sudo apt-get install -y --no-install-recommends npm\n"), r.err());
    }

    /** As root with apt-get (CI, a container): it installs what is missing, and says so in one line. */
    @Test
    void asRootItInstallsWhatIsMissing(@TempDir Path tmp) throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue("root".equals(System.getProperty("user.name")), "runs as root (as CI does)");
        List<String> noLlvm = ALL_COMMANDS.stream().filter(c -> !c.endsWith("-22")).toList();
        Ran r = check(tmp, "test", "install", noLlvm, ALL_FILES, true);
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("[zluda build] toolchain: installing clang-22 llvm-22 lld-22 (missing: clang-22 llc-22 ld.lld-22)"), r.out());
        assertEquals(List.of("update -qq", "install -y -qq --no-install-recommends clang-22 llvm-22 lld-22"), Files.readAllLines(tmp.resolve("apt-get.log")));
    }

    /** Without CUDA's toolkit (not a Debian package) the check says which tests will skip, and does not stop the build. */
    @Test
    void noCudaToolkitIsSaidNotFatal(@TempDir Path tmp) throws Exception {
        List<String> noCuda = ALL_FILES.stream().filter(f -> !f.contains("cuda")).toList();
        Ran r = check(tmp, "test", "check", ALL_COMMANDS, noCuda, false);
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("no CUDA toolkit") && r.out().contains("will say SKIPPED"), r.out());
        assertFalse(check(tmp, "build", "check", ALL_COMMANDS, noCuda, false).out().contains("CUDA"), "a build without tests needs no toolkit");
    }
}

package dev.zluda.cli;

import dev.zluda.capture.Capture;
import dev.zluda.capture.CaptureException;
import dev.zluda.capture.KernelSnapshots;
import dev.zluda.replay.CaptureReplay;
import dev.zluda.replay.KernelReplay;
import dev.zluda.replay.Locate;
import dev.zluda.replay.ReplayException;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;

/**
 * {@code zluda replay CAPTURE --kernel N|NAME [--on zluda|nvidia|PATH] [-o OUT]}: re-runs one
 * captured kernel launch (a kernel snapshot) on a driver and compares every buffer with the
 * recording ({@link KernelReplay}). Exit codes: 0 identical, 1 different, 2 error or bad usage.
 */
@Command(name = "replay", mixinStandardHelpOptions = true,
        description = {"Re-run a kernel launch recorded with --capture-kernels on a driver, and compare every buffer it",
                "touched with the recording: identical, or how many elements differ, where first, and by how much.",
                "Without --kernel: replay the whole capture (recorded with --level replay --capture-kernels .), call by call,",
                "checking results, device-to-host copies and kernel buffers; stops at the first divergence unless --keep-going.", ""},
        footer = {"", "Drivers (--on): zluda (the CPU emulator, in this process; the default), nvidia (NVIDIA's libcuda.so.1,",
                "found as a CUDA program finds it), or the path of any libcuda.so.",
                "The replay's own capture goes to -o OUT, by default to <capture>-replay[_N] in $ZLUDA_LOG_DIR, else ./zluda-logs;",
                "--no-capture writes none. --ptx FILE loads that PTX instead of the recorded module (an edited copy).",
                "",
                "Examples:",
                "  zluda run --zluda-trace --capture-kernels vectorAdd -o logs -- ./vectorAdd",
                "  zluda replay logs/vectorAdd --list",
                "  zluda replay logs/vectorAdd --kernel 1 --on nvidia",
                "  zluda replay logs/vectorAdd --on nvidia                  (the whole capture; partial, see docs/replay.md)",
                "  zluda replay logs/vectorAdd --kernel 1 --locate --on zluda --against nvidia   (the first PTX instruction that differs)",
                "",
                "--locate exits 0 when no instruction result differs, 1 when one does.",
                "Exit codes: 0 identical, 1 different, 2 error (no snapshot, a driver that cannot be loaded, bad usage)."})
final class ReplayCommand implements Callable<Integer> {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @CommandLine.Mixin
    CaptureArgument capture;

    @Option(names = {"-k", "--kernel"}, paramLabel = "N|NAME",
            description = "The snapshot: its number (zluda replay --list), or a kernel name (mangled, or a part of it; NAME@K the K-th launch).")
    String kernel;

    @Option(names = "--on", paramLabel = "DRIVER", defaultValue = "zluda", description = "zluda, nvidia, or a path to a libcuda.so. Default: ${DEFAULT-VALUE}.")
    String on;

    @Option(names = {"-o", "--output"}, paramLabel = "OUT", description = "Directory for the replay's capture (new or empty).")
    Path output;

    @Option(names = "--no-capture", description = "Write no capture of the replay.")
    boolean noCapture;

    @Option(names = "--ptx", paramLabel = "FILE", description = "Load this PTX instead of the recorded module.")
    Path ptx;

    @Option(names = "--list", description = "List the capture's kernel snapshots and exit.")
    boolean list;

    @Option(names = "--locate", description = "With --kernel: name the first PTX instruction whose value differs between --on and --against"
            + " (instrumented replays on both; see docs/replay.md).")
    boolean locate;

    @Option(names = "--against", paramLabel = "DRIVER", defaultValue = "nvidia",
            description = "--locate: the reference driver (zluda, nvidia, or a path). Default: ${DEFAULT-VALUE}.")
    String against;

    @Option(names = "--against-ptx", paramLabel = "FILE", description = "--locate: load this PTX on the --against driver instead of the recorded module.")
    Path againstPtx;

    @CommandLine.Mixin
    LocateOptions trace;

    @Option(names = "--keep-going", description = "Whole replay: go on after a divergence (report them all).")
    boolean keepGoing;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut(), err = spec.commandLine().getErr();
        if (noCapture && output != null) throw new CommandLine.ParameterException(spec.commandLine(), "-o and --no-capture exclude each other");
        int[] who = null;
        if (locate) {
            if (kernel == null) throw new CommandLine.ParameterException(spec.commandLine(), "--locate needs --kernel N|NAME");
            who = trace.check(spec.commandLine());
        }
        try (Capture cap = capture.open()) {
            String home = System.getProperty("zluda.home");
            String ptxText = read(ptx);
            if (locate) {
                String againstText = read(againstPtx);
                Locate.Result r = Locate.run(cap, kernel, new Locate.Options(on, ptxText, against, againstText, who, trace.traceLimit,
                        home == null ? null : Path.of(home), ptx == null ? null : ptx.toString(), againstPtx == null ? null : againstPtx.toString()));
                r.print(out);
                return r.exitCode();
            }
            if (kernel == null && !list) {
                KernelReplay.Options o = new KernelReplay.Options(on, output, !noCapture, ptxText, home == null ? null : Path.of(home));
                CaptureReplay.Result r = CaptureReplay.run(cap, o, keepGoing, dev.zluda.diff.ReplayBuffers.INSTANCE);
                r.print(out);
                return r.exitCode();
            }
            if (list) {
                KernelSnapshots ks = KernelSnapshots.read(cap);
                if (ks.list().isEmpty()) {
                    err.println("zluda replay: error: " + KernelSnapshots.noSnapshots(cap));
                    err.flush();
                    return 2;
                }
                for (KernelSnapshots.Snapshot s : ks.list()) out.println(s.summary());
                out.flush();
                return 0;
            }
            KernelReplay.Options o = new KernelReplay.Options(on, output, !noCapture, ptxText, home == null ? null : Path.of(home));
            KernelReplay.Result r = KernelReplay.run(cap, kernel, o);
            r.print(out);
            return r.exitCode();
        } catch (PtxUnreadable e) {
            err.println("zluda replay: error: cannot read " + e.file + ": " + e.getCause().getMessage());
            err.flush();
            return 2;
        } catch (CaptureException | ReplayException e) {
            err.println("zluda replay: error: " + e.getMessage());
            err.flush();
            return 2;
        } catch (RuntimeException e) {
            err.println("zluda replay: error: internal error: " + e);
            if (System.getenv("ZLUDA_DEBUG") != null) e.printStackTrace(err);
            err.flush();
            return 2;
        }
    }

    /** A PTX file given in place of a recorded module (--ptx, --against-ptx) that cannot be read. */
    private static final class PtxUnreadable extends Exception {
        final Path file;

        PtxUnreadable(Path file, IOException cause) {
            super(cause);
            this.file = file;
        }
    }

    /** The text of a PTX file given in place of a recorded module; null for none. */
    private static String read(Path file) throws PtxUnreadable {
        if (file == null) return null;
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new PtxUnreadable(file, e);
        }
    }
}

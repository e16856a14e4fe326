package dev.zluda.cli;

import dev.zluda.capture.Capture;
import dev.zluda.capture.CaptureException;
import dev.zluda.capture.KernelSnapshots;
import dev.zluda.replay.Locate;
import dev.zluda.replay.ReplayException;
import dev.zluda.viewer.KernelLocator;

import java.nio.file.Path;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The viewer's {@link KernelLocator} over {@code zluda replay --kernel N --locate}
 * ({@link Locate}): finds the kernel snapshot of the launch call, runs the localisation on
 * {@code on} against {@code against} (by default zluda against nvidia, as the command does), and
 * reads the instruction, its line and both values from the report.
 */
final class ReplayKernelLocator implements KernelLocator {
    private static final Pattern FIRST = Pattern.compile("FIRST DIVERGENCE: line (\\d+): (.*)");
    private static final Pattern CONTROL = Pattern.compile("FIRST DIVERGENCE: control flow.*");
    private static final Pattern SIDE = Pattern.compile("  line (\\d+): (.*)");

    private final String on, against;
    private final Path home;
    /** Makes the PTX loaded on {@code on} from the recorded one (tests plant a difference), or null. */
    private final UnaryOperator<String> onPtx;

    ReplayKernelLocator(String on, String against, Path home, UnaryOperator<String> onPtx) {
        this.on = on;
        this.against = against;
        this.home = home;
        this.onPtx = onPtx;
    }

    /** zluda against nvidia, with dist/ at {@code zluda.home}. */
    static ReplayKernelLocator standard() {
        String h = System.getProperty("zluda.home");
        return new ReplayKernelLocator("zluda", "nvidia", h == null ? null : Path.of(h), null);
    }

    /** The same localisation on other drivers (names {@link Locate} takes: zluda, nvidia, a path). */
    @Override
    public KernelLocator between(String on, String against) {
        return new ReplayKernelLocator(on, against, home, onPtx);
    }

    @Override
    public String describe() {
        return on + " against " + against;
    }

    /** Where NVIDIA's driver is looked for (tests replace it): the environment of {@link RunCommand#nvidiaDriverProblem}. */
    static java.util.function.Supplier<java.util.Map<String, String>> environment = System::getenv;

    /**
     * Null when both drivers can be loaded here; for {@code nvidia} on a machine without NVIDIA's driver
     * (none on LD_LIBRARY_PATH or the usual paths, ZLUDA_CUDA_LIB unset: as {@code zluda run --nvidia-trace}
     * checks), why not and where it can run.
     */
    @Override
    public String unavailable() {
        if (!on.equals("nvidia") && !against.equals("nvidia")) return null;
        Path lib = home != null ? home.resolve("lib") : RunCommand.libDir().toAbsolutePath().normalize();
        if (RunCommand.nvidiaDriverProblem(environment.get(), lib) == null) return null;
        return "needs NVIDIA's driver, and this machine has none: run zluda diff A B --kernel N --locate where an NVIDIA GPU is"
                + " (or against a zluda capture: --against zluda)";
    }

    @Override
    public Result locate(Path capture, long launchCall, Consumer<String> progress) {
        try (Capture cap = Capture.open(capture)) {
            progress.accept("reading the kernel snapshots");
            KernelSnapshots ks = KernelSnapshots.read(cap);
            KernelSnapshots.Snapshot snap = null;
            for (KernelSnapshots.Snapshot s : ks.list()) if (s.launchCall() == launchCall) snap = s;
            if (snap == null) {
                return Result.cannotRun("cannot run here because call " + launchCall + " of " + capture.getFileName() + " has no kernel snapshot"
                        + (ks.list().isEmpty() ? " (" + KernelSnapshots.noSnapshots(cap) + ")" : ""));
            }
            String given = null;
            if (onPtx != null) {
                byte[] img = ks.blob(snap.record().launch().moduleHash(), "the module image");
                given = onPtx.apply(new String(img, java.nio.charset.StandardCharsets.UTF_8).replace("\0", ""));
            }
            progress.accept("running kernel " + snap.name() + " on " + on + " and " + against + " (two instrumented passes)");
            Locate.Result r = Locate.run(cap, Integer.toString(snap.number()), new Locate.Options(on, given, against, null, null, 4096, home));
            return parse(r.found(), r.lines(), snap.name());
        } catch (ReplayException | CaptureException e) {
            return Result.cannotRun("cannot run here because " + e.getMessage());
        } catch (RuntimeException | UnsatisfiedLinkError e) {
            return Result.cannotRun("cannot run here because the localisation failed: " + e);
        }
    }

    private static String[] split(String labelAndValue) {
        int colon = labelAndValue.indexOf(": ");
        return colon < 0 ? new String[] {labelAndValue, ""} : new String[] {labelAndValue.substring(0, colon), labelAndValue.substring(colon + 2)};
    }

    /** Reads {@link Locate}'s report: the instruction, its line, the value description and both values. */
    static Result parse(boolean found, List<String> lines, String kernel) {
        String verdict = lines.stream().filter(l -> l.startsWith("VERDICT: ")).findFirst().map(l -> l.substring(9)).orElse(String.join("; ", lines));
        if (!found) return new Result(Outcome.NO_DIVERGENCE, "Locate: " + verdict, kernel, -1, null, null, null, null, null, null, List.copyOf(lines));
        for (int i = 0; i < lines.size(); i++) {
            Matcher m = FIRST.matcher(lines.get(i));
            if (m.matches()) {
                int line = Integer.parseInt(m.group(1));
                // then: "(the other side's line)" when the texts differ, the value ("%f3 (32-bit, result 9 of the thread ...)"),
                // and "label: value" for the driver under test and for the reference
                List<String> details = new java.util.ArrayList<>();
                for (int k = i + 1; k < lines.size() && lines.get(k).startsWith("  "); k++) {
                    if (!lines.get(k).startsWith("  (")) details.add(lines.get(k).substring(2));
                }
                String where = details.isEmpty() ? null : details.get(0);
                String[] on = details.size() > 1 ? split(details.get(1)) : null, against = details.size() > 2 ? split(details.get(2)) : null;
                return new Result(Outcome.FOUND, "Locate: first diverging instruction at line " + line + ": " + m.group(2).strip()
                        + (on != null && against != null ? " (" + on[0] + " " + on[1] + ", " + against[0] + " " + against[1] + ")" : ""),
                        kernel, line, m.group(2).strip(), where, on == null ? null : on[0], on == null ? null : on[1],
                        against == null ? null : against[0], against == null ? null : against[1], List.copyOf(lines));
            }
            if (CONTROL.matcher(lines.get(i)).matches()) {
                // control flow: the two sides executed different instructions; the first side's line is shown
                Matcher a = i + 1 < lines.size() ? SIDE.matcher(lines.get(i + 1).replaceFirst("^  [^:]+: ", "  ")) : null;
                int line = -1;
                String text = null;
                if (a != null && a.matches()) {
                    line = Integer.parseInt(a.group(1));
                    text = a.group(2);
                }
                return new Result(Outcome.FOUND, "Locate: " + lines.get(i) + " — " + verdict, kernel, line, text, "control flow differs",
                        null, i + 1 < lines.size() ? lines.get(i + 1).strip() : null, null, i + 2 < lines.size() ? lines.get(i + 2).strip() : null,
                        List.copyOf(lines));
            }
        }
        return new Result(Outcome.FOUND, "Locate: " + verdict, kernel, -1, null, null, null, null, null, null, List.copyOf(lines));
    }
}

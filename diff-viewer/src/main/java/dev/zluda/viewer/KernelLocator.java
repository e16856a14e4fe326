package dev.zluda.viewer;

import java.nio.file.Path;
import java.util.List;
import java.util.function.Consumer;

/**
 * Instruction-level localisation of a diverging kernel, as the viewer runs it: the first PTX
 * instruction whose value differs between two drivers for one snapshotted launch. The viewer does
 * not depend on the replayer: the {@code zluda} command injects an implementation over
 * {@code zluda replay --kernel N --locate} ({@code dev.zluda.replay.Locate}) with
 * {@link ViewerWindow#setKernelLocator} / {@link DiffWindow#setKernelLocator}.
 */
public interface KernelLocator {
    /** How a localisation ended. */
    enum Outcome {
        /** An instruction computes a different value (or control flow differs): {@link Result#line()} names it. */
        FOUND,
        /** It ran, and the two drivers computed the same values. */
        NO_DIVERGENCE,
        /** It could not run here: {@link Result#message()} says why (no GPU, no kernel snapshot, no PTX, ...). */
        CANNOT_RUN
    }

    /**
     * What a localisation found.
     *
     * @param outcome how it ended
     * @param message one sentence for the status line: the verdict, or why it could not run
     * @param kernel the kernel's (mangled) name, or null
     * @param line the 1-based line of the module's PTX text of the instruction found, or -1
     * @param instruction that line's text, or null
     * @param where which value: register, type, thread ({@code %f3 (32-bit, result 9 of the thread (100,0,0) of CTA (0,0,0))}), or null
     * @param onLabel the driver under test ({@code zluda}), or null
     * @param onValue the value it computed, or null
     * @param againstLabel the reference driver ({@code nvidia}), or null
     * @param againstValue the value it computed, or null
     * @param report the whole report, line by line (as {@code zluda replay --locate} prints it)
     */
    record Result(Outcome outcome, String message, String kernel, int line, String instruction, String where,
                  String onLabel, String onValue, String againstLabel, String againstValue, List<String> report) {
        /** A localisation that could not run, and why ({@code "cannot run here because ..."}). */
        public static Result cannotRun(String why) {
            return new Result(Outcome.CANNOT_RUN, why, null, -1, null, null, null, null, null, null, List.of(why));
        }
    }

    /**
     * Localises the divergence of the kernel launched by call {@code launchCall} (1-based, in order
     * of entry, as {@code zluda dump --calls} counts) of {@code capture}, whose kernel snapshot holds
     * the launch's buffers. Runs for seconds to minutes: call it off the FX thread. Never throws for
     * an environment that cannot run it: returns {@link Result#cannotRun}.
     *
     * @param progress receives a few words on each step ({@code pass 1: every thread's store addresses})
     */
    Result locate(Path capture, long launchCall, Consumer<String> progress);

    /** Which drivers it compares, for the button: {@code zluda against nvidia}. */
    String describe();

    /**
     * Why it cannot run on this machine at all, in words that follow its {@link #describe()}
     * ({@code needs NVIDIA's driver, and this machine has none: ...}), or null when it can. The viewer
     * does not offer a localisation that cannot run, and says this instead.
     */
    default String unavailable() {
        return null;
    }

    /**
     * This localisation between other drivers: {@code on} the one under test, {@code against} the
     * reference, as named by the manifests of the captures compared ({@code zluda}, {@code nvidia}).
     * The default, for a locator that cannot choose its drivers, is this one.
     */
    default KernelLocator between(String on, String against) {
        return this;
    }
}

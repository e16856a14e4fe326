package dev.zluda.cli;

import picocli.CommandLine;
import picocli.CommandLine.Option;

/**
 * The options of instruction-level localisation that {@code zluda replay --locate} and
 * {@code zluda diff --locate} share: which thread to trace and how many of its instruction
 * results to record.
 */
final class LocateOptions {
    @Option(names = "--thread", paramLabel = "CX,CY,CZ:TX,TY,TZ",
            description = "--locate: trace this thread (CTA index : thread index) instead of the one that writes the first differing byte.")
    String thread;

    @Option(names = "--trace-limit", paramLabel = "K", defaultValue = "4096",
            description = "--locate: instruction results recorded for the traced thread. Default: ${DEFAULT-VALUE}.")
    int traceLimit;

    /**
     * Checks the options and returns the thread to trace.
     *
     * @return {ctaid.x, .y, .z, tid.x, .y, .z}, or null to let the localisation pick the thread
     * @throws CommandLine.ParameterException for a trace limit outside 1..2^24 or a thread not of the form
     */
    int[] check(CommandLine cl) {
        if (traceLimit < 1 || traceLimit > (1 << 24)) throw new CommandLine.ParameterException(cl, "--trace-limit: 1 to 16777216");
        return thread(thread, cl);
    }

    /**
     * {@code --thread CX,CY,CZ:TX,TY,TZ} → {ctaid.x, .y, .z, tid.x, .y, .z}; null for null.
     *
     * @throws CommandLine.ParameterException when it is not of that form
     */
    static int[] thread(String s, CommandLine cl) {
        if (s == null) return null;
        String[] parts = s.split(":");
        if (parts.length == 2) {
            String[] c = parts[0].split(","), t = parts[1].split(",");
            if (c.length == 3 && t.length == 3) {
                try {
                    int[] w = new int[6];
                    for (int i = 0; i < 3; i++) { w[i] = Integer.parseInt(c[i].strip()); w[3 + i] = Integer.parseInt(t[i].strip()); }
                    return w;
                } catch (NumberFormatException e) {
                    // below
                }
            }
        }
        throw new CommandLine.ParameterException(cl, "--thread " + s + ": expected CX,CY,CZ:TX,TY,TZ (CTA index, thread index), e.g. 3,0,0:17,0,0");
    }
}

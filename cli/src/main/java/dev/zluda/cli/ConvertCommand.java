package dev.zluda.cli;

import dev.zluda.capture.Capture;
import dev.zluda.capture.CaptureException;
import dev.zluda.capture.ReadStatus;
import dev.zluda.capture.convert.Converters;
import dev.zluda.capture.convert.ParquetConverter;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.Callable;

/** {@code zluda convert CAPTURE --to jsonl|perfetto|parquet OUT}. */
@Command(name = "convert", mixinStandardHelpOptions = true,
        description = {"Convert a capture for other tools: JSON Lines, Perfetto trace events or Parquet tables.",
                "  jsonl     JSON Lines: one object per call (raw and rendered arguments,",
                "            result, times) and per module/blob/kernel",
                "  perfetto  Chrome/Perfetto trace-event JSON: open it in https://ui.perfetto.dev",
                "  parquet   a directory OUT of Parquet tables: calls, arguments, blobs,",
                "            modules, kernel_launches (DuckDB: SELECT * FROM 'OUT/calls.parquet')", ""},
        footer = {"", "Exit codes: 0 converted, 2 unreadable capture, write error or bad usage."})
final class ConvertCommand implements Callable<Integer> {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @CommandLine.Mixin
    CaptureArgument capture;

    @Parameters(index = "1", paramLabel = "OUT", description = "Output file (parquet: output directory, created when missing).")
    Path out;

    @Option(names = "--to", required = true, paramLabel = "FORMAT", description = "jsonl, perfetto or parquet.")
    String to;

    @Override
    public Integer call() throws CaptureException, IOException {
        if (!to.equals("jsonl") && !to.equals("perfetto") && !to.equals("parquet")) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--to must be jsonl, perfetto or parquet, not '" + to + "'");
        }
        try (Capture cap = capture.open()) {
            ReadStatus st;
            String what;
            try {
                if (to.equals("parquet")) {
                    ParquetConverter.Result r = ParquetConverter.write(cap, out);
                    st = r.status();
                    what = String.format("%d calls, %d arguments, %d blobs, %d modules, %d kernel launches",
                            r.calls(), r.arguments(), r.blobs(), r.modules(), r.kernelLaunches());
                } else {
                    st = to.equals("jsonl") ? Converters.jsonl(cap, out) : Converters.perfetto(cap, out);
                    what = st.records() + " records";
                }
            } catch (IOException e) {
                throw new Main.WriteError(out, e);
            }
            if (st.stoppedEarly()) spec.commandLine().getErr().println("zluda convert: warning: " + cap.source() + ": " + st.summary());
            spec.commandLine().getOut().println("wrote " + out + (to.equals("parquet") ? "/ (" : " (") + what + ")");
            spec.commandLine().getOut().flush();
            return 0;
        }
    }
}

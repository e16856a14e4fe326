package dev.zluda.cli;

import dev.zluda.ptx.PtxCheck;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/** {@code zluda ptx}: questions about PTX files. */
@Command(name = "ptx",
        mixinStandardHelpOptions = true,
        description = {"Work with PTX (the virtual ISA CUDA kernels are shipped in).", ""},
        subcommands = {PtxCommand.Check.class})
final class PtxCommand implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    /** {@code zluda ptx check FILE...}: parse and check, report errors with line:column, list the instruction forms used. */
    @Command(name = "check",
            mixinStandardHelpOptions = true,
            description = {"Parse and check PTX files: errors as FILE:LINE:COL, then every instruction form used with",
                    "whether zluda's emulator and compiler support it.", ""},
            footer = {"", "Exit codes: 0 no errors, 1 errors found, 2 a file could not be read."})
    static final class Check implements Callable<Integer> {
        @Parameters(arity = "1..*", paramLabel = "FILE", description = "PTX files (.ptx), or directories searched for them")
        List<Path> files = new ArrayList<>();

        @CommandLine.Option(names = "--summary", description = "For a corpus: only each file's first error, totals with the parse speed, and the instruction forms the emulator lacks.")
        boolean summary;

        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() {
            PrintStream out = new PrintStream(new WriterOutputStream(spec.commandLine().getOut()), true);
            int code = PtxCheck.run(files, out, summary);
            out.flush();
            spec.commandLine().getOut().flush();
            return code;
        }
    }

    /** Bridges picocli's PrintWriter (tests capture it) to the PrintStream PtxCheck writes to. */
    static final class WriterOutputStream extends java.io.OutputStream {
        private final java.io.PrintWriter w;
        private final java.io.ByteArrayOutputStream line = new java.io.ByteArrayOutputStream();

        WriterOutputStream(java.io.PrintWriter w) {
            this.w = w;
        }

        @Override
        public void write(int b) {
            line.write(b);
            if (b == '\n') flush();
        }

        @Override
        public void flush() {
            w.write(line.toString(java.nio.charset.StandardCharsets.UTF_8));
            line.reset();
            w.flush();
        }
    }
}

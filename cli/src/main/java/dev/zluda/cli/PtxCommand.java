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
        subcommands = {PtxCommand.Check.class, PtxCommand.Compile.class})
final class PtxCommand implements Callable<Integer> {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /** {@code zluda ptx} without a subcommand: a usage error, as {@code zluda} alone (help on stderr, exit 2). */
    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getErr());
        spec.commandLine().getErr().flush();
        return Main.TROUBLE;
    }

    /** {@code zluda ptx check FILE...}: parse and check, report errors with line:column, list the instruction forms used. */
    @Command(name = "check",
            mixinStandardHelpOptions = true,
            description = {"Parse and check PTX files: errors as FILE:LINE:COL, then every instruction form used with",
                    "whether zluda runs it: 'emulator' = the CPU emulator behind zluda's driver executes it;",
                    "'gfx1100' = the AMD back end (zluda ptx compile --target gfx1100) lowers its uses in these files",
                    "(yes, no, k/n of them, - not tried because the file has errors).", ""},
            footer = {"", "An instruction the emulator does not execute is a warning line FILE:LINE:COL: warning: ...",
                    "is not supported by the emulator (CUDA_ERROR_NOT_SUPPORTED at load): zluda's driver refuses the module.",
                    "Exit codes: 0 no errors and every instruction runs on the emulator, 1 errors found, 2 a file could",
                    "not be read, 3 no errors but instructions the emulator does not support (1 and 2 take precedence)."})
    static final class Check implements Callable<Integer> {
        @Parameters(arity = "1..*", paramLabel = "FILE", description = "PTX files (.ptx), or directories searched for them")
        List<Path> files = new ArrayList<>();

        @CommandLine.Option(names = "--summary", description = "For a corpus: only each file's first error, totals with the parse speed, and the instruction forms the emulator lacks.")
        boolean summary;

        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() {
            // buffered: a table row padded to a 400 KB instruction form was written one byte per write(2)
            PrintStream out = new PrintStream(new java.io.BufferedOutputStream(new WriterOutputStream(spec.commandLine().getOut()), 1 << 16),
                    false, java.nio.charset.StandardCharsets.UTF_8);
            int code = PtxCheck.run(files, out, summary);
            out.flush();
            spec.commandLine().getOut().flush();
            return code;
        }
    }

    /**
     * {@code zluda ptx compile FILE --target gfx1100|gfx1030|sm_90 -o OUT}: the PTX → LLVM IR → AMDGPU code object /
     * NVPTX compiler of the AMD back end ({@code dev.zluda.ptx.llvm}), for maintainers. Writes a code object
     * ({@code .hsaco}, ELF shared object, code object v5) for an AMD target, PTX text for {@code sm_90}, or with
     * {@code --emit-llvm} the LLVM IR before optimization. What cannot be lowered is reported as FILE:LINE:COL errors.
     */
    @Command(name = "compile",
            mixinStandardHelpOptions = true,
            description = {"Compile PTX through LLVM 22: to an AMDGPU code object (gfx1030, gfx1100; gfx90a and gfx942",
                    "without warp-level instructions) or, for checking the lowering on NVIDIA GPUs, to PTX (sm_90).", ""},
            footer = {"", "Needs llvm-22 and lld-22 (or 19, or ZLUDA_LLVM_BIN) except with --emit-llvm.",
                    "Exit codes: 0 compiled, 1 the PTX has errors or uses what is not supported, 2 I/O or tool failure."})
    static final class Compile implements Callable<Integer> {
        @Parameters(index = "0", paramLabel = "FILE", description = "PTX file")
        Path file;

        @CommandLine.Option(names = "--target", required = true, paramLabel = "GPU",
                description = "gfx1030, gfx1100, gfx90a, gfx942 or sm_90")
        String target;

        @CommandLine.Option(names = {"-o", "--output"}, required = true, paramLabel = "OUT", description = "output file")
        Path output;

        @CommandLine.Option(names = "--emit-llvm", description = "write the LLVM IR (text) instead of compiling it")
        boolean emitLlvm;

        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() {
            java.io.PrintWriter out = spec.commandLine().getOut(), err = spec.commandLine().getErr();
            dev.zluda.ptx.llvm.LlvmTarget t = dev.zluda.ptx.llvm.LlvmTarget.byName(target);
            if (t == null) {
                // a usage error like the others: the message, the usage line, where the help is (exit 2)
                throw new CommandLine.ParameterException(spec.commandLine(),
                        "unknown target '" + target + "'; valid targets: gfx1030, gfx1100, gfx90a, gfx942, sm_90");
            }
            String text;
            try {
                text = dev.zluda.ptx.Ptx.readPtx(file);
            } catch (java.io.IOException e) {
                err.println("zluda ptx compile: error: cannot read " + file + ": " + e.getMessage());
                return 2;
            }
            dev.zluda.ptx.llvm.PtxCompiler.Lowered l = dev.zluda.ptx.llvm.PtxCompiler.lower(text, file.toString(), t);
            if (!l.ok()) {
                for (dev.zluda.ptx.Diagnostic d : l.errors()) err.println(d.format());
                err.println("zluda ptx compile: error: " + l.errors().size() + " error(s) in " + file + "; nothing written");
                return 1;
            }
            try {
                if (emitLlvm) {
                    java.nio.file.Files.writeString(output, l.ir());
                } else {
                    dev.zluda.ptx.llvm.LlvmTools tools = dev.zluda.ptx.llvm.LlvmTools.find();
                    if (tools == null) {
                        err.println("zluda ptx compile: error: " + dev.zluda.ptx.llvm.LlvmTools.missingMessage());
                        return 2;
                    }
                    java.nio.file.Files.write(output, dev.zluda.ptx.llvm.PtxCompiler.codegen(l, t, tools));
                }
            } catch (java.io.IOException e) {
                err.println("zluda ptx compile: error: " + e.getMessage());
                return 2;
            }
            out.println(file + " -> " + output + " (" + (emitLlvm ? "LLVM IR" : t.amd() ? "code object " + t.cpu() : "PTX " + t.cpu()) + ")");
            return 0;
        }
    }

    /** Bridges picocli's PrintWriter (tests capture it) to the PrintStream PtxCheck writes to. */
    /**
     * UTF-8 bytes to a {@link java.io.PrintWriter} (picocli's output), decoded in whole blocks: a
     * character split between two writes is kept until its last byte comes. {@link #flush()} passes
     * what it has on and flushes the writer.
     */
    static final class WriterOutputStream extends java.io.OutputStream {
        private final java.io.PrintWriter w;
        private final java.nio.charset.CharsetDecoder decoder = java.nio.charset.StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(java.nio.charset.CodingErrorAction.REPLACE).onUnmappableCharacter(java.nio.charset.CodingErrorAction.REPLACE);
        private java.nio.ByteBuffer pending = java.nio.ByteBuffer.allocate(8192);
        private final java.nio.CharBuffer chars = java.nio.CharBuffer.allocate(8192);

        WriterOutputStream(java.io.PrintWriter w) {
            this.w = w;
        }

        @Override
        public void write(int b) {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) {
            while (len > 0) {
                if (!pending.hasRemaining()) pending = java.nio.ByteBuffer.allocate(pending.capacity() * 2).put(pending.flip());
                int n = Math.min(len, pending.remaining());
                pending.put(b, off, n);
                off += n;
                len -= n;
                decode();
            }
        }

        /** Decodes the whole characters pending; keeps the bytes of one not complete yet. */
        private void decode() {
            pending.flip();
            while (true) {
                java.nio.charset.CoderResult r = decoder.decode(pending, chars, false);
                w.write(chars.array(), 0, chars.position());
                chars.clear();
                if (!r.isOverflow()) break;
            }
            pending.compact();
        }

        @Override
        public void flush() {
            decode();
            w.flush();
        }
    }
}

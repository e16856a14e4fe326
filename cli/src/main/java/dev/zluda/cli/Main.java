package dev.zluda.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

/**
 * The {@code zluda} command: one entry point for the driver, the tracer, the replayer and the
 * differential debugger. Exit codes, the same for every subcommand: 0 success; 1 the command's
 * negative answer (diff: different, replay: diverged, ptx check: errors found, dump: a damaged
 * capture, demo: the run differs); 2 trouble (bad usage, an unknown name, a missing or unreadable input, a write error).
 * {@code zluda run} returns the program's own code, and 125/126/127 for its own failures.
 */
@Command(name = "zluda",
        mixinStandardHelpOptions = true,
        versionProvider = Main.Version.class,
        description = {
                "A CUDA driver that runs unmodified CUDA programs without an NVIDIA GPU, with a recorder,",
                "a replayer and a differential debugger in every call path.",
                ""},
        subcommands = {SpecCommand.class, RunCommand.class, PtxCommand.class, DumpCommand.class, InfoCommand.class, ConvertCommand.class, PackCommand.class, ViewCommand.class, DiffCommand.class, ReplayCommand.class, DemoCommand.class, CommandLine.HelpCommand.class},
        footer = {"", "Environment: ZLUDA_JAVA_HOME (the Java runtime to use), ZLUDA_JVM_OPTS (extra JVM options).",
                "Exit codes (every command): 0 success; 1 the command's negative answer (diff: different, replay: diverged, ptx check: errors found, dump: damaged capture, demo: the run differs); 2 trouble: bad usage, a missing or unreadable input, a write error. ptx check: 3 no errors but instructions the emulator does not support. zluda run: the program's own code, 125/126/127 for its own failures.",
                "Documentation: README.md and docs/ in the source tree."})
public final class Main implements java.util.concurrent.Callable<Integer> {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /** Runs the command line and exits with its code. */
    public static void main(String[] args) {
        System.exit(run(args));
    }

    /** Runs the command line and returns the exit code (for tests). */
    public static int run(String... args) {
        CommandLine cl = commandLine();
        return cl.execute(args);
    }

    /**
     * The configured picocli command line: usage errors and failures (a missing or unreadable input,
     * a write error) exit 2 with a one-line message, except in {@code zluda run}, where 2 could be
     * the program's own code and its own failures exit 125 (as {@code env} and {@code timeout} do).
     * Every error line starts with {@link #errorPrefix}. Help text is wrapped to the terminal's width.
     */
    public static CommandLine commandLine() {
        CommandLine cl = new CommandLine(new Main());
        cl.setExitCodeExceptionMapper(t -> t instanceof CommandLine.ParameterException ? 2 : TROUBLE);
        cl.setExecutionExceptionHandler((ex, cmd, parsed) -> {
            cmd.getErr().println(errorPrefix(cmd) + describe(ex));
            if (System.getenv("ZLUDA_DEBUG") != null) ex.printStackTrace(cmd.getErr());
            cmd.getErr().flush();
            return "run".equals(cmd.getCommandName()) ? RunCommand.OWN_FAILURE : TROUBLE;
        });
        cl.setParameterExceptionHandler(Main::usageError);
        cl.setUsageHelpAutoWidth(true);
        HelpText.reflow(cl);
        return cl;
    }

    /**
     * The line for a command's failure: the exception's own message, which names the file and what
     * is wrong; for a Java runtime failure that carries no such message (an index out of bounds, a
     * null, a stack or heap exhausted) the words "internal error", the capture record being read when
     * it happened (file, record number, byte offset), and how to report it — never the bare Java text
     * alone (e.g. {@code Index -2 out of bounds for length 672}).
     */
    static String message(Throwable ex) {
        boolean internal = ex instanceof IndexOutOfBoundsException || ex instanceof NullPointerException || ex instanceof ClassCastException
                || ex instanceof ArithmeticException || ex instanceof NegativeArraySizeException || ex instanceof ArrayStoreException
                || ex instanceof StackOverflowError || ex instanceof OutOfMemoryError || ex.getMessage() == null;
        if (!internal) return ex.getMessage();
        String what = ex instanceof StackOverflowError ? "the call stack overflowed"
                : ex instanceof OutOfMemoryError ? "out of memory (" + ex.getMessage() + "; ZLUDA_JVM_OPTS=-Xmx... gives it more)"
                : ex.getClass().getSimpleName() + (ex.getMessage() != null ? " (" + ex.getMessage() + ")" : "");
        String where = dev.zluda.capture.CaptureReader.readingNow();
        return "internal error: " + what + (where != null ? ", while reading " + where : "")
                + "; please report it with the input (ZLUDA_DEBUG=1 prints where in zluda)";
    }

    /**
     * The start of every error line the zluda command prints on stderr: {@code zluda diff: error: },
     * {@code zluda ptx check: error: }, {@code zluda: error: } without a command. (Messages of
     * zluda's driver inside a traced program start with {@code [ZLUDA]}: another channel.)
     */
    static String errorPrefix(CommandLine cmd) {
        return cmd.getCommandSpec().qualifiedName() + ": error: ";
    }

    /** Prints {@code message} as an error of {@code cmd} (see {@link #errorPrefix}) and returns {@link #TROUBLE}. */
    static int error(CommandLine cmd, String message) {
        cmd.getErr().println(errorPrefix(cmd) + message);
        cmd.getErr().flush();
        return TROUBLE;
    }

    /**
     * A usage error in a few lines: what was wrong (an unknown option, a missing argument, an
     * argument too many, a bad value; the closest names for an unknown subcommand or option), the
     * command's usage line and where the help is — not the whole help text, which would bury the
     * one line that matters. An argument that looks like an option but is none is named, with how
     * to pass a file whose name starts with {@code -}. Exit code 2.
     */
    private static int usageError(CommandLine.ParameterException ex, String[] args) {
        CommandLine cmd = ex.getCommandLine();
        java.io.PrintWriter err = cmd.getErr();
        String msg = describe(ex);
        if (ex instanceof CommandLine.UnmatchedArgumentException u && cmd.getParent() == null && !cmd.getSubcommands().isEmpty()
                && u.getUnmatched().size() > 0 && args.length > 0 && u.getUnmatched().getFirst().equals(args[0]) && !looksLikeOption(args[0])) {
            msg = "unknown command '" + args[0] + "'; commands: " + String.join(", ", cmd.getSubcommands().keySet());
        }
        err.println(errorPrefix(cmd) + msg);
        if (ex instanceof CommandLine.UnmatchedArgumentException u && !u.getSuggestions().isEmpty()) {
            err.println("  did you mean: " + String.join(", ", u.getSuggestions()) + "?");
        }
        String lookalike = unknownOptionLike(cmd, args);
        if (lookalike != null && cmd.getCommandSpec().positionalParameters().stream().anyMatch(p -> !p.hidden())
                && (ex instanceof CommandLine.MissingParameterException || lookalike.contains(".") || lookalike.contains("/"))) {
            err.println("  '" + lookalike + "' is not an option of " + cmd.getCommandSpec().qualifiedName()
                    + "; if it is a file name, write ./" + lookalike + " (or put -- before the file names)");
        }
        String usage = cmd.getHelp().synopsis(0).strip();
        if (!usage.isEmpty()) err.println("  usage: " + usage.replaceAll("\\s*\\n\\s*", " "));
        err.println("  see: " + cmd.getCommandSpec().qualifiedName() + " --help");
        err.flush();
        return TROUBLE;
    }

    /** picocli's message in the words of the other errors: which option, which argument, what was expected. */
    static String describe(CommandLine.ParameterException ex) {
        String m = ex.getMessage() == null ? "" : ex.getMessage();
        if (ex instanceof CommandLine.UnmatchedArgumentException u && !u.getUnmatched().isEmpty()) {
            List<String> un = u.getUnmatched();
            String first = un.getFirst();
            if (looksLikeOption(first)) return "unknown option '" + first + "'";
            return (un.size() == 1 ? "unexpected argument '" : "unexpected arguments '") + String.join("', '", un) + "'";
        }
        if (ex instanceof CommandLine.MissingParameterException mp && !mp.getMissing().isEmpty()) {
            if (m.startsWith("Missing required parameter for option")) {
                CommandLine.Model.ArgSpec a = mp.getMissing().getFirst();
                String name = a instanceof CommandLine.Model.OptionSpec o ? o.longestName() : a.paramLabel();
                return "option " + name + " needs a value (" + a.paramLabel() + ")";
            }
            List<String> what = new ArrayList<>();
            for (CommandLine.Model.ArgSpec a : mp.getMissing()) {
                what.add(a instanceof CommandLine.Model.OptionSpec o ? "option " + o.longestName() : "argument " + a.paramLabel());
            }
            return "missing " + String.join(" and ", what);
        }
        if (m.startsWith("Unknown option: ")) return "unknown option " + m.substring("Unknown option: ".length());
        return m;
    }

    /** The first argument that looks like an option but names none of {@code cmd}'s (before a {@code --}), or null. */
    private static String unknownOptionLike(CommandLine cmd, String[] args) {
        CommandLine.Model.CommandSpec spec = cmd.getCommandSpec();
        for (String a : args) {
            if (a.equals("--")) return null;
            if (!looksLikeOption(a)) continue;
            String name = a.contains("=") ? a.substring(0, a.indexOf('=')) : a;
            if (spec.findOption(name) != null) continue;
            // a cluster of short options (-hV) or a short option with its value attached (-k1)
            if (!a.startsWith("--") && a.length() > 2 && spec.findOption(a.substring(0, 2)) != null) continue;
            if (cmd.getParent() != null && cmd.getParent().getCommandSpec().findOption(name) != null) continue;
            return a;
        }
        return null;
    }

    /** {@code -x}, {@code --x}, not {@code -} alone, not a negative number. */
    private static boolean looksLikeOption(String a) {
        return a.length() > 1 && a.charAt(0) == '-' && !a.matches("-[0-9.][0-9.eE+-]*");
    }

    /** Exit code 2: bad usage, a missing or unreadable input, a write error. */
    static final int TROUBLE = 2;

    /**
     * A failure to write a command's output ({@code convert OUT}, {@code pack -o}, {@code diff -o},
     * {@code run -o}): its message names the file and why, in words ({@link #describe(Throwable)}):
     * {@code cannot write nodir/out.jsonl: no such directory: nodir}.
     */
    static final class WriteError extends RuntimeException {
        WriteError(Path target, IOException cause) {
            super("cannot write " + target + ": " + why(cause, target), cause);
        }

        WriteError(String what, Path target, IOException cause) {
            super("cannot " + what + " " + target + ": " + why(cause, target), cause);
        }
    }

    /**
     * A writer that remembers the first {@link IOException} of the writer it wraps, so that one
     * behind a {@link java.io.PrintWriter} (which keeps write errors to itself) still reaches the
     * user: {@link #rethrow()} after the last write.
     */
    static final class KeepingWriter extends java.io.FilterWriter {
        private IOException first;

        KeepingWriter(java.io.Writer out) {
            super(out);
        }

        private IOException keep(IOException e) {
            if (first == null) first = e;
            return e;
        }

        @Override
        public void write(int c) throws IOException {
            try { super.write(c); } catch (IOException e) { throw keep(e); }
        }

        @Override
        public void write(char[] b, int off, int len) throws IOException {
            try { super.write(b, off, len); } catch (IOException e) { throw keep(e); }
        }

        @Override
        public void write(String str, int off, int len) throws IOException {
            try { super.write(str, off, len); } catch (IOException e) { throw keep(e); }
        }

        @Override
        public void flush() throws IOException {
            try { super.flush(); } catch (IOException e) { throw keep(e); }
        }

        /** Throws the first write error, if there was one. */
        void rethrow() throws IOException {
            flush();
            if (first != null) throw first;
        }
    }

    /** The message of an exception that reaches the user: an I/O error in words ({@link #why}), else its own message. */
    static String describe(Throwable e) {
        if (e instanceof WriteError) return e.getMessage();
        if (e instanceof IOException io) {
            String file = io instanceof java.nio.file.FileSystemException f ? f.getFile() : null;
            return file != null ? file + ": " + why(io, Path.of(file)) : why(io, null);
        }
        return message(e);
    }

    /**
     * Why an I/O operation on {@code target} failed, in words: {@code no such directory: DIR} (the
     * target's directory is missing), {@code no such file or directory}, {@code permission denied},
     * {@code disk full (no space left on device)}, {@code not a directory: P}, {@code DIR is a
     * directory}, {@code read-only file system}, else the system's own reason.
     */
    static String why(IOException e, Path target) {
        String reason = e instanceof java.nio.file.FileSystemException f ? f.getReason() : e.getMessage();
        if (reason == null) reason = "";
        String low = reason.toLowerCase(java.util.Locale.ROOT);
        if (low.contains("no space left") || low.contains("disk quota")) return "disk full (" + reason.strip() + ")";
        if (e instanceof java.nio.file.AccessDeniedException || low.contains("permission denied")) {
            return "permission denied" + (target != null && target.toAbsolutePath().getParent() != null
                    ? " (check the permissions of " + target.toAbsolutePath().getParent() + ")" : "");
        }
        if (low.contains("read-only file system")) return "read-only file system";
        if (e instanceof java.nio.file.FileAlreadyExistsException f) {
            Path in = f.getFile() != null ? Path.of(f.getFile()) : target;
            return in != null && java.nio.file.Files.exists(in) && !java.nio.file.Files.isDirectory(in) ? "a file is in the way: " + in : "it already exists";
        }
        if (e instanceof java.nio.file.NotDirectoryException || low.contains("not a directory")) {
            Path p = target == null ? null : firstNonDirectory(target);
            return p != null ? "not a directory: " + p : "not a directory";
        }
        if (e instanceof java.nio.file.DirectoryNotEmptyException) return "a directory that is not empty is in the way";
        if (low.contains("is a directory")) return target + " is a directory";
        if (e instanceof java.nio.file.NoSuchFileException || low.contains("no such file")) {
            Path dir = target == null ? null : target.toAbsolutePath().getParent();
            if (dir != null && !java.nio.file.Files.isDirectory(dir)) return "no such directory: " + missingDirectory(target);
            return "no such file or directory";
        }
        return reason.isEmpty() ? e.toString() : reason;
    }

    /** The first ancestor of {@code p} (as given) that does not exist. */
    private static Path missingDirectory(Path p) {
        Path dir = p.getParent() != null ? p.getParent() : p.toAbsolutePath().getParent();
        while (dir.getParent() != null && !java.nio.file.Files.exists(dir.getParent())) dir = dir.getParent();
        return dir;
    }

    /** The first ancestor of {@code p} that exists and is not a directory, or null. */
    private static Path firstNonDirectory(Path p) {
        Path a = p.toAbsolutePath();
        for (int i = 1; i <= a.getNameCount(); i++) {
            Path q = a.getRoot().resolve(a.subpath(0, i));
            if (java.nio.file.Files.exists(q) && !java.nio.file.Files.isDirectory(q)) return q;
        }
        return null;
    }

    /** {@code 1 call}, {@code 2,408 calls}: a count with its noun in the right number. */
    static String count(long n, String one) {
        return count(n, one, one + "s");
    }

    /** {@code 1 kernel launch}, {@code 3 kernel launches}. */
    static String count(long n, String one, String many) {
        return number(n) + " " + (n == 1 ? one : many);
    }

    /** {@code 2,408}: a number with thousands separators. */
    static String number(long n) {
        return String.format(java.util.Locale.ROOT, "%,d", n);
    }

    /**
     * {@code zluda} without a command: a usage error (exit 2, as every other usage error), with the
     * help on stderr so that it does not pass for a command's output. {@code zluda --help} prints
     * it on stdout and exits 0.
     */
    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getErr());
        spec.commandLine().getErr().flush();
        return TROUBLE;
    }

    /** The version from the build (resource written by Maven). */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() throws IOException {
            Properties p = new Properties();
            try (InputStream in = Main.class.getResourceAsStream("/dev/zluda/cli/version.properties")) {
                if (in != null) p.load(in);
            }
            return new String[] {
                    "zluda " + p.getProperty("version", "unknown"),
                    "Java " + System.getProperty("java.version") + " (" + System.getProperty("java.vendor") + ") at " + System.getProperty("java.home"),
                    "CUDA driver API spec: " + dev.zluda.spec.CudaApi.get().provenance()};
        }
    }
}

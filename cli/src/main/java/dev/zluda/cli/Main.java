package dev.zluda.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/**
 * The {@code zluda} command: one entry point for the driver, the tracer, the replayer and the
 * differential debugger. Exit codes, the same for every subcommand: 0 success; 1 the command's
 * negative answer (diff: different, replay: diverged, ptx check: errors found, dump: a damaged
 * capture); 2 trouble (bad usage, an unknown name, a missing or unreadable input, a write error).
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
                "Exit codes (every command): 0 success; 1 the command's negative answer (diff: different, replay: diverged, ptx check: errors found, dump: damaged capture); 2 trouble: bad usage, a missing or unreadable input, a write error. zluda run: the program's own code, 125/126/127 for its own failures.",
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
     * Help text is wrapped to the terminal's width.
     */
    public static CommandLine commandLine() {
        CommandLine cl = new CommandLine(new Main());
        cl.setExitCodeExceptionMapper(t -> t instanceof CommandLine.ParameterException ? 2 : TROUBLE);
        cl.setExecutionExceptionHandler((ex, cmd, parsed) -> {
            cmd.getErr().println("zluda: " + (ex.getMessage() != null ? ex.getMessage() : ex.toString()));
            if (System.getenv("ZLUDA_DEBUG") != null) ex.printStackTrace(cmd.getErr());
            return "run".equals(cmd.getCommandName()) ? RunCommand.OWN_FAILURE : TROUBLE;
        });
        cl.setParameterExceptionHandler(Main::usageError);
        cl.setUsageHelpAutoWidth(true);
        HelpText.reflow(cl);
        return cl;
    }

    /**
     * A usage error in a few lines: the message, the closest names for an unknown subcommand or
     * option, and where the help is — not the whole help text, which would bury the one line that
     * matters. Exit code 2.
     */
    private static int usageError(CommandLine.ParameterException ex, String[] args) {
        CommandLine cmd = ex.getCommandLine();
        java.io.PrintWriter err = cmd.getErr();
        String msg = ex.getMessage();
        if (ex instanceof CommandLine.UnmatchedArgumentException u && cmd.getParent() == null && !cmd.getSubcommands().isEmpty()
                && u.getUnmatched().size() > 0 && args.length > 0 && u.getUnmatched().getFirst().equals(args[0])) {
            msg = "unknown command '" + args[0] + "'; commands: " + String.join(", ", cmd.getSubcommands().keySet());
        }
        err.println("zluda: " + msg);
        if (ex instanceof CommandLine.UnmatchedArgumentException u && !u.getSuggestions().isEmpty()) {
            err.println("  did you mean: " + String.join(", ", u.getSuggestions()) + "?");
        }
        err.println("  see: " + cmd.getCommandSpec().qualifiedName() + " --help");
        err.flush();
        return TROUBLE;
    }

    /** Exit code 2: bad usage, a missing or unreadable input, a write error. */
    static final int TROUBLE = 2;

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

package dev.zluda.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/**
 * The {@code zluda} command: one entry point for the driver, the tracer, the replayer and the
 * differential debugger. Exit codes: 0 success, 1 failure of the work itself, 2 bad usage or an
 * unknown name; subcommands that run a program return its exit code.
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
                "Documentation: README.md and docs/ in the source tree."})
public final class Main implements Runnable {
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

    /** The configured picocli command line: usage errors exit 2, failures 1 with a one-line message. */
    public static CommandLine commandLine() {
        CommandLine cl = new CommandLine(new Main());
        cl.setExitCodeExceptionMapper(t -> t instanceof CommandLine.ParameterException ? 2 : 1);
        cl.setExecutionExceptionHandler((ex, cmd, parsed) -> {
            cmd.getErr().println("zluda: " + (ex.getMessage() != null ? ex.getMessage() : ex.toString()));
            if (System.getenv("ZLUDA_DEBUG") != null) ex.printStackTrace(cmd.getErr());
            return 1;
        });
        return cl;
    }

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
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

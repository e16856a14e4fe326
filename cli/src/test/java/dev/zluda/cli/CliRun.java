package dev.zluda.cli;

import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;

/** Runs the zluda command line in-process and captures its output. */
final class CliRun {
    record Result(int code, String out, String err) {
        String[] lines() {
            return out.split("\n");
        }
    }

    static Result run(String... args) {
        CommandLine cl = Main.commandLine();
        StringWriter out = new StringWriter(), err = new StringWriter();
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(err));
        int code = cl.execute(args);
        return new Result(code, out.toString(), err.toString());
    }
}

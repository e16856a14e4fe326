package dev.zluda.cli;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class HelpTextTest {
    @Test
    void continuationLinesBecomeOneParagraphAndListsStay() {
        assertArrayEquals(new String[] {"Run a program, with or without recording it, or record it.", "", "Exit codes: 0 ok."},
                HelpText.join(new String[] {"Run a program, with or without", "recording it, or record it.", "", "Exit codes: 0 ok."}));
        assertArrayEquals(new String[] {"Convert:", "  jsonl  one line", "         continued", "Samples: a, b.", "Next sentence."},
                HelpText.join(new String[] {"Convert:", "  jsonl  one line", "         continued", "Samples: a, b.", "Next sentence."}));
    }

    /** {@code zluda} alone is a usage error (exit 2) with the help on stderr; {@code zluda --help} is not (exit 0, stdout). */
    @Test
    void noCommandIsAUsageErrorWithTheHelpOnStderr() {
        CliRun.Result none = CliRun.run();
        assertEquals(2, none.code());
        assertEquals("", none.out());
        assertTrue(none.err().contains("Exit codes (every command)"), none.err());
        CliRun.Result help = CliRun.run("--help");
        assertEquals(0, help.code());
        assertTrue(help.out().contains("Exit codes (every command)"), help.out());
        assertTrue(help.out().replaceAll("\\s+", " ").contains("demo: the run differs"), "as the README lists it: " + help.out());
    }

    @Test
    void noHelpTextBreaksASentenceInTheMiddle() {
        // every command's help, wrapped at 80 columns: a line that ends mid-sentence must be followed
        // by a line that picocli wrapped (so it is long), never by a short source line
        CommandLine cl = Main.commandLine();
        check(cl);
    }

    private static void check(CommandLine cl) {
        CommandLine.Model.UsageMessageSpec u = cl.getCommandSpec().usageMessage();
        for (String[] text : new String[][] {u.description(), u.footer()}) {
            for (int i = 0; i + 1 < text.length; i++) {
                String a = text[i], b = text[i + 1];
                boolean midSentence = !a.isEmpty() && !b.isEmpty() && !Character.isWhitespace(b.charAt(0))
                        && Character.isLowerCase(b.charAt(0)) && !a.endsWith(".") && !a.endsWith(":");
                assertFalse(midSentence, cl.getCommandName() + ": a sentence broken across source lines: '" + a + "' / '" + b + "'");
            }
        }
        for (CommandLine sub : cl.getSubcommands().values()) check(sub);
    }
}

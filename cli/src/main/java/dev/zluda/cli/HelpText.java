package dev.zluda.cli;

import picocli.CommandLine;
import picocli.CommandLine.Model.UsageMessageSpec;

import java.util.ArrayList;
import java.util.List;

/**
 * Turns the help texts' source lines into paragraphs that picocli wraps to the terminal's width.
 *
 * <p>The commands' descriptions and footers are written as several short lines per sentence (so
 * the source stays readable); printed as such, each line would be wrapped again at 80 columns and
 * the text would come out ragged. Consecutive lines are joined into one paragraph unless the
 * first is empty, ends a sentence or a label ({@code .}, {@code :}) or is indented, or the
 * second is indented (list items and examples are indented), which keeps lists, examples and
 * "Exit codes: ..." lines as they are.
 */
final class HelpText {
    private HelpText() {
    }

    /** Reflows the description, header and footer of {@code cl} and of all its subcommands. */
    static void reflow(CommandLine cl) {
        UsageMessageSpec u = cl.getCommandSpec().usageMessage();
        u.description(join(u.description()));
        u.footer(join(u.footer()));
        u.header(join(u.header()));
        for (CommandLine sub : cl.getSubcommands().values()) reflow(sub);
    }

    /** Joins continuation lines into paragraphs; see the class comment for the rule. */
    static String[] join(String[] lines) {
        List<String> out = new ArrayList<>();
        StringBuilder cur = null;
        for (String line : lines) {
            boolean continues = cur != null && !cur.isEmpty() && !line.isEmpty()
                    && !Character.isWhitespace(line.charAt(0))
                    && !Character.isWhitespace(cur.charAt(0))
                    && !endsParagraph(cur);
            if (continues) {
                cur.append(' ').append(line);
            } else {
                if (cur != null) out.add(cur.toString());
                cur = new StringBuilder(line);
            }
        }
        if (cur != null) out.add(cur.toString());
        return out.toArray(String[]::new);
    }

    private static boolean endsParagraph(CharSequence s) {
        char c = s.charAt(s.length() - 1);
        return c == '.' || c == ':' || c == ')' && s.length() > 1 && s.charAt(s.length() - 2) == '.';
    }
}

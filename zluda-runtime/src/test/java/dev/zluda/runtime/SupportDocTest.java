package dev.zluda.runtime;

import dev.zluda.runtime.driver.Support;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** docs/support.md lists exactly the driver functions the code implements. */
class SupportDocTest {
    @Test
    void supportPageListsTheImplementedFunctions() throws Exception {
        Path doc = Path.of(System.getProperty("zluda.repo", "..")).resolve("docs/support.md");
        String text = Files.readString(doc);
        int begin = text.indexOf("<!-- implemented-functions:begin -->");
        int end = text.indexOf("<!-- implemented-functions:end -->");
        assertTrue(begin >= 0 && end > begin, "docs/support.md lacks the implemented-functions markers");
        List<String> listed = new ArrayList<>();
        Matcher m = Pattern.compile("`(cu\\w+)`").matcher(text.substring(begin, end));
        while (m.find()) listed.add(m.group(1));
        assertEquals(Support.implementedFunctions(), listed.stream().sorted().toList(),
                "docs/support.md's list of implemented functions differs from ZludaDriver");
        assertTrue(text.contains(Support.implementedFunctions().size() + " of "), "the page states the count");
    }
}

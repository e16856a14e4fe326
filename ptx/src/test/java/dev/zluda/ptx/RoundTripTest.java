package dev.zluda.ptx;

import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

import java.nio.file.Path;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Every corpus file parses without diagnostics, and parse → print → parse gives an equal AST. */
class RoundTripTest {
    @TestFactory
    Stream<DynamicTest> corpusRoundTrips() {
        return Corpus.files().stream().map(f -> DynamicTest.dynamicTest(f.getFileName().toString(), () -> roundTrip(f)));
    }

    private static void roundTrip(Path f) {
        ParseResult first = Ptx.parse(Corpus.read(f), f.toString());
        assertTrue(first.ok(), () -> "diagnostics: " + first.diagnostics());
        assertTrue(first.module().functions().size() > 0, "no function parsed");
        String printed = PtxPrinter.print(first.module());
        ParseResult second = Ptx.parse(printed, f + " (printed)");
        assertTrue(second.ok(), () -> "printed text does not parse: " + second.diagnostics() + "\n" + printed);
        assertEquals(first.module(), second.module(), "AST differs after printing");
        assertEquals(printed, PtxPrinter.print(second.module()), "printing is not a fixpoint");
    }
}

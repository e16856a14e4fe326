package dev.zluda.spec;

import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SizeExprTest {
    @Test
    void evaluatesArithmeticOverParameters() {
        SizeExpr e = SizeExpr.parse("WidthInBytes * Height + 2 * (n - 1) + sizeof(int)");
        Map<String, Long> p = Map.of("WidthInBytes", 64L, "Height", 3L, "n", 5L);
        assertEquals(64 * 3 + 2 * 4 + 4, e.evaluate(p::get, t -> t.equals("int") ? 4 : -1));
        assertEquals(Set.of("WidthInBytes", "Height", "n"), e.references());
        assertEquals(Set.of("int"), e.sizeofTypes());
        assertEquals(255, SizeExpr.parse("0xff").evaluate(x -> 0, x -> 0));
    }

    @Test
    void errorsNameTheColumn() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> SizeExpr.parse("a * * b"));
        assertTrue(e.getMessage().contains("column 5"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> SizeExpr.parse("(a + b"));
        assertThrows(IllegalArgumentException.class, () -> SizeExpr.parse(""));
    }

    @Test
    void overflowIsAnErrorNotAWrongSize() {
        SizeExpr e = SizeExpr.parse("a * b");
        assertThrows(ArithmeticException.class, () -> e.evaluate(x -> Long.MAX_VALUE / 2, x -> 0));
    }
}

package dev.zluda.viewer;

import dev.zluda.diff.PlantedPair;
import javafx.geometry.Bounds;
import javafx.scene.Node;
import javafx.scene.control.TableCell;
import javafx.scene.input.KeyCode;
import javafx.stage.Stage;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Drives the two-capture window (headless, Monocle) on the vectorAdd capture recorded on the H200
 * against a copy with other handle values and three planted divergences ({@link PlantedPair}): an
 * extra call in B before A's call 12 (row 12 of the side-by-side table), A's call 14 failing in B,
 * and other data copied back by A's call 15.
 */
@ExtendWith(ApplicationExtension.class)
class DiffWindowTest {
    @TempDir
    static Path tmp;

    private DiffWindow w;

    @BeforeAll
    static void headless() {
        Fx.headless();
    }

    @Start
    void start(Stage stage) {
        w = new DiffWindow(stage);
        stage.show();
    }

    private void open(FxRobot robot) throws Exception {
        Path a = Fx.sample("vectorAdd-replay");
        Path b = PlantedPair.write(a, tmp.resolve("b-" + System.nanoTime()));
        robot.interact(() -> w.open(a, b));
        WaitForAsyncUtils.waitFor(30, TimeUnit.SECONDS, () -> WaitForAsyncUtils.asyncFx(w::isLoaded).get());
        WaitForAsyncUtils.waitForFxEvents();
        assertNull(w.loadError());
    }

    private static String cellText(FxRobot robot, String column, int row) {
        for (Node n : robot.lookup("#aligned .table-cell").queryAll()) {
            if (n instanceof TableCell<?, ?> c && c.getTableColumn() != null && column.equals(c.getTableColumn().getId()) && c.getIndex() == row) {
                return c.getText();
            }
        }
        throw new AssertionError("row " + row + " of column " + column + " is not on screen");
    }

    @Test
    void followsTheDivergencesWithKeysButtonsAndTheMinimap(FxRobot robot) throws Exception {
        open(robot);
        // 20 calls of A plus B's extra one; the extra call is the first divergence and is selected on opening
        assertEquals(21, w.alignment().size());
        assertArrayEquals(new int[] {11, 14, 15}, w.divergenceRows());
        assertEquals(11, w.selectedRow());
        assertEquals("—", cellText(robot, "aNum", 11));
        assertEquals("12", cellText(robot, "bNum", 11));
        assertEquals("cuCtxSynchronize", cellText(robot, "bFunction", 11));
        assertEquals("only in B", cellText(robot, "difference", 11));
        assertEquals("divergence 1 of 3", robot.lookup("#divergencePosition").queryLabeled().getText());
        // other handle and pointer values in B: expected, ignored, said so
        assertTrue(robot.lookup("#diffSummary").queryLabeled().getText().contains("3 diverging (extra 1, result 1, data 1)"),
                robot.lookup("#diffSummary").queryLabeled().getText());

        // N: A's call 14 (B's 15), whose result differs
        robot.interact(() -> w.table.requestFocus());
        robot.type(KeyCode.N);
        assertEquals(14, w.selectedRow());
        assertEquals("14", cellText(robot, "aNum", 14));
        assertEquals("15", cellText(robot, "bNum", 14));
        assertEquals("CUDA_SUCCESS", cellText(robot, "aResult", 14));
        assertEquals("CUDA_ERROR_ILLEGAL_ADDRESS", cellText(robot, "bResult", 14));
        assertTrue(robot.lookup("#divergenceText").queryTextInputControl().getText().contains("B: CUDA_ERROR_ILLEGAL_ADDRESS"));

        // the Next button: the data copied back, with its heatmap and histogram
        robot.clickOn("#nextDivergence");
        assertEquals(15, w.selectedRow());
        assertEquals("cuMemcpyDtoH_v2", cellText(robot, "aFunction", 15));
        assertTrue(cellText(robot, "difference", 15).startsWith("data: 2 of 1,024 elements differ"), cellText(robot, "difference", 15));
        assertTrue(robot.lookup("#heatmap").tryQuery().isPresent());
        assertTrue(robot.lookup("#errorHistogram").tryQuery().isPresent());
        assertTrue(robot.lookup("#divergenceText").queryTextInputControl().getText().contains("first at element 100 (byte 400): "));
        snapshot(robot, "diff-window.png");

        // past the last one nothing moves; P goes back
        robot.type(KeyCode.N);
        assertEquals(15, w.selectedRow());
        robot.type(KeyCode.P);
        assertEquals(14, w.selectedRow());

        // the minimap: a click at the top goes to the nearest divergence, row 11; at the bottom to row 15
        Bounds mb = WaitForAsyncUtils.asyncFx(() -> w.minimap.localToScreen(w.minimap.getBoundsInLocal())).get();
        robot.clickOn(new javafx.geometry.Point2D(mb.getCenterX(), mb.getMinY() + 2));
        assertEquals(11, w.selectedRow());
        robot.clickOn(new javafx.geometry.Point2D(mb.getCenterX(), mb.getMaxY() - 2));
        assertEquals(15, w.selectedRow());
        // the divergence at 14/21 of the height
        robot.clickOn(new javafx.geometry.Point2D(mb.getCenterX(), mb.getMinY() + mb.getHeight() * 14.5 / 21));
        assertEquals(14, w.selectedRow());
    }

    private void snapshot(FxRobot robot, String name) throws Exception {
        Path out = Fx.repo().resolve("diff-viewer/target/screenshots").resolve(name);
        Files.createDirectories(out.getParent());
        robot.interact(() -> {
            try {
                Viewer.writePng(w.stage().getScene(), out);
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
    }
}

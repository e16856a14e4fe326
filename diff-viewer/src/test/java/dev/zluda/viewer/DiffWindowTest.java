package dev.zluda.viewer;

import dev.zluda.capture.Capture;
import dev.zluda.capture.KernelSnapshots;
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
import java.util.List;
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

    private Path a, b;

    private void open(FxRobot robot) throws Exception {
        a = Fx.sample("vectorAdd-replay");
        b = PlantedPair.write(a, tmp.resolve("b-" + System.nanoTime()));
        open(robot, a, b);
    }

    private void open(FxRobot robot, Path a, Path b) throws Exception {
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
    void aComparisonCanBeCancelled(FxRobot robot) throws Exception {
        Path a = Fx.sample("vectorAdd-replay");
        Path b = PlantedPair.write(a, tmp.resolve("c-" + System.nanoTime()));
        boolean[] cancelShown = new boolean[1];
        robot.interact(() -> {
            w.open(a, b);
            cancelShown[0] = robot.lookup("#cancelCompare").query().isVisible();
            w.cancelComparison();
        });
        assertTrue(cancelShown[0], "Cancel shows while comparing");
        assertTrue(w.isLoaded());
        assertEquals("comparison cancelled", w.loadError());
        // the comparison stops (or its result is dropped): still nothing shown a while later
        WaitForAsyncUtils.sleep(2, TimeUnit.SECONDS);
        WaitForAsyncUtils.waitForFxEvents();
        assertEquals(0, w.table.getItems().size());
        assertTrue(robot.lookup("#status").queryLabeled().getText().startsWith("Comparison cancelled"), robot.lookup("#status").queryLabeled().getText());
        assertFalse(robot.lookup("#cancelCompare").query().isVisible());
        // comparing again works
        open(robot, a, b);
        assertEquals(21, w.alignment().size());
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
        // at once the diff's heatmap of where they differ, then (read in the background) more
        assertTrue(robot.lookup("#heatmap").tryQuery().isPresent());
        assertTrue(robot.lookup("#divergenceText").queryTextInputControl().getText().contains("first at element 100 (byte 400): "));
        // A's and B's buffers read again from the captures, drawn with their difference and a histogram of the errors
        WaitForAsyncUtils.waitFor(20, TimeUnit.SECONDS, () -> WaitForAsyncUtils.asyncFx(() -> w.shownImages() != null).get());
        WaitForAsyncUtils.waitForFxEvents();
        assertTrue(robot.lookup("#imageA").tryQuery().isPresent());
        assertTrue(robot.lookup("#imageB").tryQuery().isPresent());
        assertTrue(robot.lookup("#heatmap").tryQuery().isPresent());
        assertTrue(robot.lookup("#errorHistogram").tryQuery().isPresent());
        BufferImages im = w.shownImages();
        byte[] ab, bb;
        try (Capture ca = Capture.open(a); Capture cb = Capture.open(b)) {
            ab = CopyBuffers.bytes(ca, "A", 15, "dstHost", true);
            bb = CopyBuffers.bytes(cb, "B", 16, "dstHost", true);
        }
        java.nio.FloatBuffer fa = java.nio.ByteBuffer.wrap(ab).order(java.nio.ByteOrder.LITTLE_ENDIAN).asFloatBuffer(),
                fb = java.nio.ByteBuffer.wrap(bb).order(java.nio.ByteOrder.LITTLE_ENDIAN).asFloatBuffer();
        // what PlantedPair planted: element 100 larger by 0.5, element 700 NaN, the rest the same
        assertEquals(fa.get(100) + 0.5f, fb.get(100));
        assertTrue(Float.isNaN(fb.get(700)) && !Float.isNaN(fa.get(700)));
        assertEquals(1024, im.elements);
        assertEquals(2, im.differing);
        assertEquals(1, im.nanErrors);
        long ulps = Math.abs((long) Float.floatToRawIntBits(fb.get(100)) - Float.floatToRawIntBits(fa.get(100)));
        int bin = 64 - Long.numberOfLeadingZeros(ulps);
        assertEquals(1, im.bins[bin]);
        assertEquals(1, java.util.Arrays.stream(im.bins).sum());
        assertTrue(im.ulps);
        assertEquals(0.5, im.maxAbs, 1e-6);
        // one cell per element: the same colour in A and B except where they differ; the difference green elsewhere
        int green = 0xFF000000 | dev.zluda.diff.Heatmap.color(0);
        for (int k = 0; k < 1024; k++) {
            if (k == 100 || k == 700) assertNotEquals(green, im.diff[k]);
            else {
                assertEquals(green, im.diff[k], "element " + k);
                assertEquals(im.a[k], im.b[k], "element " + k);
            }
        }
        assertNotEquals(im.a[700], im.b[700]);
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

    @Test
    void aDivergingLaunchIsLocatedInBsPtx(FxRobot robot) throws Exception {
        Path a = Fx.sample("vectorAdd-kernels");
        long launch;
        try (Capture ca = Capture.open(a)) {
            launch = KernelSnapshots.read(ca).list().getFirst().launchCall();
        }
        Path b = PlantedPair.failingCall(a, tmp.resolve("launch-" + System.nanoTime()), launch);
        int line = ViewerWindowTest.ptxLine("add.f32");
        ViewerWindowTest.FakeLocator loc = new ViewerWindowTest.FakeLocator(c -> ViewerWindowTest.found(line));
        robot.interact(() -> w.setKernelLocator(loc));
        open(robot, a, b);
        // the failing launch is the only divergence, selected on opening
        assertEquals(1, w.divergenceRows().length);
        assertEquals(launch, w.alignment().bCall(w.selectedRow()));
        // both captures say they were recorded on NVIDIA's driver (B is A's copy): the button says what runs
        assertEquals("Locate the diverging instruction in B (nvidia against nvidia)",
                robot.lookup("#locateInstruction").queryAs(javafx.scene.control.Button.class).getText());
        robot.clickOn("#locateInstruction");
        WaitForAsyncUtils.waitFor(30, TimeUnit.SECONDS, () -> WaitForAsyncUtils.asyncFx(() -> w.locateWindow() != null
                && w.locateWindow().isLoaded() && w.locateWindow().locatedResult() != null).get());
        WaitForAsyncUtils.waitForFxEvents();
        ViewerWindow vw = w.locateWindow();
        assertEquals(List.of("failing " + launch), loc.asked);
        assertEquals(launch - 1, vw.selectedCallProperty().get());
        assertEquals(line - 1, vw.modules.selectedLine());
        assertTrue(vw.modules.locateBannerText().contains("zluda: 0x40400000 (3)"), vw.modules.locateBannerText());
        robot.interact(() -> vw.stage().close());
    }

    /** A localisation that cannot run on this machine (no NVIDIA driver) is not offered: the button gives way to why. */
    @Test
    void aLocalisationThatCannotRunHereIsNotOffered(FxRobot robot) throws Exception {
        Path a = Fx.sample("vectorAdd-kernels");
        long launch;
        try (Capture ca = Capture.open(a)) {
            launch = KernelSnapshots.read(ca).list().getFirst().launchCall();
        }
        Path b = PlantedPair.failingCall(a, tmp.resolve("nodriver-" + System.nanoTime()), launch);
        List<Long> asked = new java.util.concurrent.CopyOnWriteArrayList<>();
        KernelLocator noDriver = new KernelLocator() {
            @Override
            public Result locate(Path capture, long launchCall, java.util.function.Consumer<String> progress) {
                asked.add(launchCall);
                return Result.cannotRun("must not run");
            }

            @Override
            public String describe() {
                return "zluda against nvidia";
            }

            @Override
            public String unavailable() {
                return "needs NVIDIA's driver, and this machine has none";
            }
        };
        robot.interact(() -> w.setKernelLocator(noDriver));
        open(robot, a, b);
        assertEquals(launch, w.alignment().bCall(w.selectedRow()), "the diverging launch is selected");
        assertFalse(robot.lookup("#locateInstruction").query().isVisible(), "no button for what cannot run");
        javafx.scene.control.Label hint = robot.lookup("#locateHint").queryAs(javafx.scene.control.Label.class);
        assertTrue(hint.isVisible());
        assertEquals("Locating the diverging instruction (zluda against nvidia) needs NVIDIA's driver, and this machine has none", hint.getText());
        assertTrue(asked.isEmpty());
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

package dev.zluda.viewer;

import dev.zluda.diff.LargePair;
import dev.zluda.diff.PlantedPair;
import javafx.stage.Stage;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The two-capture window at the sizes people use (1366×768, 1920×1080, 3840×2160) with small (1,024
 * elements, {@link PlantedPair}) and realistic (65,536-element f32, {@link LargePair}) buffers, headless:
 * the first divergence's data selected, its images and histogram read; screenshots under
 * diff-viewer/target/screenshots.
 */
@ExtendWith(ApplicationExtension.class)
class DiffWindowLayoutTest {
    @TempDir
    static Path tmp;

    private DiffWindow w;
    private Stage stage;

    @BeforeAll
    static void headless() {
        Fx.headless();
    }

    @org.junit.jupiter.api.AfterEach
    void lightAgain(FxRobot robot) {
        robot.interact(() -> {
            Theme.setDark(false);
            Theme.setFontSize(12);
        });
    }

    @Start
    void start(Stage stage) {
        this.stage = stage;
        w = new DiffWindow(stage);
        stage.show();
    }

    private Path[] pair(int n) throws Exception {
        Path a = Fx.sample("vectorAdd-replay");
        if (n == 1024) return new Path[] {a, PlantedPair.write(a, tmp.resolve("small-" + System.nanoTime()))};
        return LargePair.write(a, tmp.resolve("large-" + System.nanoTime()), n);
    }

    @ParameterizedTest(name = "{0}x{1}, {2} elements, {3}")
    @CsvSource({"1366, 768, 1024, light", "1366, 768, 65536, light", "1920, 1080, 65536, light", "3840, 2160, 65536, light",
            "1920, 1080, 1024, light", "3840, 2160, 1024, light", "1366, 768, 65536, dark", "1920, 1080, 65536, dark"})
    void theFirstDataDivergenceFits(int width, int height, int elements, String theme, FxRobot robot) throws Exception {
        Path[] p = pair(elements);
        robot.interact(() -> {
            Theme.setDark(theme.equals("dark"));
            Theme.setFontSize(width >= 3000 ? 18 : 12);   // as Theme chooses on an unscaled 4K screen
            stage.setWidth(width);
            stage.setHeight(height);
            w.open(p[0], p[1]);
        });
        WaitForAsyncUtils.waitFor(60, TimeUnit.SECONDS, () -> WaitForAsyncUtils.asyncFx(w::isLoaded).get());
        assertNull(w.loadError());
        // the data divergence (A's call 15): its buffers read, images and histogram shown
        robot.interact(() -> w.selectRow(w.divergenceRows()[w.divergenceRows().length - 1]));
        WaitForAsyncUtils.waitFor(60, TimeUnit.SECONDS, () -> WaitForAsyncUtils.asyncFx(() -> w.shownImages() != null).get());
        WaitForAsyncUtils.waitForFxEvents();
        robot.interact(() -> {
            javafx.scene.control.SplitPane split = (javafx.scene.control.SplitPane) robot.lookup("#detailsSplit").query();
            javafx.scene.control.TextArea text = robot.lookup("#divergenceText").queryAs(javafx.scene.control.TextArea.class);
            javafx.scene.control.ScrollPane images = robot.lookup("#heatmapsScroll").queryAs(javafx.scene.control.ScrollPane.class);
            // neither pane squeezed: the call's text keeps its minimum, the images theirs
            assertTrue(text.getWidth() >= DiffWindow.MIN_TEXT_WIDTH - 1, "details text " + text.getWidth() + " px wide");
            assertTrue(images.getWidth() >= DiffWindow.MIN_IMAGES_WIDTH - 1, "images " + images.getWidth() + " px wide");
            // the images and the histogram fit the pane's height: nothing to scroll vertically
            assertTrue(w.heatmapsHeight() <= images.getViewportBounds().getHeight() + 1,
                    "images " + w.heatmapsHeight() + " px high in " + images.getViewportBounds().getHeight());
            // the histogram's title is whole (wrapped, not cut off with an ellipsis)
            javafx.scene.control.Label title = robot.lookup("#histogramTitle").queryAs(javafx.scene.control.Label.class);
            title.getParent().applyCss();
            title.getParent().layout();
            javafx.scene.text.Text shown = (javafx.scene.text.Text) title.lookup(".text");
            assertNotNull(shown, "the title's text");
            assertEquals(title.getText(), shown.getText(), "histogram title cut off");
            // every planted difference shows in the difference image, however small it is drawn: the band of
            // small errors from n/3, the block of large ones from n/2, the NaNs from 3n/4
            javafx.scene.image.Image diff = ((javafx.scene.image.ImageView) robot.lookup("#heatmap").query()).getImage();
            BufferImages im = w.shownImages();
            int equal = 0xFF000000 | dev.zluda.diff.Heatmap.color(0);
            int ih = (int) diff.getHeight();
            int[] planted = elements == 1024 ? new int[] {100, 700} : new int[] {elements / 3, elements / 2, 3 * elements / 4};
            for (int e : planted) {
                int cellRow = (int) (e / im.perCell / im.width);
                // the pixel row that covers that row of cells (the window's mapping: rows [y·h/ih, (y+1)·h/ih) of cells)
                int y = 0;
                while (y + 1 < ih && Math.max((long) y * im.height / ih + 1, (long) (y + 1) * im.height / ih) <= cellRow) y++;
                boolean seen = false;
                for (int x = 0; x < diff.getWidth() && !seen; x++) seen = diff.getPixelReader().getArgb(x, y) != equal;
                assertTrue(seen, "the difference at element " + e + " (cell row " + cellRow + " of " + im.height + ") shows in row " + y + " of the " + ih + " px image");
            }
            // the divider moves: the text can be widened past half the window, and narrowed back
            split.setDividerPositions(0.8);
        });
        WaitForAsyncUtils.waitForFxEvents();
        robot.interact(() -> {
            javafx.scene.control.TextArea text = robot.lookup("#divergenceText").queryAs(javafx.scene.control.TextArea.class);
            assertTrue(text.getWidth() > stage.getWidth() * 0.5, "the divider moved: " + text.getWidth());
            ((javafx.scene.control.SplitPane) robot.lookup("#detailsSplit").query()).setDividerPositions(0.34);
        });
        WaitForAsyncUtils.waitForFxEvents();
        Path out = Fx.repo().resolve("diff-viewer/target/screenshots").resolve("diff-" + width + "x" + height + "-" + elements + "-" + theme + ".png");
        Files.createDirectories(out.getParent());
        robot.interact(() -> {
            try {
                Viewer.writePng(w.stage().getScene(), out);
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
    }

    /**
     * A cudart program's comparison whose first divergence comes after cudart's 440 look-ups and the
     * export-table calls: it is selected and scrolled into view when the comparison is shown.
     */
    @org.junit.jupiter.api.Test
    void theFirstDivergenceIsScrolledIntoView(FxRobot robot) throws Exception {
        Path a = Fx.sample("cudart_demo");
        Path b = PlantedPair.failingCall(a, tmp.resolve("cudart-" + System.nanoTime()), 470);
        robot.interact(() -> {
            stage.setWidth(1366);
            stage.setHeight(768);
            w.open(a, b);
        });
        WaitForAsyncUtils.waitFor(60, TimeUnit.SECONDS, () -> WaitForAsyncUtils.asyncFx(w::isLoaded).get());
        WaitForAsyncUtils.waitForFxEvents();
        WaitForAsyncUtils.waitForFxEvents();
        int first = w.divergenceRows()[0];
        assertTrue(first > 400, "the first divergence is far down: row " + first);
        assertEquals(first, w.selectedRow());
        // the table scrolls on a later layout pulse: on a loaded machine that can take more than two event rounds
        try {
            WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS, () -> WaitForAsyncUtils.asyncFx(() -> w.rowVisible(first)).get());
        } catch (java.util.concurrent.TimeoutException e) {
            fail("row " + first + " is not on screen 10 s after the pair was loaded");
        }
    }
}

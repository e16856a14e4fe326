package dev.zluda.viewer;

import dev.zluda.diff.PlantedPair;
import javafx.scene.Node;
import javafx.scene.control.Labeled;
import javafx.scene.control.TableCell;
import javafx.scene.control.TableRow;
import javafx.scene.layout.Background;
import javafx.scene.layout.BackgroundFill;
import javafx.scene.layout.Region;
import javafx.scene.paint.Color;
import javafx.scene.paint.Paint;
import javafx.scene.text.Text;
import javafx.stage.Stage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Both themes, as rendered (headless): every text the windows show on screen has a contrast ratio of at
 * least 4.5 with the background behind it (WCAG 2.x AA, {@link Theme#contrast}): table cells of plain,
 * failing, diverging and one-sided rows, hints, titles, and the PTX view's line numbers and tokens on
 * every row. Screenshots under diff-viewer/target/screenshots.
 */
@ExtendWith(ApplicationExtension.class)
class ThemeTest {
    @TempDir
    static Path tmp;

    private Stage stage;

    @BeforeAll
    static void headless() {
        Fx.headless();
    }

    @Start
    void start(Stage stage) {
        this.stage = stage;
    }

    @AfterEach
    void light(FxRobot robot) {
        System.clearProperty("zluda.view.size");
        robot.interact(() -> Theme.setDark(false));
    }

    /** The background colour painted behind {@code n}: the innermost region up its parents with an opaque fill. */
    private static Color background(Node n) {
        for (Node p = n; p != null; p = p.getParent()) {
            if (p instanceof Region r && r.getBackground() != null && !r.getBackground().isEmpty()) {
                Background b = r.getBackground();
                List<BackgroundFill> fills = b.getFills();
                for (int i = fills.size() - 1; i >= 0; i--) {
                    if (fills.get(i).getFill() instanceof Color c && c.getOpacity() > 0.9) return c;
                }
            }
        }
        return Color.WHITE;
    }

    private static boolean treeVisible(Node n) {
        for (Node p = n; p != null; p = p.getParent()) if (!p.isVisible() || p.getOpacity() < 0.5) return false;
        return true;
    }

    private static Color color(Paint p) {
        return p instanceof Color c ? c : Color.BLACK;
    }

    /** Checks every visible labeled and text node under {@code root}; returns how many were checked. */
    private static int checkAll(Node root, String where, List<String> failures) {
        int[] n = {0};
        for (Node x : root.lookupAll("*")) {
            if (x.getScene() == null || !treeVisible(x)) continue;
            Color fg, bg = background(x);
            String text;
            if (x instanceof Labeled l && l.getText() != null && !l.getText().isBlank() && l.getGraphic() == null) {
                fg = color(l.getTextFill());
                text = l.getText();
            } else if (x instanceof Text t && t.getText() != null && !t.getText().isBlank() && !(t.getParent() instanceof Labeled)
                    && !t.getStyleClass().contains("text")) {
                fg = color(t.getFill());
                text = t.getText();
            } else {
                continue;
            }
            n[0]++;
            double c = Theme.contrast(fg, bg);
            if (c < 4.5) failures.add(String.format("%s: '%s' %s on %s: %.2f", where, text.length() > 40 ? text.substring(0, 40) : text, fg, bg, c));
        }
        return n[0];
    }

    private void shot(FxRobot robot, String name) throws Exception {
        Path out = Fx.repo().resolve("diff-viewer/target/screenshots").resolve(name);
        Files.createDirectories(out.getParent());
        robot.interact(() -> {
            try {
                Viewer.writePng(stage.getScene(), out);
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
    }

    @ParameterizedTest
    @ValueSource(strings = {"light", "dark"})
    void everyTextHasEnoughContrast(String theme, FxRobot robot) throws Exception {
        robot.interact(() -> Theme.setDark(theme.equals("dark")));
        List<String> failures = new ArrayList<>();
        int checked = 0;
        // one capture: calls with errors, the PTX view
        ViewerWindow[] v = new ViewerWindow[1];
        System.setProperty("zluda.view.size", "1366x768");
        robot.interact(() -> {
            v[0] = new ViewerWindow(stage);
            stage.sizeToScene();
            stage.show();
            v[0].open(Fx.sample("illegalAccess"));
        });
        WaitForAsyncUtils.waitFor(30, TimeUnit.SECONDS, () -> WaitForAsyncUtils.asyncFx(() -> v[0].isLoaded()).get());
        WaitForAsyncUtils.waitForFxEvents();
        javafx.css.PseudoClass error = javafx.css.PseudoClass.getPseudoClass("error");
        robot.interact(() -> {
            int firstFailed = 0;
            while (!v[0].index().failed(firstFailed)) firstFailed++;
            v[0].select(firstFailed - 2);   // the failing calls below it, on screen
        });
        try {
            WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS, () -> WaitForAsyncUtils.asyncFx(() -> robot.lookup("#calls .table-row-cell").queryAllAs(TableRow.class)
                    .stream().anyMatch(r -> r.getPseudoClassStates().contains(error))).get());
        } catch (java.util.concurrent.TimeoutException e) {
            fail("no failing call on screen: " + robot.lookup("#calls .table-row-cell").queryAllAs(TableRow.class).stream()
                    .map(r -> r.getIndex() + ":" + r.getItem() + r.getPseudoClassStates()).toList() + " rows " + v[0].rows().size());
        }
        checked += checkAll(stage.getScene().getRoot(), theme + " calls", failures);
        shot(robot, "theme-" + theme + "-calls.png");
        Path syn = tmp.resolve("syn-" + theme);
        SyntheticCapture.write(syn, 60, 2);
        robot.interact(() -> v[0].open(syn));
        WaitForAsyncUtils.waitFor(30, TimeUnit.SECONDS, () -> WaitForAsyncUtils.asyncFx(() -> v[0].isLoaded()).get());
        int launch = CallIndexTest.firstOf(v[0].index(), "cuLaunchKernel");
        robot.interact(() -> v[0].select(launch));
        robot.clickOn("#goToEntry");
        WaitForAsyncUtils.waitForFxEvents();
        int ptxTexts = checkAll(robot.lookup("#ptxView").query(), theme + " PTX", failures);
        assertTrue(ptxTexts > 30, "PTX tokens and line numbers checked: " + ptxTexts);
        assertTrue(robot.lookup("#ptxView .ptx-line-number").queryAllAs(Text.class).size() > 10, "line numbers on screen");
        checked += ptxTexts;
        shot(robot, "theme-" + theme + "-ptx.png");
        // two captures: diverging and one-sided rows
        DiffWindow[] d = new DiffWindow[1];
        Path a = Fx.sample("vectorAdd-replay"), b = PlantedPair.write(a, tmp.resolve("b-" + theme));
        robot.interact(() -> {
            d[0] = new DiffWindow(stage);
            d[0].open(a, b);
        });
        WaitForAsyncUtils.waitFor(30, TimeUnit.SECONDS, () -> WaitForAsyncUtils.asyncFx(() -> d[0].isLoaded()).get());
        robot.interact(() -> d[0].selectRow(d[0].divergenceRows()[2]));
        WaitForAsyncUtils.waitFor(30, TimeUnit.SECONDS, () -> WaitForAsyncUtils.asyncFx(() -> d[0].shownImages() != null).get());
        WaitForAsyncUtils.waitForFxEvents();
        checked += checkAll(stage.getScene().getRoot(), theme + " diff", failures);
        shot(robot, "theme-" + theme + "-diff.png");
        assertTrue(checked > 150, "texts checked: " + checked);
        assertEquals(List.of(), failures);
    }
}

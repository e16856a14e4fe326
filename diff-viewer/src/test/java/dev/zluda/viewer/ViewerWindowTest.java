package dev.zluda.viewer;

import dev.zluda.capture.Capture;
import dev.zluda.capture.text.Dump;
import javafx.css.PseudoClass;
import javafx.geometry.Point2D;
import javafx.scene.Node;
import javafx.scene.canvas.Canvas;
import javafx.scene.control.Label;
import javafx.scene.control.TabPane;
import javafx.scene.control.TableCell;
import javafx.scene.control.TableRow;
import javafx.scene.control.TableView;
import javafx.scene.text.Text;
import javafx.stage.Stage;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.*;

/** Drives the real viewer window (headless, Monocle) on the committed H200 captures and on a generated one. */
@ExtendWith(ApplicationExtension.class)
class ViewerWindowTest {
    @TempDir
    static Path tmp;

    private ViewerWindow w;

    @BeforeAll
    static void headless() {
        Fx.headless();
    }

    @Start
    void start(Stage stage) {
        w = new ViewerWindow(stage);
        stage.show();
    }

    private void open(FxRobot robot, Path capture) throws Exception {
        long t0 = System.nanoTime();
        robot.interact(() -> w.open(capture));
        WaitForAsyncUtils.waitFor(30, TimeUnit.SECONDS, () -> WaitForAsyncUtils.asyncFx(() -> w.isLoaded() || w.loadError() != null).get());
        WaitForAsyncUtils.waitForFxEvents();
        assertNull(w.loadError());
        System.err.printf("opened %s in %.2f s%n", capture.getFileName(), (System.nanoTime() - t0) / 1e9);
    }

    /** Texts of the table cells of one column that are on screen, in row order. */
    private static List<String> column(FxRobot robot, String id) {
        List<TableCell<?, ?>> cells = new java.util.ArrayList<>();
        for (Node n : robot.lookup("#calls .table-cell").queryAll()) if (n instanceof TableCell<?, ?> c) cells.add(c);
        return cells.stream()
                .filter(c -> c.getTableColumn() != null && id.equals(c.getTableColumn().getId()) && c.getText() != null && c.getIndex() >= 0)
                .sorted(Comparator.comparingInt(TableCell::getIndex)).map(TableCell::getText).toList();
    }

    private static TableCell<?, ?> cell(FxRobot robot, String id, String text) {
        return robot.lookup("#calls .table-cell").queryAllAs(TableCell.class).stream()
                .filter(c -> c.getTableColumn() != null && id.equals(c.getTableColumn().getId()) && text.equals(c.getText()))
                .findFirst().orElseThrow(() -> new AssertionError("no cell '" + text + "' in column " + id));
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

    private static List<String> dump(Path capture, Dump.Options o) throws Exception {
        StringWriter sw = new StringWriter();
        try (Capture cap = Capture.open(capture)) {
            Dump.dump(cap, o, new PrintWriter(sw));
        }
        return sw.toString().lines().filter(l -> !l.startsWith("#")).toList();
    }

    @Test
    void opensACaptureAndShowsEveryCall(FxRobot robot) throws Exception {
        Path capture = Fx.sample("vectorAdd");
        open(robot, capture);
        List<String> lines = dump(capture, Dump.Options.all());
        assertEquals(20, lines.size());
        assertEquals(lines.size(), w.rows().size());
        assertEquals(List.of("1", "2", "3"), column(robot, "num").subList(0, 3));
        assertEquals("cuInit", column(robot, "function").getFirst());
        assertEquals("Flags: 0", column(robot, "arguments").getFirst());
        assertEquals("CUDA_SUCCESS", column(robot, "result").getFirst());
        assertEquals("cuInit(Flags: 0) -> CUDA_SUCCESS", lines.getFirst());
        assertEquals(lines.getFirst(), w.decoder().line(0));
        assertEquals("20 calls", robot.lookup("#matchCount").queryAs(Label.class).getText());
        assertTrue(robot.lookup("#status").queryAs(Label.class).getText().startsWith("vectorAdd: 20 calls, 1 thread, 0 errors"),
                robot.lookup("#status").queryAs(Label.class).getText());
        robot.clickOn(cell(robot, "function", "cuLaunchKernel"));
        assertEquals(13, w.selectedCallProperty().get() + 1);
    }

    /**
     * The table fills its viewport: as many calls as fit its height (cells of fixed height), no
     * blank row while more calls follow. (It once took a row off on each layout pass while
     * loading, and a loaded vectorAdd showed calls 1-15 above two blank rows.)
     */
    @Test
    void theTableShowsAsManyCallsAsFit(FxRobot robot) throws Exception {
        open(robot, Fx.sample("vectorAdd"));
        assertFills(robot, "loaded");
        // a smaller window, then the first size again: the page follows the viewport both ways
        double height = w.stage().getHeight();
        try {
            for (double h : new double[] {height - 150, height}) {
                robot.interact(() -> w.stage().setHeight(h));
                assertFills(robot, "window " + h + " px high");
            }
        } finally {
            robot.interact(() -> w.stage().setHeight(height));   // the stage is shared with the next test
        }
    }

    /** Within 5 s (a few layout passes), the table shows min(20, the rows its viewport fits) calls from call 1, or one more cut by its edge. */
    private void assertFills(FxRobot robot, String when) throws Exception {
        Node view = robot.lookup("#calls .clipped-container").query();
        double cell = robot.lookup("#calls").queryAs(TableView.class).getFixedCellSize();
        int fit = -1;
        List<String> shown = List.of();
        for (long end = System.nanoTime() + 5_000_000_000L; System.nanoTime() < end; Thread.sleep(50)) {
            WaitForAsyncUtils.waitForFxEvents();
            fit = (int) Math.floor((view.getLayoutBounds().getHeight() + 0.5) / cell);
            shown = column(robot, "num");
            if (fit > 2 && shown.size() >= Math.min(20, fit) && shown.size() <= Math.min(20, fit + 1)) break;
        }
        assertTrue(fit > 2, "viewport " + view.getLayoutBounds());
        // every row that fits whole; one more cut by the viewport's edge is allowed (the flow may keep a
        // page computed a layout pass before a scroll bar took a few pixels)
        String what = when + ": rows shown " + shown + " in a viewport of " + view.getLayoutBounds().getHeight() + " px, " + fit + " fit whole";
        assertTrue(shown.size() >= Math.min(20, fit) && shown.size() <= Math.min(20, fit + 1), what);
        assertEquals("1", shown.getFirst());
    }

    @Test
    void aRegexFiltersTheFunctions(FxRobot robot) throws Exception {
        Path capture = Fx.sample("vectorAdd");
        open(robot, capture);
        robot.clickOn("#functionFilter").write("^cuMem");
        WaitForAsyncUtils.waitForFxEvents();
        List<String> expected = dump(capture, new Dump.Options(false, false, Pattern.compile("^cuMem"), false, 1, Long.MAX_VALUE));
        assertEquals(9, expected.size());
        assertEquals(expected.size(), w.rows().size());
        List<String> fns = column(robot, "function");
        assertEquals(9, fns.size());
        assertTrue(fns.stream().allMatch(f -> f.startsWith("cuMem")), fns.toString());
        assertEquals("9 of 20 calls", robot.lookup("#matchCount").queryAs(Label.class).getText());
        assertEquals(List.of("8", "9", "10", "11", "12"), column(robot, "num").subList(0, 5));
        robot.write("[");  // not a regular expression: the field says so, the rows stay
        WaitForAsyncUtils.waitForFxEvents();
        assertTrue(robot.lookup("#functionFilter").query().getStyleClass().contains("invalid"));
        assertEquals(9, w.rows().size());
    }

    @Test
    void errorsOnlyShowsTheFailingCalls(FxRobot robot) throws Exception {
        Path capture = Fx.sample("illegalAccess");
        open(robot, capture);
        // a failed call selected: the picture in docs/support.md
        robot.clickOn(cell(robot, "function", "cuMemFree_v2"));
        assertTrue(robot.lookup("#detailsTitle").queryAs(Label.class).getStyleClass().contains("error"));
        snapshot(robot, "viewer-calls.png");
        robot.clickOn("#errorsOnly");
        WaitForAsyncUtils.waitForFxEvents();
        List<String> expected = dump(capture, new Dump.Options(false, false, null, true, 1, Long.MAX_VALUE));
        assertEquals(List.of("cuCtxSynchronize() -> CUDA_ERROR_ILLEGAL_ADDRESS", "cuMemFree_v2(dptr: 0x7f1f13e00000) -> CUDA_ERROR_ILLEGAL_ADDRESS",
                "cuModuleUnload(hmod: 0x55677cb6b940) -> CUDA_ERROR_ILLEGAL_ADDRESS"), expected);
        assertEquals(List.of("cuCtxSynchronize", "cuMemFree_v2", "cuModuleUnload"), column(robot, "function"));
        assertEquals(List.of("11", "13", "15"), column(robot, "num"));
        assertTrue(column(robot, "result").stream().allMatch("CUDA_ERROR_ILLEGAL_ADDRESS"::equals));
        PseudoClass error = PseudoClass.getPseudoClass("error");
        long highlighted = robot.lookup("#calls .table-row-cell").queryAllAs(TableRow.class).stream()
                .filter(r -> r.getItem() != null && r.getPseudoClassStates().contains(error)).count();
        assertEquals(3, highlighted);
        snapshot(robot, "viewer-errors.png");
        robot.clickOn("#errorsOnly");
        WaitForAsyncUtils.waitForFxEvents();
        assertEquals(18, w.rows().size());
        assertEquals("1", column(robot, "num").getFirst());
    }

    @Test
    void theKeysAndTheScrollBarReachEveryRowOfALargeCapture(FxRobot robot) throws Exception {
        Path dir = tmp.resolve("large");
        long n = SyntheticCapture.write(dir, 40_000, 2);
        open(robot, dir);
        assertEquals(n, w.rows().size());
        robot.clickOn(cell(robot, "num", "1"));
        robot.press(javafx.scene.input.KeyCode.CONTROL).press(javafx.scene.input.KeyCode.END)
                .release(javafx.scene.input.KeyCode.END).release(javafx.scene.input.KeyCode.CONTROL);
        WaitForAsyncUtils.waitForFxEvents();
        assertEquals(n - 1, w.selectedCallProperty().get());
        assertTrue(column(robot, "num").contains(Long.toString(n)), column(robot, "num").toString());
        robot.type(javafx.scene.input.KeyCode.UP);
        assertEquals(n - 2, w.selectedCallProperty().get());
        // the scroll bar covers every row; the table holds one screen of them
        javafx.scene.control.ScrollBar bar = robot.lookup("#callScroll").queryAs(javafx.scene.control.ScrollBar.class);
        robot.interact(() -> bar.setValue(30_000));
        assertEquals(List.of("30001", "30002"), column(robot, "num").subList(0, 2));
        assertTrue(robot.lookup("#calls").queryAs(TableView.class).getItems().size() < 100);
        // a selected call far away is scrolled to
        robot.interact(() -> w.select(12_345));
        assertTrue(column(robot, "num").contains("12346"));
    }

    @Test
    void selectingACallShowsItsDetails(FxRobot robot) throws Exception {
        open(robot, Fx.sample("vectorAdd"));
        robot.clickOn(cell(robot, "function", "cuModuleGetFunction"));
        WaitForAsyncUtils.waitForFxEvents();
        assertEquals("#7  cuModuleGetFunction  →  CUDA_SUCCESS", robot.lookup("#detailsTitle").queryAs(Label.class).getText());
        assertTrue(robot.lookup("#detailsFacts").queryAs(Label.class).getText().startsWith("thread 527 · depth 0 · start +0.484391 s"));
        @SuppressWarnings("unchecked")
        TableView<CallDecoder.Argument> args = robot.lookup("#argumentTable").queryAs(TableView.class);
        assertEquals(3, args.getItems().size());
        CallDecoder.Argument hfunc = args.getItems().get(0), name = args.getItems().get(2);
        assertEquals("hfunc", hfunc.name());
        assertEquals("out", hfunc.direction());
        assertEquals("0x55d6afc3c600", hfunc.afterCall());
        assertEquals("name", name.name());
        assertEquals("const char *", name.cType());
        assertEquals("\"vectorAdd\"", name.atEntry());
        // the rendered argument table shows the output value
        assertTrue(robot.lookup("#argumentTable .table-cell").queryAllAs(TableCell.class).stream().anyMatch(c -> "0x55d6afc3c600".equals(c.getText())));
    }

    @Test
    void aLaunchJumpsToItsEntryInTheModulesView(FxRobot robot) throws Exception {
        Path dir = tmp.resolve("modules");
        SyntheticCapture.write(dir, 60, 2);
        open(robot, dir);
        int launch = CallIndexTest.firstOf(w.index(), "cuLaunchKernel");
        robot.interact(() -> w.select(launch));
        // the nested call is listed under the launch
        assertEquals(List.of(launch + 1), robot.lookup("#nestedCalls").queryListView().getItems());
        robot.clickOn("#goToEntry");
        WaitForAsyncUtils.waitForFxEvents();
        assertEquals("modulesTab", robot.lookup("#tabs").queryAs(TabPane.class).getSelectionModel().getSelectedItem().getId());
        assertEquals(1, robot.lookup("#moduleList").queryListView().getItems().size());
        int line = w.modules.selectedLine();
        assertTrue(w.modules.lines().get(line).contains(".entry vectorAdd("), w.modules.lines().get(line));
        assertTrue(robot.lookup("#moduleHeader").queryAs(Label.class).getText().startsWith("module_0001_01.ptx: PTX"));
        // highlighted: the opcodes and directives on screen carry their styles
        List<Text> texts = robot.lookup("#ptxView .ptx-opcode").queryAllAs(Text.class).stream().toList();
        assertTrue(texts.stream().anyMatch(t -> t.getText().equals("ld.param.u64")), texts.toString());
        assertTrue(robot.lookup("#ptxView .ptx-directive").queryAllAs(Text.class).stream().anyMatch(t -> t.getText().equals(".entry")));
        snapshot(robot, "viewer-modules.png");
    }

    @Test
    void theTimelineSelectsTheCallClicked(FxRobot robot) throws Exception {
        Path dir = tmp.resolve("timeline");
        SyntheticCapture.write(dir, 120, 3);
        open(robot, dir);
        robot.clickOn("#timelineTab");
        int target = CallIndexTest.firstOf(w.index(), "cuMemcpyHtoD_v2") + 6 * 3; // a copy in the 2nd round, on thread 1000
        robot.interact(() -> w.timeline.zoomTo(target));
        double[] c = WaitForAsyncUtils.asyncFx(() -> w.timeline.centreOf(target)).get();
        assertNotNull(c);
        Canvas canvas = robot.lookup("#timelineCanvas").queryAs(Canvas.class);
        Point2D p = WaitForAsyncUtils.asyncFx(() -> canvas.localToScreen(c[0], c[1])).get();
        robot.clickOn(p);
        WaitForAsyncUtils.waitForFxEvents();
        assertEquals(target, w.selectedCallProperty().get());
        assertTrue(robot.lookup("#detailsTitle").queryAs(Label.class).getText().contains("cuMemcpyHtoD_v2"));
        // the NULL stream's lane: the kernel that launch put on it, from the launch to the cuCtxSynchronize after it
        WaitForAsyncUtils.waitFor(20, TimeUnit.SECONDS, () -> WaitForAsyncUtils.asyncFx(() -> w.timeline.streamLanes() != null).get());
        StreamLanes sl = w.timeline.streamLanes();
        assertEquals(java.util.List.of(0L), sl.streams());
        int launch = CallIndexTest.firstOf(w.index(), "cuLaunchKernel") + 6 * 3;
        StreamLanes.Op op = sl.ops(0).stream().filter(o -> o.call() == launch).findFirst().orElseThrow();
        assertEquals(StreamLanes.Kind.KERNEL, op.kind());
        assertEquals(w.index().end(launch + 2), op.doneNs(), "complete after the cuCtxSynchronize of its thread (launch, nested call, sync)");
        robot.interact(() -> w.timeline.zoomTo(launch));
        double[] k = WaitForAsyncUtils.asyncFx(() -> w.timeline.centreOfStreamOp(launch)).get();
        assertNotNull(k);
        robot.clickOn(WaitForAsyncUtils.asyncFx(() -> canvas.localToScreen(k[0], k[1])).get());
        WaitForAsyncUtils.waitForFxEvents();
        assertEquals(launch, w.selectedCallProperty().get());
        robot.interact(() -> w.timeline.fit());
        snapshot(robot, "viewer-timeline.png");
    }

    @Test
    void theMemoryViewShowsABlobAsHexAndFloats(FxRobot robot) throws Exception {
        Path dir = tmp.resolve("memory");
        SyntheticCapture.write(dir, 60, 1);
        open(robot, dir);
        int copy = CallIndexTest.firstOf(w.index(), "cuMemcpyHtoD_v2");
        robot.interact(() -> w.select(copy));
        // double-click the argument with the data
        Node srcHost = robot.lookup("#argumentTable .table-cell").queryAllAs(TableCell.class).stream()
                .filter(x -> "srcHost".equals(x.getText())).findFirst().orElseThrow();
        robot.doubleClickOn(srcHost);
        WaitForAsyncUtils.waitForFxEvents();
        assertEquals("memoryTab", robot.lookup("#tabs").queryAs(TabPane.class).getSelectionModel().getSelectedItem().getId());
        assertEquals(SyntheticCapture.ELEMENTS * 4, w.memory.shownBytes());
        assertEquals(2, robot.lookup("#blobList").queryListView().getItems().size());
        assertEquals("00000000  00 00 00 00 00 00 00 3f  00 00 80 3f 00 00 c0 3f  |.......?...?...?|", w.memory.hexLine(0));
        assertTrue(robot.lookup("#hexView .list-cell").queryAllAs(javafx.scene.control.ListCell.class).stream()
                .anyMatch(x -> w.memory.hexLine(0).equals(x.getText())));
        robot.clickOn("#typedTab");
        WaitForAsyncUtils.waitForFxEvents();
        assertEquals("1.5", w.memory.value(3));
        assertTrue(robot.lookup("#typedView .table-cell").queryAllAs(TableCell.class).stream().anyMatch(x -> "1.5".equals(x.getText())));
        snapshot(robot, "viewer-memory.png");
    }

    @Test
    void aLongLoadShowsProgressAndCancelKeepsTheCallsReadAndTheWindowUsable(FxRobot robot) throws Exception {
        Path dir = tmp.resolve("cancel");
        long n = SyntheticCapture.write(dir, 200_000, 2);
        java.util.concurrent.CountDownLatch held = new java.util.concurrent.CountDownLatch(1), release = new java.util.concurrent.CountDownLatch(1);
        int[] reports = {0};
        // the indexing thread stops at its third progress report until the test lets it go
        IndexLoad.testProbe = b -> {
            if (++reports[0] == 3) {
                held.countDown();
                try {
                    release.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        };
        try {
            robot.interact(() -> w.open(dir));
            assertTrue(held.await(30, TimeUnit.SECONDS));
            WaitForAsyncUtils.sleep(300, TimeUnit.MILLISECONDS); // a poll of the progress
            assertTrue(w.isLoading());
            assertTrue(robot.lookup("#loadProgress").query().isVisible());
            double p = robot.lookup("#loadProgress").queryAs(javafx.scene.control.ProgressBar.class).getProgress();
            assertTrue(p > 0 && p < 1, "progress " + p);
            String st = robot.lookup("#status").queryAs(Label.class).getText();
            assertTrue(st.matches("Loading cancel: [0-9,]+ calls, [0-9.]+ [KM]iB of [0-9.]+ MiB read…"), st);
            snapshot(robot, "viewer-loading.png");
            robot.clickOn("#cancelLoad");
            release.countDown();
            WaitForAsyncUtils.waitFor(30, TimeUnit.SECONDS, () -> WaitForAsyncUtils.asyncFx(w::isLoaded).get());
            WaitForAsyncUtils.waitForFxEvents();
        } finally {
            release.countDown();
            IndexLoad.testProbe = null;
        }
        // the calls read before Cancel stay, the rest were not read, and the window says so
        assertTrue(w.index().isCancelled());
        int kept = w.rows().size();
        assertTrue(kept > 0 && kept < n, kept + " of " + n);
        assertTrue(robot.lookup("#status").queryAs(Label.class).getText().contains("loading cancelled"), robot.lookup("#status").queryAs(Label.class).getText());
        assertFalse(robot.lookup("#cancelLoad").query().isVisible());
        assertFalse(robot.lookup("#loadProgress").query().isVisible());
        // the indexing thread has ended
        WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS, () -> Thread.getAllStackTraces().keySet().stream().noneMatch(t -> t.getName().equals("zluda-viewer-index")));
        // and the window works on what was read: filter, select
        robot.clickOn("#functionFilter").write("^cuMemAlloc");
        WaitForAsyncUtils.waitForFxEvents();
        List<String> fns = column(robot, "function");
        assertFalse(fns.isEmpty());
        assertTrue(fns.stream().allMatch(f -> f.startsWith("cuMemAlloc")), fns.toString());
        robot.clickOn(cell(robot, "function", fns.getFirst()));
        assertTrue(robot.lookup("#detailsTitle").queryAs(Label.class).getText().contains("cuMemAlloc"));
    }

    @Test
    void openingAnotherCaptureWhileLoadingStopsTheFirstLoad(FxRobot robot) throws Exception {
        Path dir = tmp.resolve("replaced");
        SyntheticCapture.write(dir, 200_000, 2);
        java.util.concurrent.CountDownLatch held = new java.util.concurrent.CountDownLatch(1), release = new java.util.concurrent.CountDownLatch(1);
        IndexLoad.testProbe = b -> {
            held.countDown();
            try {
                release.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        };
        try {
            robot.interact(() -> w.open(dir));
            assertTrue(held.await(30, TimeUnit.SECONDS));
            IndexLoad.testProbe = null;
            open(robot, Fx.sample("vectorAdd"));
        } finally {
            IndexLoad.testProbe = null;
            release.countDown();
        }
        assertEquals(20, w.rows().size());
        WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS, () -> Thread.getAllStackTraces().keySet().stream().noneMatch(t -> t.getName().equals("zluda-viewer-index")));
    }

    /** A localisation that answers what the test says and records what it was asked. */
    static final class FakeLocator implements KernelLocator {
        final List<String> asked = new java.util.concurrent.CopyOnWriteArrayList<>();
        final java.util.function.Function<Long, Result> answer;
        final String drivers;

        FakeLocator(java.util.function.Function<Long, Result> answer) {
            this(answer, "zluda against nvidia", new java.util.concurrent.CopyOnWriteArrayList<>());
        }

        private FakeLocator(java.util.function.Function<Long, Result> answer, String drivers, List<String> asked) {
            this.answer = answer;
            this.drivers = drivers;
            this.asked.addAll(asked);
        }

        @Override
        public KernelLocator between(String on, String against) {
            FakeLocator f = new FakeLocator(answer, on + " against " + against, List.of());
            return new KernelLocator() {
                @Override
                public Result locate(Path capture, long launchCall, java.util.function.Consumer<String> progress) {
                    return FakeLocator.this.locate(capture, launchCall, progress);
                }

                @Override
                public String describe() {
                    return f.drivers;
                }
            };
        }

        @Override
        public Result locate(Path capture, long launchCall, java.util.function.Consumer<String> progress) {
            asked.add(capture.getFileName() + " " + launchCall);
            progress.accept("pass 1");
            return answer.apply(launchCall);
        }

        @Override
        public String describe() {
            return drivers;
        }
    }

    /** The 1-based line of the committed vectorAdd PTX that holds {@code what}. */
    static int ptxLine(String what) throws Exception {
        List<String> ptx = Files.readAllLines(Fx.sample("vectorAdd-kernels").resolve("module_0001_01.ptx"));
        for (int i = 0; i < ptx.size(); i++) if (ptx.get(i).contains(what)) return i + 1;
        throw new AssertionError(what);
    }

    static KernelLocator.Result found(int line) {
        return new KernelLocator.Result(KernelLocator.Outcome.FOUND, "Locate: first diverging instruction at line " + line, "vectorAdd", line,
                "add.f32 \t%f3, %f2, %f1;", "%f3 (32-bit, result 9 of the thread (100,0,0) of CTA (0,0,0))",
                "zluda", "0x40400000 (3)", "nvidia", "0x3f800000 (1)", List.of());
    }

    @Test
    void locatingFromALaunchShowsTheInstructionInThePtxWithBothValues(FxRobot robot) throws Exception {
        Path capture = Fx.sample("vectorAdd-kernels");
        int line = ptxLine("add.f32");
        FakeLocator loc = new FakeLocator(c -> found(line));
        robot.interact(() -> w.setKernelLocator(loc));
        open(robot, capture);
        int launch = CallIndexTest.firstOf(w.index(), "cuLaunchKernel");
        robot.interact(() -> w.select(launch));
        robot.clickOn("#locateInstruction");
        WaitForAsyncUtils.waitFor(20, TimeUnit.SECONDS, () -> WaitForAsyncUtils.asyncFx(() -> !w.isLocating()).get());
        WaitForAsyncUtils.waitForFxEvents();
        assertEquals(List.of("vectorAdd-kernels " + (launch + 1)), loc.asked);
        assertEquals("modulesTab", robot.lookup("#tabs").queryAs(TabPane.class).getSelectionModel().getSelectedItem().getId());
        assertEquals(line - 1, w.modules.selectedLine());
        assertTrue(w.modules.lines().get(line - 1).contains("add.f32"));
        String banner = robot.lookup("#locateBanner").queryAs(Label.class).getText();
        assertTrue(banner.contains("line " + line) && banner.contains("zluda: 0x40400000 (3)") && banner.contains("nvidia: 0x3f800000 (1)"), banner);
        // the line is marked on screen
        PseudoClass located = PseudoClass.getPseudoClass("located");
        assertEquals(1, robot.lookup("#ptxView .list-cell").queryAllAs(javafx.scene.control.ListCell.class).stream()
                .filter(c -> c.getPseudoClassStates().contains(located)).count());
        assertTrue(robot.lookup("#status").queryAs(Label.class).getText().startsWith("Locate: first diverging instruction at line " + line));
        snapshot(robot, "viewer-locate.png");
    }

    @Test
    void aLocalisationThatCannotRunSaysWhy(FxRobot robot) throws Exception {
        FakeLocator loc = new FakeLocator(c -> KernelLocator.Result.cannotRun("cannot run here because cannot load NVIDIA's libcuda.so.1"));
        robot.interact(() -> w.setKernelLocator(loc));
        open(robot, Fx.sample("vectorAdd-kernels"));
        // from the launch's context menu this time
        int launch0 = CallIndexTest.firstOf(w.index(), "cuLaunchKernel");
        robot.interact(() -> w.select(launch0 - 1)); // scrolled to, and another row selected
        WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS, () -> column(robot, "function").contains("cuLaunchKernel"));
        robot.rightClickOn(cell(robot, "function", "cuLaunchKernel"));
        robot.clickOn("Locate the first diverging instruction (zluda against nvidia)");
        WaitForAsyncUtils.waitFor(20, TimeUnit.SECONDS, () -> WaitForAsyncUtils.asyncFx(() -> w.locatedResult() != null && !w.isLocating()).get());
        WaitForAsyncUtils.waitForFxEvents();
        int launch = CallIndexTest.firstOf(w.index(), "cuLaunchKernel");
        assertEquals(List.of("vectorAdd-kernels " + (launch + 1)), loc.asked);
        assertEquals("cannot run here because cannot load NVIDIA's libcuda.so.1", robot.lookup("#status").queryAs(Label.class).getText());
        assertEquals("callsTab", robot.lookup("#tabs").queryAs(TabPane.class).getSelectionModel().getSelectedItem().getId());
        assertEquals(KernelLocator.Outcome.CANNOT_RUN, w.locatedResult().outcome());
    }

    /**
     * cudart's start-up (samples/traces/h200/cudart_demo: 440 cuGetProcAddress_v2 calls) is one row, as zluda dump
     * prints it; Fold look-ups off, or a function filter, shows each.
     */
    @Test
    void cudartsStartUpIsOneRow(FxRobot robot) throws Exception {
        Path capture = Fx.sample("cudart_demo");
        open(robot, capture);
        int calls = w.index().size();
        assertEquals(calls - 439, w.rows().size(), "440 look-ups in one row");
        assertEquals(440, w.rows().get(0).folded());
        assertEquals("cuGetProcAddress_v2 \u00d7440", column(robot, "function").getFirst());
        assertEquals("1\u2013440", column(robot, "num").getFirst());
        assertEquals("440 CUDA_SUCCESS", column(robot, "result").getFirst());
        assertTrue(column(robot, "arguments").getFirst().startsWith("calls 1\u2013440: looking up the driver's entry points"), column(robot, "arguments").getFirst());
        assertEquals("cuGetExportTable", column(robot, "function").get(1));
        // a look-up inside the run selects the run's row
        assertEquals(0, w.rows().rowOf(200));
        robot.clickOn("#foldLookups");
        WaitForAsyncUtils.waitForFxEvents();
        assertEquals(calls, w.rows().size(), "unfolded: every call");
        assertEquals("cuGetProcAddress_v2", column(robot, "function").getFirst());
        robot.clickOn("#foldLookups");
        robot.interact(() -> w.filterFunctions("cuGetProcAddress"));
        WaitForAsyncUtils.waitForFxEvents();
        assertTrue(w.rows().size() >= 440, "a function filter shows each: " + w.rows().size());
    }

    /** Against NVIDIA's driver on a machine without one, the launch's menu says so instead of offering a run that must fail. */
    @Test
    void aLocalisationThatCannotRunHereIsNotOffered(FxRobot robot) throws Exception {
        List<Long> asked = new java.util.concurrent.CopyOnWriteArrayList<>();
        KernelLocator loc = new KernelLocator() {
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
        robot.interact(() -> w.setKernelLocator(loc));
        open(robot, Fx.sample("vectorAdd-kernels"));
        int launch = CallIndexTest.firstOf(w.index(), "cuLaunchKernel");
        robot.interact(() -> w.select(launch - 1));
        WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS, () -> column(robot, "function").contains("cuLaunchKernel"));
        robot.rightClickOn(cell(robot, "function", "cuLaunchKernel"));
        javafx.scene.control.MenuItem item = w.launchMenu().getItems().getFirst();
        assertTrue(item.isDisable(), "not offered");
        assertEquals("Locating the first diverging instruction (zluda against nvidia) needs NVIDIA's driver, and this machine has none", item.getText());
        robot.interact(() -> w.launchMenu().hide());
        assertTrue(asked.isEmpty());
    }

    /** The timeline's line counts its threads in the right number: "1 thread", "3 threads". */
    @Test
    void theTimelineCountsThreadsInWords(FxRobot robot) throws Exception {
        open(robot, Fx.sample("vectorAdd"));
        robot.clickOn("#timelineTab");
        WaitForAsyncUtils.waitForFxEvents();
        String one = robot.lookup("#timelineInfo").queryAs(Label.class).getText();
        assertTrue(one.contains(" · 1 thread") && !one.contains("1 threads"), one);
        Path dir = tmp.resolve("three-threads");
        SyntheticCapture.write(dir, 60, 3);
        open(robot, dir);
        robot.clickOn("#timelineTab");
        WaitForAsyncUtils.waitForFxEvents();
        assertTrue(robot.lookup("#timelineInfo").queryAs(Label.class).getText().contains(" · 3 threads"));
    }
}

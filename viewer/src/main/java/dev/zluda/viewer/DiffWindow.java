package dev.zluda.viewer;

import dev.zluda.spec.Role;
import dev.zluda.capture.Capture;
import dev.zluda.diff.Alignment;
import dev.zluda.diff.DiffEngine;
import dev.zluda.diff.DiffKind;
import dev.zluda.diff.DiffOptions;
import dev.zluda.diff.DiffResult;
import dev.zluda.diff.Heatmap;
import javafx.collections.FXCollections;
import javafx.concurrent.Task;
import javafx.css.PseudoClass;
import javafx.geometry.Orientation;
import javafx.scene.Scene;
import javafx.scene.canvas.Canvas;
import javafx.scene.canvas.GraphicsContext;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.ProgressBar;
import javafx.scene.control.SelectionMode;
import javafx.scene.control.SplitPane;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableRow;
import javafx.scene.control.TableView;
import javafx.scene.control.TextArea;
import javafx.scene.control.Tooltip;
import javafx.scene.image.ImageView;
import javafx.scene.image.PixelWriter;
import javafx.scene.image.WritableImage;
import javafx.scene.input.KeyCode;
import javafx.scene.input.KeyEvent;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Pane;
import javafx.scene.layout.Priority;
import javafx.scene.layout.Region;
import javafx.scene.layout.VBox;
import javafx.scene.paint.Color;
import javafx.stage.Stage;

import java.nio.file.Path;
import java.util.AbstractList;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.IntFunction;

/**
 * The viewer's window for two captures (A, the reference, usually recorded on NVIDIA's driver, and B,
 * the one under test): the calls side by side as {@link DiffEngine} aligned them (a call on one side
 * only leaves a gap on the other), diverging rows marked by kind, a minimap of every divergence over
 * the whole run (click: jump to the nearest), previous/next divergence (buttons, {@code P}/{@code N},
 * {@code Shift+F8}/{@code F8}), and what differs about the selected call: results, arguments,
 * outputs, and for a data buffer where its elements differ as a heatmap with a histogram of the
 * differences. The comparison runs in the background with a progress bar. FX thread only.
 */
public final class DiffWindow {
    /** Divergences listed (and marked) at most; the counts are always complete. */
    static final int LIMIT = 100_000;
    private static final PseudoClass DIVERGING = PseudoClass.getPseudoClass("diverging");
    private static final PseudoClass GAP = PseudoClass.getPseudoClass("gap");

    private final Stage stage;
    private final Scene scene;
    final TableView<Integer> table = new TableView<>();
    final Canvas minimap = new Canvas(22, 100);
    private final Pane minimapPane = new Pane(minimap);
    private final Button prev = new Button("◀ Previous"), next = new Button("Next ▶");
    private final Label position = new Label(), summary = new Label("Comparing…");
    private final Label detailTitle = new Label("Select a row");
    private final TextArea detailText = new TextArea();
    private final HBox heat = new HBox(12);
    private final javafx.scene.control.ScrollPane heatScroll = new javafx.scene.control.ScrollPane(heat);
    private final SplitPane detailBody = new SplitPane();
    /** Why the instruction-level localisation is not offered here (no NVIDIA driver, ...), shown instead of its button. */
    private final Label hint = new Label();
    /** Smallest sizes of the panes (px at 12 px text; they grow with the text size): the divider stops there. */
    static final double MIN_TEXT_WIDTH = 260, MIN_IMAGES_WIDTH = 240, MIN_TABLE_HEIGHT = 120, MIN_DETAILS_HEIGHT = 180;
    /** The buffer shown, to lay its images out again when the pane's height or the text size changes. */
    private DivergingBuffer shownBuffer;
    private final ProgressBar progress = new ProgressBar(-1);
    private final Button cancelButton = new Button("Cancel");
    /** Set by Cancel: the comparison in flight stops and its result, if it still comes, is dropped. */
    private java.util.concurrent.atomic.AtomicBoolean cancelRequest = new java.util.concurrent.atomic.AtomicBoolean();
    private final Label status = new Label();

    private Alignment alignment;
    private DiffResult result;
    /** Per row: the index of its divergence in {@code result.divergences()}, or -1. */
    private int[] divOfRow = new int[0];
    /** Rows of the listed divergences, ascending. */
    private int[] divRows = new int[0];
    private String loadError;
    private boolean loaded;
    private final List<Runnable> onLoaded = new ArrayList<>();
    /** Captures A and B, reopened to read the bytes of diverging buffers (null until {@link #open}). */
    private OpenCaptures captures;
    private final List<DivergingBuffer.Source> bufferSources = new ArrayList<>();
    /** Bumped at each selection: a buffer read for an earlier one is dropped. */
    private int detailGeneration;
    private BufferImages shownImages;
    private KernelLocator locator;
    private final Button locateButton = new Button("Locate the diverging instruction");
    private Path pathB;
    private ViewerWindow locateWindow;

    /** Builds the window on {@code stage} (not shown yet). */
    public DiffWindow(Stage stage) {
        this.stage = stage;
        prev.setId("prevDivergence");
        next.setId("nextDivergence");
        prev.setTooltip(new Tooltip("Previous divergence (P or Shift+F8)"));
        next.setTooltip(new Tooltip("Next divergence (N or F8)"));
        prev.setOnAction(e -> previousDivergence());
        next.setOnAction(e -> nextDivergence());
        position.setId("divergencePosition");
        summary.setId("diffSummary");
        summary.getStyleClass().add("hint");
        HBox bar = new HBox(prev, next, position, summary);
        bar.getStyleClass().add("filter-bar");

        buildTable();
        minimap.setId("minimap");
        minimapPane.setPrefWidth(minimap.getWidth());
        minimapPane.setMinWidth(minimap.getWidth());
        minimapPane.heightProperty().addListener((o, a, b) -> {
            minimap.setHeight(b.doubleValue());
            drawMinimap();
        });
        minimap.setOnMouseClicked(e -> jumpFromMinimap(e.getY()));
        Tooltip.install(minimap, new Tooltip("Every divergence over the whole run: click to go to the nearest"));
        HBox.setHgrow(table, Priority.ALWAYS);
        HBox center = new HBox(table, minimapPane);

        detailTitle.setId("divergenceTitle");
        detailTitle.getStyleClass().add("details-title");
        locateButton.setId("locateInstruction");
        locateButton.setVisible(false);
        locateButton.setManaged(false);
        locateButton.setOnAction(e -> locateSelected());
        detailText.setId("divergenceText");
        detailText.setEditable(false);
        detailText.getStyleClass().add("mono");
        detailText.setWrapText(false);
        heat.setId("heatmaps");
        heat.setPadding(new javafx.geometry.Insets(0, 4, 4, 4));
        // the call's text and the buffers' images side by side, the divider movable: neither squeezes the other
        heatScroll.setId("heatmapsScroll");
        heatScroll.setFitToHeight(true);
        heatScroll.setMinWidth(MIN_IMAGES_WIDTH);
        heatScroll.viewportBoundsProperty().addListener((o, a, b) -> {
            if (a == null || Math.abs(a.getHeight() - b.getHeight()) > 8 || Math.abs(a.getWidth() - b.getWidth()) > 24) relayoutImages();
        });
        detailText.setMinWidth(MIN_TEXT_WIDTH);
        detailBody.setId("detailsSplit");
        detailBody.getItems().setAll(detailText, heatScroll);
        detailBody.setDividerPositions(0.34);
        SplitPane.setResizableWithParent(detailText, false);
        VBox.setVgrow(detailBody, Priority.ALWAYS);
        hint.getStyleClass().add("hint");
        hint.setId("locateHint");
        hint.setVisible(false);
        hint.setManaged(false);
        HBox titleBar = new HBox(12, detailTitle, locateButton, hint);
        titleBar.setAlignment(javafx.geometry.Pos.CENTER_LEFT);
        VBox details = new VBox(titleBar, detailBody);
        details.getStyleClass().add("details");
        details.setMinHeight(MIN_DETAILS_HEIGHT);
        center.setMinHeight(MIN_TABLE_HEIGHT);

        SplitPane split = new SplitPane(center, details);
        split.setId("mainSplit");
        split.setOrientation(Orientation.VERTICAL);
        split.setDividerPositions(0.5);

        progress.setId("diffProgress");
        progress.setPrefWidth(220);
        status.setId("status");
        Region grow = new Region();
        HBox.setHgrow(grow, Priority.ALWAYS);
        cancelButton.setId("cancelCompare");
        cancelButton.setTooltip(new Tooltip("Stop comparing: nothing is shown until the captures are compared again (File > Open)"));
        cancelButton.setOnAction(e -> cancelComparison());
        cancelButton.visibleProperty().bind(progress.visibleProperty());
        cancelButton.managedProperty().bind(progress.visibleProperty());
        javafx.scene.control.ToggleButton darkToggle = new javafx.scene.control.ToggleButton("Dark");
        darkToggle.setId("themeToggle");
        darkToggle.setSelected(Theme.dark());
        darkToggle.setTooltip(new Tooltip("Dark theme (Ctrl+Shift+T); Ctrl+Plus / Ctrl+Minus: text size"));
        darkToggle.setOnAction(e -> Theme.setDark(darkToggle.isSelected()));
        Label keys = new Label("N / P: next / previous divergence");
        keys.getStyleClass().add("hint");
        HBox statusBar = new HBox(8, status, grow, progress, cancelButton, keys, darkToggle);
        statusBar.getStyleClass().add("status-bar");

        BorderPane root = new BorderPane(split, bar, null, statusBar, null);
        double[] size = Theme.windowSize();
        scene = new Scene(root, size[0], size[1]);
        Theme.install(scene);
        Theme.onChange(scene, () -> {
            darkToggle.setSelected(Theme.dark());
            drawMinimap();
            relayoutImages();
        });
        scene.addEventFilter(KeyEvent.KEY_PRESSED, e -> {
            if (e.isControlDown() || e.isAltDown() || e.isMetaDown()) return;
            if (e.getCode() == KeyCode.N || e.getCode() == KeyCode.F8 && !e.isShiftDown()) {
                nextDivergence();
                e.consume();
            } else if (e.getCode() == KeyCode.P || e.getCode() == KeyCode.F8) {
                previousDivergence();
                e.consume();
            }
        });
        stage.setScene(scene);
        stage.setTitle("zluda view — comparing");
        stage.addEventHandler(javafx.stage.WindowEvent.WINDOW_HIDDEN, e -> {
            if (captures != null) captures.close();
        });
        setNavigation();
    }

    /** Sets what runs the instruction-level localisation of a diverging launch (null: not offered). */
    public void setKernelLocator(KernelLocator l) {
        locator = l;
        showDetails(selectedRow());
    }

    /**
     * The locator between the drivers that recorded the two captures (their manifests): B's under test
     * against A's, the reference; the one set when a manifest names neither zluda nor nvidia.
     */
    private KernelLocator pairedLocator() {
        if (locator == null || result == null) return locator;
        String on = driverName(result.b().driver()), against = driverName(result.a().driver());
        return on == null || against == null ? locator : locator.between(on, against);
    }

    /** {@code zluda} or {@code nvidia} from a side's driver ({@code nvidia 13000 (580.159.04)}), else null. */
    private static String driverName(String driver) {
        String name = driver == null ? "" : driver.split(" ", 2)[0];
        return name.equals("zluda") || name.equals("nvidia") ? name : null;
    }

    /**
     * Locates the diverging instruction of the launch in the selected row: opens capture B (the one
     * under test) in a viewer window, selects the launch there and runs the localisation on its
     * kernel snapshot; that window shows the instruction in its PTX view with both values.
     */
    public void locateSelected() {
        int row = selectedRow();
        if (locator == null || alignment == null || row < 0 || alignment.bCall(row) < 0 || pathB == null) return;
        int call = (int) alignment.bCall(row) - 1;
        Stage st = new Stage();
        ViewerWindow vw = new ViewerWindow(st);
        vw.setKernelLocator(pairedLocator());
        locateWindow = vw;
        st.show();
        vw.open(pathB);
        vw.whenLoaded(() -> {
            if (vw.loadError() != null || vw.index() == null || call >= vw.index().size()) return;
            vw.select(call);
            vw.locateInstruction(call);
        });
    }

    /** The window opened by the last {@link #locateSelected()}, or null. */
    public ViewerWindow locateWindow() {
        return locateWindow;
    }

    /**
     * Adds a source of diverging buffers' bytes, asked before the built-in ones (the data of API
     * calls, kernels' after-images): how a new kind of data divergence gets its images.
     */
    public void addBufferSource(DivergingBuffer.Source s) {
        bufferSources.addFirst(s);
    }

    private void buildTable() {
        ViewerWindow.setUpTable(table, "aligned", "Comparing the captures…");
        table.getColumns().add(column("A #", 64, "aNum", r -> number(alignment.aCall(r))));
        table.getColumns().add(column("A function", 200, "aFunction", r -> alignment.aFunction(r)));
        table.getColumns().add(column("A result", 200, "aResult", r -> alignment.aResult(r)));
        table.getColumns().add(column("B #", 64, "bNum", r -> number(alignment.bCall(r))));
        table.getColumns().add(column("B function", 200, "bFunction", r -> alignment.bFunction(r)));
        table.getColumns().add(column("B result", 200, "bResult", r -> alignment.bResult(r)));
        table.getColumns().add(column("Difference", 320, "difference", this::differenceText));
        for (String right : new String[] {"aNum", "bNum"}) {
            table.getColumns().stream().filter(c -> right.equals(c.getId())).forEach(c -> c.setStyle("-fx-alignment: CENTER-RIGHT;"));
        }
        table.setRowFactory(tv -> new TableRow<>() {
            @Override
            protected void updateItem(Integer r, boolean empty) {
                super.updateItem(r, empty);
                boolean div = false, gap = false;
                if (!empty && r != null && alignment != null && r < alignment.size()) {
                    div = divOfRow[r] >= 0;
                    gap = alignment.aCall(r) < 0 || alignment.bCall(r) < 0;
                }
                pseudoClassStateChanged(DIVERGING, div);
                pseudoClassStateChanged(GAP, gap);
            }
        });
        table.getSelectionModel().selectedIndexProperty().addListener((o, a, b) -> showDetails(b.intValue()));
        Theme.followTable(table, 22);
    }

    private static String number(long call) {
        return call < 0 ? "—" : Long.toString(call);
    }

    private TableColumn<Integer, Integer> column(String title, double width, String id, IntFunction<String> text) {
        return TextColumns.of(title, width, id, r -> alignment == null || r >= alignment.size() ? null : text.apply(r));
    }

    /** {@code result: CUDA_SUCCESS ≠ CUDA_ERROR_ILLEGAL_ADDRESS}, {@code only in B}, or "" for a row that agrees. */
    private String differenceText(int row) {
        int d = divOfRow[row];
        if (d < 0) return "";
        DiffResult.Divergence v = result.divergences().get(d);
        if (v.kind() == DiffKind.MISSING || v.kind() == DiffKind.EXTRA) return v.kind().description();
        if (v.differences().isEmpty()) return v.kind().description();
        DiffResult.Difference f = v.differences().getFirst();
        String s = f.data() != null
                ? String.format(Locale.ROOT, "data: %,d of %,d elements differ", f.data().differing(), f.data().elements())
                : f.what() + ": " + f.a() + " ≠ " + f.b();
        return v.differences().size() > 1 ? s + " (+" + (v.differences().size() - 1) + ")" : s;
    }

    // ------------------------------------------------------------------ loading

    /** Compares two captures (directories, {@code .zcap} files or packs) in the background and shows them. */
    public void open(Path a, Path b) {
        stage.setTitle("zluda view — " + a + " vs " + b);
        if (captures != null) captures.close();
        captures = new OpenCaptures(a, b);
        pathB = b;
        bufferSources.removeIf(x -> x instanceof CopyBuffers || x instanceof KernelAfterImages);
        bufferSources.add(new CopyBuffers(captures));
        bufferSources.add(new KernelAfterImages(captures));
        status.setText("Reading and aligning " + a.getFileName() + " and " + b.getFileName() + "…");
        progress.setVisible(true);
        loaded = false;
        loadError = null;
        cancelRequest.set(true);   // a comparison still in flight stops
        java.util.concurrent.atomic.AtomicBoolean cancel = new java.util.concurrent.atomic.AtomicBoolean();
        cancelRequest = cancel;
        Task<Object[]> t = new Task<>() {
            @Override
            protected Object[] call() throws Exception {
                try (Capture ca = Capture.open(a); Capture cb = Capture.open(b)) {
                    DiffEngine engine = new DiffEngine(DiffOptions.defaults().withLimit(LIMIT)).cancelWhen(cancel::get);
                    DiffResult r = engine.diff(ca, cb);
                    Alignment al = engine.alignment();
                    return new Object[] {r, al};
                }
            }
        };
        t.setOnSucceeded(e -> {
            if (!cancel.get()) show((DiffResult) t.getValue()[0], (Alignment) t.getValue()[1]);
        });
        t.setOnFailed(e -> {
            if (cancel.get()) return;
            Throwable x = t.getException();
            loadError = x.getMessage() != null ? x.getMessage() : x.toString();
            progress.setVisible(false);
            status.setText("Cannot compare: " + loadError);
            summary.setText("");
            table.setPlaceholder(new Label("Cannot compare: " + loadError));
            finishLoading();
        });
        Thread th = new Thread(t, "zluda-viewer-diff");
        th.setDaemon(true);
        th.start();
    }

    /**
     * Stops the comparison in flight (Cancel): the window says so and shows no calls, since the
     * alignment needs both captures whole; {@link #loadError()} is then "comparison cancelled".
     * Does nothing once the comparison has finished.
     */
    public void cancelComparison() {
        if (loaded || cancelRequest.get()) return;
        cancelRequest.set(true);
        loadError = "comparison cancelled";
        progress.setVisible(false);
        status.setText("Comparison cancelled: nothing is shown (File > Open compares again)");
        summary.setText("");
        table.setPlaceholder(new Label("Comparison cancelled"));
        finishLoading();
    }

    /** Shows a comparison already made. */
    public void show(DiffResult r, Alignment al) {
        this.result = r;
        this.alignment = al;
        divOfRow = new int[al.size()];
        Arrays.fill(divOfRow, -1);
        List<Integer> rowsList = new ArrayList<>();
        for (int i = 0; i < r.divergences().size(); i++) {
            int row = al.rowOf(r.divergences().get(i));
            if (row >= 0 && divOfRow[row] < 0) {
                divOfRow[row] = i;
                rowsList.add(row);
            }
        }
        divRows = rowsList.stream().mapToInt(Integer::intValue).sorted().toArray();
        int n = al.size();
        table.setItems(FXCollections.observableList(new AbstractList<>() {
            @Override
            public Integer get(int i) {
                return i;
            }

            @Override
            public int size() {
                return n;
            }
        }));
        progress.setVisible(false);
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "A: %,d calls, B: %,d calls, %,d paired — ", r.a().calls(), r.b().calls(), r.matchedCalls()));
        if (r.same()) sb.append(r.resultsCompared() ? "the same" : "the same calls and arguments (no result data was recorded: record with --level replay)");
        else {
            sb.append(String.format(Locale.ROOT, "%,d diverging", r.divergingCalls()));
            List<String> kinds = new ArrayList<>();
            for (var e : r.counts().entrySet()) if (e.getValue() > 0) kinds.add(e.getKey().label() + " " + e.getValue());
            sb.append(" (").append(String.join(", ", kinds)).append(')');
            if (r.divergingCalls() > r.divergences().size()) sb.append(String.format(Locale.ROOT, ", the first %,d marked", r.divergences().size()));
        }
        long ignored = r.ignoredCounts().values().stream().mapToLong(Long::longValue).sum();
        if (ignored > 0) sb.append(String.format(Locale.ROOT, "; %,d expected difference%s ignored (device name, addresses, …)", ignored, ignored == 1 ? "" : "s"));
        summary.setText(sb.toString());
        status.setText(r.a().path() + "  vs  " + r.b().path() + (r.warnings().isEmpty() ? "" : "  — " + String.join("; ", r.warnings()))
                + (r.notes().isEmpty() ? "" : "  — note: " + String.join("; ", r.notes())));
        loaded = true;
        if (divRows.length > 0) selectRow(divRows[0]);   // before whenLoaded's callbacks, which may select another
        setNavigation();
        drawMinimap();
        finishLoading();
    }

    private void finishLoading() {
        loaded = true;
        List<Runnable> rs = List.copyOf(onLoaded);
        onLoaded.clear();
        for (Runnable r : rs) r.run();
    }

    // ------------------------------------------------------------------ navigation

    /**
     * Selects a row and scrolls it into view, a few rows below the top; again after the next layout
     * pass, since a table whose rows were just set (the first divergence, selected when the comparison
     * is shown) ignores a scroll before it has laid them out.
     */
    public void selectRow(int row) {
        if (alignment == null || row < 0 || row >= alignment.size()) return;
        table.getSelectionModel().clearAndSelect(row);
        if (table.getScene() != null) {
            // lay the rows out now, so that the scroll below is not lost on a table whose items were just set
            table.applyCss();
            table.layout();
        }
        table.scrollTo(Math.max(0, row - 5));
        scrollIntoViewLater(row, 5);
    }

    /** Scrolls {@code row} into view after the next pulses too, while it is still selected and not yet shown. */
    private void scrollIntoViewLater(int row, int tries) {
        javafx.application.Platform.runLater(() -> {
            if (selectedRow() != row || rowVisible(row)) return;
            table.scrollTo(Math.max(0, row - 5));
            if (tries > 1) scrollIntoViewLater(row, tries - 1);
        });
    }

    /** Whether row {@code row} of the side-by-side table is on screen (whole). */
    boolean rowVisible(int row) {
        javafx.scene.control.skin.VirtualFlow<?> flow = (javafx.scene.control.skin.VirtualFlow<?>) table.lookup(".virtual-flow");
        if (flow == null || flow.getFirstVisibleCell() == null || flow.getLastVisibleCell() == null) return false;
        return flow.getFirstVisibleCell().getIndex() <= row && row < flow.getLastVisibleCell().getIndex();
    }

    /** The selected row, -1 for none. */
    public int selectedRow() {
        return table.getSelectionModel().getSelectedIndex();
    }

    /** Selects the first divergence after the selected row (the first one when none is selected); false when there is none. */
    public boolean nextDivergence() {
        int sel = selectedRow();
        for (int r : divRows) {
            if (r > sel) {
                selectRow(r);
                return true;
            }
        }
        status.setText("No divergence after this row");
        return false;
    }

    /** Selects the last divergence before the selected row; false when there is none. */
    public boolean previousDivergence() {
        int sel = selectedRow();
        if (sel < 0) sel = Integer.MAX_VALUE;
        for (int i = divRows.length - 1; i >= 0; i--) {
            if (divRows[i] < sel) {
                selectRow(divRows[i]);
                return true;
            }
        }
        status.setText("No divergence before this row");
        return false;
    }

    /** The divergence nearest to the row at height {@code y} of the minimap. */
    private void jumpFromMinimap(double y) {
        if (alignment == null || divRows.length == 0) return;
        double h = Math.max(1, minimap.getHeight());
        int row = (int) Math.min(alignment.size() - 1, Math.max(0, Math.floor(y / h * alignment.size())));
        int k = Arrays.binarySearch(divRows, row);
        int best;
        if (k >= 0) best = divRows[k];
        else {
            int ins = -k - 1;
            if (ins == 0) best = divRows[0];
            else if (ins == divRows.length) best = divRows[divRows.length - 1];
            else best = row - divRows[ins - 1] <= divRows[ins] - row ? divRows[ins - 1] : divRows[ins];
        }
        selectRow(best);
    }

    /** The minimap's y (top of the mark) of a row. */
    double minimapY(int row) {
        return alignment == null || alignment.size() == 0 ? 0 : row * minimap.getHeight() / alignment.size();
    }

    private void setNavigation() {
        boolean any = divRows.length > 0;
        prev.setDisable(!any);
        next.setDisable(!any);
        int sel = selectedRow();
        int k = sel < 0 ? -1 : Arrays.binarySearch(divRows, sel);
        position.setText(!loaded ? "" : !any ? "no divergence" : k >= 0
                ? String.format(Locale.ROOT, "divergence %,d of %,d", k + 1, divRows.length)
                : String.format(Locale.ROOT, "%,d divergence%s", divRows.length, divRows.length == 1 ? "" : "s"));
    }

    private void drawMinimap() {
        GraphicsContext g = minimap.getGraphicsContext2D();
        double w = minimap.getWidth(), h = minimap.getHeight();
        g.setFill(Theme.pick("#e9efe9", "#26302a"));
        g.fillRect(0, 0, w, h);
        g.setStroke(Theme.pick("#b8c4b8", "#4a5a4e"));
        g.strokeLine(0.5, 0, 0.5, h);
        if (alignment == null || alignment.size() == 0) return;
        for (int r : divRows) {
            g.setFill(kindColor(result.divergences().get(divOfRow[r]).kind()));
            g.fillRect(3, Math.min(h - 3, minimapY(r)), w - 6, 3);
        }
        int sel = selectedRow();
        if (sel >= 0) {
            g.setStroke(Theme.pick("#1a4fb0", "#82b1ff"));
            g.setLineWidth(2);
            double y = minimapY(sel) + 1.5;
            g.strokeLine(0, y, w, y);
            g.setLineWidth(1);
        }
    }

    private static Color kindColor(DiffKind k) {
        return switch (k) {
            case MISSING, EXTRA -> Color.web("#7a1fa2");
            case RESULT -> Color.web("#c62828");
            case DATA -> Color.web("#e07000");
            default -> Color.web("#1a4fb0");
        };
    }

    // ------------------------------------------------------------------ details

    private void showDetails(int row) {
        setNavigation();
        drawMinimap();
        heat.getChildren().clear();
        detailGeneration++;
        shownImages = null;
        shownBuffer = null;
        boolean launch = locator != null && alignment != null && row >= 0 && row < alignment.size() && alignment.bCall(row) >= 0
                && divOfRow[row] >= 0 && Role.of(alignment.bFunction(row)) == Role.KERNEL_LAUNCH;
        // offered only where it can run: a localisation against NVIDIA's driver needs one on this machine
        String cannot = launch ? pairedLocator().unavailable() : null;
        locateButton.setVisible(launch && cannot == null);
        locateButton.setManaged(launch && cannot == null);
        hint.setVisible(cannot != null);
        hint.setManaged(cannot != null);
        hint.setText(cannot == null ? "" : "Locating the diverging instruction (" + pairedLocator().describe() + ") " + cannot);
        if (launch && cannot == null) locateButton.setText("Locate the diverging instruction in B (" + pairedLocator().describe() + ")");
        if (alignment == null || row < 0 || row >= alignment.size()) {
            detailTitle.setText("Select a row");
            detailText.setText("");
            return;
        }
        StringBuilder sb = new StringBuilder();
        sb.append("A ").append(alignment.aCall(row) < 0 ? "(no call)" : "#" + alignment.aCall(row) + "  " + alignment.aText(row)).append('\n');
        sb.append("B ").append(alignment.bCall(row) < 0 ? "(no call)" : "#" + alignment.bCall(row) + "  " + alignment.bText(row)).append('\n');
        int d = divOfRow[row];
        if (d < 0) {
            detailTitle.setText("The same in A and B");
            detailTitle.getStyleClass().remove("error");
        } else {
            DiffResult.Divergence v = result.divergences().get(d);
            detailTitle.setText(String.format(Locale.ROOT, "Divergence %,d: %s — %s", v.number(), v.function(), v.kind().description()));
            if (!detailTitle.getStyleClass().contains("error")) detailTitle.getStyleClass().add("error");
            sb.append('\n');
            if (v.kind() == DiffKind.MISSING) sb.append("Only in A: B has no such call after its call ").append(v.b().after()).append('\n');
            if (v.kind() == DiffKind.EXTRA) sb.append("Only in B: A has no such call after its call ").append(v.a().after()).append('\n');
            for (DiffResult.Difference f : v.differences()) {
                sb.append(f.kind().label()).append("  ").append(f.what()).append('\n');
                sb.append("    A: ").append(f.a()).append('\n');
                sb.append("    B: ").append(f.b()).append('\n');
                DiffResult.DataDiff dd = f.data();
                if (dd != null) {
                    sb.append(String.format(Locale.ROOT, "    %s, %s, %,d bytes: %,d of %,d elements differ", dd.buffer(), dd.elementType(),
                            dd.bytes(), dd.differing(), dd.elements()));
                    if (dd.firstElement() >= 0) sb.append(String.format(Locale.ROOT, "\n    first at element %,d (byte %,d): %s vs %s",
                            dd.firstElement(), dd.byteOffset(), dd.a(), dd.b()));
                    if (!Double.isNaN(dd.maxAbs())) sb.append(String.format(Locale.ROOT, "\n    largest |a−b| %.6g", dd.maxAbs()));
                    if (dd.maxUlps() >= 0) sb.append(String.format(Locale.ROOT, ", %,d ulps", dd.maxUlps()));
                    if (dd.note() != null) sb.append(" (").append(dd.note()).append(')');
                    sb.append('\n');
                    if (heat.getChildren().isEmpty()) showBuffers(v, f);
                }
            }
        }
        detailText.setText(sb.toString());
    }

    /**
     * Shows the buffers of a data difference: A, B and their difference as images, and a histogram
     * of the errors, read in the background by the first source that handles it; while they are
     * read, and when no source can read them, the diff's heatmap of where they differ.
     */
    private void showBuffers(DiffResult.Divergence v, DiffResult.Difference f) {
        DivergingBuffer.Source src = null;
        for (DivergingBuffer.Source s : bufferSources) {
            if (s.handles(v, f)) {
                src = s;
                break;
            }
        }
        Heatmap hm = f.data().heatmap();
        if (src == null) {
            if (hm != null) heat.getChildren().add(heatmapPane(hm, null));
            return;
        }
        Label reading = new Label("Reading the buffers of A and B…");
        reading.setId("buffersReading");
        heat.getChildren().add(hm != null ? heatmapPane(hm, reading) : new VBox(reading));
        int gen = detailGeneration;
        DivergingBuffer.Source source = src;
        var tol = result.options().tolerance();
        Task<Object[]> t = new Task<>() {
            @Override
            protected Object[] call() throws Exception {
                DivergingBuffer buf = source.read(v, f);
                return new Object[] {buf, BufferImages.of(buf, tol)};
            }
        };
        t.setOnSucceeded(e -> {
            if (gen != detailGeneration) return;
            DivergingBuffer buf = (DivergingBuffer) t.getValue()[0];
            shownImages = (BufferImages) t.getValue()[1];
            shownBuffer = buf;
            heat.getChildren().setAll(buffersPane(buf, shownImages));
        });
        t.setOnFailed(e -> {
            if (gen != detailGeneration) return;
            Throwable x = t.getException();
            reading.setText("No images of A and B: " + (x.getMessage() != null ? x.getMessage() : x.toString()));
            reading.getStyleClass().add("hint");
        });
        Thread th = new Thread(t, "zluda-viewer-buffers");
        th.setDaemon(true);
        th.start();
    }

    /** Whether the selected divergence's buffers are being read (their images not shown yet). */
    public boolean readingBuffers() {
        return shownImages == null && heat.lookup("#buffersReading") != null;
    }

    /** The height of the images, their captions and the histogram (tests: they fit the pane). */
    double heatmapsHeight() {
        return heat.getHeight();
    }

    /** The images and histogram shown for the selected divergence, or null (none, or still reading). */
    public BufferImages shownImages() {
        return shownImages;
    }

    /**
     * The cells ({@code w} × {@code h}) drawn at {@code iw} × {@code ih} pixels, each pixel the colour of
     * the cell it falls in: sharp cells at any size (an ImageView scaling a small image smooths it on
     * some pipelines, whatever its smooth flag says).
     */
    private static WritableImage image(int[] argb, int w, int h, int iw, int ih) {
        WritableImage img = new WritableImage(iw, ih);
        int[] row = new int[iw];
        PixelWriter pw = img.getPixelWriter();
        for (int y = 0; y < ih; y++) {
            int cy = (int) ((long) y * h / ih);
            for (int x = 0; x < iw; x++) row[x] = argb[cy * w + (int) ((long) x * w / iw)];
            pw.setPixels(0, y, iw, 1, javafx.scene.image.PixelFormat.getIntArgbInstance(), row, 0, iw);
        }
        return img;
    }

    /**
     * The difference drawn at {@code iw} × {@code ih} pixels: a pixel covering several cells (a small
     * pane) shows the largest difference among them, so that no differing cell drops out of sight.
     */
    private static WritableImage diffImage(BufferImages im, int iw, int ih) {
        if (iw >= im.width && ih >= im.height) return image(im.diff, im.width, im.height, iw, ih);
        WritableImage img = new WritableImage(iw, ih);
        PixelWriter pw = img.getPixelWriter();
        for (int y = 0; y < ih; y++) {
            int y0 = (int) ((long) y * im.height / ih), y1 = Math.max(y0 + 1, (int) ((long) (y + 1) * im.height / ih));
            for (int x = 0; x < iw; x++) {
                int x0 = (int) ((long) x * im.width / iw), x1 = Math.max(x0 + 1, (int) ((long) (x + 1) * im.width / iw));
                int worst = -1;
                for (int cy = y0; cy < y1; cy++) for (int cx = x0; cx < x1; cx++) worst = Math.max(worst, im.level[cy * im.width + cx]);
                pw.setArgb(x, y, 0xFF000000 | Heatmap.color(worst));
            }
        }
        return img;
    }

    private static VBox titled(String title, String id, WritableImage img) {
        ImageView iv = new ImageView(img);
        iv.setId(id);
        Label l = new Label(title);
        l.getStyleClass().add("image-title");
        return new VBox(2, l, iv);
    }

    /** Lays the images of the buffer shown out again (the pane's height or the text size changed). */
    private void relayoutImages() {
        if (shownBuffer != null && shownImages != null) heat.getChildren().setAll(buffersPane(shownBuffer, shownImages));
    }

    /**
     * A and B on one value scale, their difference, the scale, and the error histogram, as large as
     * the pane's height allows (the text beside and below them included), at least 96 px.
     */
    private HBox buffersPane(DivergingBuffer buf, BufferImages im) {
        double fs = Theme.fontSize();
        double avail = heatScroll.getViewportBounds() == null || heatScroll.getViewportBounds().getHeight() <= 0 ? 300
                : heatScroll.getViewportBounds().getHeight();
        // below and above the images: a title line, the value scale and its ends, two lines of caption
        double viewW = heatScroll.getViewportBounds() == null || heatScroll.getViewportBounds().getWidth() <= 0 ? 800
                : heatScroll.getViewportBounds().getWidth();
        // the three images share what the histogram (at least 360 px at 12 px text) leaves of the width
        double side = Math.max(96, Math.min(Math.min(720, avail - 7 * fs * 1.35 - 20), (viewW - Theme.scaled(360) - 24 - 28) / 3));
        double cw = side / Math.max(im.width, im.height);
        if (cw >= 1) cw = Math.floor(cw);   // enlarged: every cell the same whole number of pixels
        double iw = Math.max(1, Math.round(cw * im.width)), ih = Math.max(1, Math.round(cw * im.height));
        VBox a = titled("A (reference)", "imageA", image(im.a, im.width, im.height, (int) iw, (int) ih));
        VBox b = titled("B", "imageB", image(im.b, im.width, im.height, (int) iw, (int) ih));
        VBox d = titled("Difference", "heatmap", diffImage(im, (int) iw, (int) ih));
        Canvas legend = new Canvas(iw, Math.round(fs));
        legend.setId("valueScale");
        GraphicsContext g = legend.getGraphicsContext2D();
        for (int x = 0; x < iw; x++) {
            int rgb = BufferImages.scale(x / Math.max(1.0, iw - 1));
            g.setFill(Color.rgb((rgb >> 16) & 0xFF, (rgb >> 8) & 0xFF, rgb & 0xFF));
            g.fillRect(x, 0, 1, legend.getHeight());
        }
        Label lo = new Label(BufferImages.number(im.min)), hi = new Label(BufferImages.number(im.max));
        Region grow = new Region();
        HBox.setHgrow(grow, Priority.ALWAYS);
        HBox ends = new HBox(lo, grow, hi);
        ends.setPrefWidth(iw);
        ends.setMaxWidth(iw);
        lo.getStyleClass().add("hint");
        hi.getStyleClass().add("hint");
        VBox scaleBox = new VBox(1, legend, ends);
        Label diffKey = new Label("green: equal; yellow → red: small → large");
        diffKey.getStyleClass().add("hint");
        diffKey.setWrapText(true);
        diffKey.setMaxWidth(Math.max(iw, 10 * fs));
        a.getChildren().add(scaleBox);
        d.getChildren().add(diffKey);
        Label cap = new Label(String.format(Locale.ROOT, "%s\n%s, %,d elements, %,d differ%s; %d × %d cells of %,d element%s",
                buf.label(), buf.type().name(), im.elements, im.differing,
                Double.isNaN(im.maxAbs) ? "" : String.format(Locale.ROOT, ", largest |a−b| %.6g", im.maxAbs),
                im.width, im.height, im.perCell, im.perCell == 1 ? "" : "s"));
        cap.setId("buffersCaption");
        cap.getStyleClass().add("hint");
        cap.setWrapText(true);
        cap.setMaxWidth(3 * iw + 24);
        VBox images = new VBox(6, new HBox(12, a, b, d), cap);
        double histW = Math.max(220, viewW - (3 * iw + 24) - 16 - 12);
        // the histogram as tall as the images: its title and key (two lines each at most) beside theirs
        return new HBox(16, images, histogram(im, ih + legend.getHeight(), histW));
    }

    /**
     * Bars of differing elements per power-of-two error bin, with counts and bin labels, about
     * {@code height} px tall; its title wraps and its labels are inside it at any text size.
     */
    private static VBox histogram(BufferImages im, double height, double width) {
        int[] r = im.binRange();
        List<String> labels = new ArrayList<>();
        List<Long> counts = new ArrayList<>();
        if (r[0] >= 0) {
            for (int k = r[0]; k <= r[1]; k++) {
                labels.add(BufferImages.binLabel(k));
                counts.add(im.bins[k]);
            }
        }
        if (im.nanErrors > 0) {
            labels.add("NaN");
            counts.add(im.nanErrors);
        }
        double fs = Math.max(9, Theme.fontSize() - 2);
        javafx.scene.text.Font font = javafx.scene.text.Font.font(fs);
        javafx.scene.text.Text probe = new javafx.scene.text.Text();
        probe.setFont(font);
        double labelW = 0, countW = 0;
        long max = counts.stream().mapToLong(Long::longValue).max().orElse(0);
        for (String l : labels) {
            probe.setText(l);
            labelW = Math.max(labelW, probe.getLayoutBounds().getWidth());
        }
        probe.setText(String.format(Locale.ROOT, "%,d", max));
        countW = probe.getLayoutBounds().getWidth();
        int n = counts.size();
        // the bars share the width there is (a slot at least a line of text wide); labels turn when they do not fit
        double left = 8;
        double slot = n == 0 ? fs * 4 : Math.max(fs * 1.3, Math.min(Math.max(fs * 4, countW + 6), (width - 2 * left) / n));
        boolean rotate = labelW > slot - 4;   // then the labels stand upright, one line of text wide each
        double bottom = (rotate ? labelW : fs * 1.4) + 8, top = (countW > slot - 2 ? countW : fs) + 6;
        double h = Math.max(120, height), w = Math.max(200, left * 2 + n * slot);
        double base = h - bottom;
        Canvas c = new Canvas(w, h);
        c.setId("errorHistogram");
        GraphicsContext g = c.getGraphicsContext2D();
        g.setFill(Theme.pick("#f7f7f7", "#2a2c30"));
        g.fillRect(0, 0, w, h);
        g.setFont(font);
        Color text = Theme.pick("#303030", "#e2e4e8");
        for (int i = 0; i < n && max > 0; i++) {
            double bh = counts.get(i) == 0 ? 0 : Math.max(2, (base - top) * counts.get(i) / (double) max);
            double x = left + i * slot;
            int rgb = labels.get(i).equals("NaN") ? 0xD0208C : Heatmap.color(1 + (int) Math.round(254.0 * i / Math.max(1, n - 1)));
            g.setFill(Color.rgb((rgb >> 16) & 0xFF, (rgb >> 8) & 0xFF, rgb & 0xFF));
            g.fillRect(x + 2, base - bh, slot - 4, bh);
            g.setFill(text);
            if (counts.get(i) > 0) {
                // a count wider than its bar is written turned, up the bar's side
                String cs = String.format(Locale.ROOT, "%,d", counts.get(i));
                probe.setText(cs);
                if (probe.getLayoutBounds().getWidth() <= slot - 2) g.fillText(cs, x + 2, base - bh - 3);
                else {
                    g.save();
                    g.translate(x + slot / 2 + fs * 0.35, base - bh - 3);
                    g.rotate(-90);
                    g.fillText(cs, 0, 0);
                    g.restore();
                }
            }
            if (rotate) {
                probe.setText(labels.get(i));
                g.save();
                g.translate(x + slot / 2 + fs * 0.35, base + 4 + probe.getLayoutBounds().getWidth());
                g.rotate(-90);
                g.fillText(labels.get(i), 0, 0);
                g.restore();
            } else {
                g.fillText(labels.get(i), x + 2, base + fs * 1.2);
            }
        }
        g.setStroke(Theme.pick("#909090", "#7a7f87"));
        g.strokeLine(2, base + 0.5, w - 2, base + 0.5);
        if (n == 0) {
            g.setFill(text);
            g.fillText("no element differs beyond the tolerance", left, base / 2);
        }
        Label t = new Label(im.ulps ? "Differing elements by error in ULPs (units in the last place)" : "Differing elements by |a − b|");
        t.getStyleClass().add("image-title");
        t.setId("histogramTitle");
        t.setWrapText(true);
        t.setMaxWidth(w);
        t.setMinHeight(Region.USE_PREF_SIZE);
        Label key = new Label("a bar 2^k counts errors from 2^k to 2^(k+1) − 1" + (im.nanErrors > 0 ? "; NaN: a NaN against a number" : ""));
        key.getStyleClass().add("hint");
        key.setWrapText(true);
        key.setMaxWidth(w);
        key.setMinHeight(Region.USE_PREF_SIZE);
        VBox box = new VBox(2, t, c, key);
        box.setMinWidth(w);
        box.setMaxWidth(w);
        return box;
    }

    /** The diff's heatmap of where a buffer differs (its cells' largest differences), with a note below. */
    private static VBox heatmapPane(Heatmap h, Label note) {
        int scale = Math.max(1, Math.min(h.defaultScale(), 200 / Math.max(h.width(), h.height())));
        WritableImage img = new WritableImage(h.width() * scale, h.height() * scale);
        PixelWriter pw = img.getPixelWriter();
        int differing = 0;
        for (int i = 0; i < h.width() * h.height(); i++) {
            int v = h.cell(i);
            if (v > 0) differing++;
            int argb = 0xFF000000 | Heatmap.color(v);
            int x0 = (i % h.width()) * scale, y0 = (i / h.width()) * scale;
            for (int y = 0; y < scale; y++) for (int x = 0; x < scale; x++) pw.setArgb(x0 + x, y0 + y, argb);
        }
        ImageView iv = new ImageView(img);
        iv.setId("heatmap");
        Label cap = new Label(String.format(Locale.ROOT, "Where B differs from A: %,d × %,d cells of %,d element%s, %,d differ",
                h.width(), h.height(), h.elementsPerCell(), h.elementsPerCell() == 1 ? "" : "s", differing));
        cap.getStyleClass().add("hint");
        VBox box = new VBox(4, new Label("Data"), iv, cap);
        if (note != null) box.getChildren().add(note);
        return box;
    }

    // ------------------------------------------------------------------ state

    /** The stage. */
    public Stage stage() {
        return stage;
    }

    /** The comparison shown, or null while comparing. */
    public DiffResult result() {
        return result;
    }

    /** The aligned calls, or null while comparing. */
    public Alignment alignment() {
        return alignment;
    }

    /** Rows of the marked divergences, ascending (a copy). */
    public int[] divergenceRows() {
        return divRows.clone();
    }

    /** Whether the comparison has finished (or failed: {@link #loadError()}). */
    public boolean isLoaded() {
        return loaded;
    }

    /** Why the captures could not be compared, or null. */
    public String loadError() {
        return loadError;
    }

    /** Runs {@code r} once the comparison has finished (now, when it has). */
    public void whenLoaded(Runnable r) {
        if (loaded) r.run();
        else onLoaded.add(r);
    }
}

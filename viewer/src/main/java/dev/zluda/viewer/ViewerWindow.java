package dev.zluda.viewer;

import dev.zluda.diff.CallIndex;
import dev.zluda.spec.Role;
import dev.zluda.capture.Capture;
import dev.zluda.capture.ReadStatus;
import javafx.animation.KeyFrame;
import javafx.animation.Timeline;
import javafx.application.Platform;
import javafx.beans.property.IntegerProperty;
import javafx.beans.property.SimpleIntegerProperty;
import javafx.concurrent.Task;
import javafx.css.PseudoClass;
import javafx.geometry.Orientation;
import javafx.scene.Scene;
import javafx.scene.control.Alert;
import javafx.scene.control.Button;
import javafx.scene.control.CheckBox;
import javafx.scene.control.ComboBox;
import javafx.scene.control.Label;
import javafx.scene.control.Menu;
import javafx.scene.control.MenuBar;
import javafx.scene.control.MenuItem;
import javafx.scene.control.ProgressBar;
import javafx.scene.control.SelectionMode;
import javafx.scene.control.SeparatorMenuItem;
import javafx.scene.control.SplitPane;
import javafx.scene.control.Tab;
import javafx.scene.control.TabPane;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableRow;
import javafx.scene.control.TableView;
import javafx.scene.control.TextField;
import javafx.scene.control.Tooltip;
import javafx.scene.input.KeyCode;
import javafx.scene.input.KeyCodeCombination;
import javafx.scene.input.KeyCombination;
import javafx.scene.input.TransferMode;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.Region;
import javafx.scene.layout.VBox;
import javafx.stage.DirectoryChooser;
import javafx.stage.FileChooser;
import javafx.stage.Stage;
import javafx.util.Duration;
import javafx.util.StringConverter;

import java.io.File;
import java.nio.file.Path;
import java.util.Locale;
import java.util.function.IntFunction;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * The viewer's main window for one capture: a filter bar, the call table (virtualized over a
 * {@link CallIndex}, so millions of rows scroll as fast as ten), a timeline, the modules with their
 * PTX, a memory view of blobs, and the details of the selected call below them. A capture is opened
 * with {@link #open(Path)} (or File &gt; Open, or by dropping it on the window) and indexed in the
 * background: rows appear while it loads, a progress bar and a Cancel button show meanwhile.
 * FX thread only.
 */
public final class ViewerWindow {
    private static final PseudoClass ERROR = PseudoClass.getPseudoClass("error");
    private static final PseudoClass IN_FLIGHT = PseudoClass.getPseudoClass("inflight");
    /** The thread filter's "all threads" entry. */
    private static final Long ALL_THREADS = Long.MIN_VALUE;

    private final Stage stage;
    private final Scene scene;
    private final IntegerProperty selected = new SimpleIntegerProperty(-1);

    private CallIndex index;
    private CallDecoder decoder;
    private CallRows rows;
    private IndexLoad load;
    private Timeline poller;
    private long loadNanos = -1;
    private String loadError;
    private boolean syncing;
    private volatile long firstRowsPaintedMillis = -1;
    private long ticks;
    private final java.util.List<Runnable> onLoaded = new java.util.ArrayList<>();
    private KernelLocator locator;
    private Task<KernelLocator.Result> locating;
    private KernelLocator.Result located;

    // controls
    final TableView<CallRows.Row> table = new TableView<>();
    final CallTable callTable;
    private final TextField functionField = new TextField();
    private final ComboBox<Long> threadBox = new ComboBox<>();
    private final CheckBox errorsBox = new CheckBox("Errors only");
    /** Runs of cuGetProcAddress look-ups (cudart's start-up) as one row each; on by default. */
    private final CheckBox foldBox = new CheckBox("Fold look-ups");
    private final TextField fromField = new TextField(), toField = new TextField();
    private final Label matchLabel = new Label();
    private final ProgressBar progress = new ProgressBar(0);
    private final Button cancelButton = new Button("Cancel");
    private final Label status = new Label("No capture: File > Open");
    private final TabPane tabs = new TabPane();
    private final Tab callsTab = new Tab("Calls"), timelineTab = new Tab("Timeline"), modulesTab = new Tab("Modules"), memoryTab = new Tab("Memory");
    final DetailsPane details;
    final TimelineView timeline;
    final ModulesView modules;
    final MemoryView memory;

    /** Builds the window on {@code stage} (not shown yet). */
    public ViewerWindow(Stage stage) {
        this.stage = stage;
        details = new DetailsPane(this);
        timeline = new TimelineView(this);
        modules = new ModulesView(this);
        memory = new MemoryView(this);

        BorderPane root = new BorderPane();
        VBox top = new VBox(menuBar(), filterBar());
        root.setTop(top);

        buildTable();
        callTable = new CallTable(table, this::rowSelected);
        callsTab.setContent(callTable);
        // the other tabs get their content when first shown: less to style and lay out before the first frame
        timelineTab.setUserData(timeline);
        modulesTab.setUserData(modules);
        memoryTab.setUserData(memory);
        for (Tab t : new Tab[] {callsTab, timelineTab, modulesTab, memoryTab}) t.setClosable(false);
        callsTab.setId("callsTab");
        timelineTab.setId("timelineTab");
        modulesTab.setId("modulesTab");
        memoryTab.setId("memoryTab");
        tabs.getTabs().addAll(callsTab, timelineTab, modulesTab, memoryTab);
        tabs.setId("tabs");
        tabs.getSelectionModel().selectedItemProperty().addListener((o, a, b) -> {
            if (b != null && b.getContent() == null && b.getUserData() instanceof javafx.scene.Node n) b.setContent(n);
            if (b == timelineTab) Platform.runLater(timeline::shown);
        });

        SplitPane split = new SplitPane(tabs, details);
        split.setOrientation(Orientation.VERTICAL);
        split.setDividerPositions(0.62);
        SplitPane.setResizableWithParent(details, false);
        root.setCenter(split);
        root.setBottom(statusBar());

        double[] size = Theme.windowSize();
        scene = new Scene(root, size[0], size[1]);
        Theme.install(scene);
        Theme.onChange(scene, timeline::redraw);
        scene.setOnDragOver(e -> {
            if (e.getDragboard().hasFiles()) e.acceptTransferModes(TransferMode.COPY);
            e.consume();
        });
        scene.setOnDragDropped(e -> {
            boolean ok = e.getDragboard().hasFiles() && !e.getDragboard().getFiles().isEmpty();
            if (ok) open(e.getDragboard().getFiles().getFirst().toPath());
            e.setDropCompleted(ok);
            e.consume();
        });
        stage.setScene(scene);
        stage.setTitle("zluda view");
        scene.addPostLayoutPulseListener(() -> {
            IndexLoad l = load;
            if (l != null && firstRowsPaintedMillis < 0 && rows != null && rows.size() > 0) {
                firstRowsPaintedMillis = Viewer.sinceJvmStartMillis();
                Viewer.trace("first rows laid out");
                l.painted();
            }
        });
        stage.setOnHidden(e -> close());

        selected.addListener((o, a, b) -> selectionChanged(b.intValue()));
    }

    /** The stage. */
    public Stage stage() {
        return stage;
    }

    /** The index of the capture shown, or null. */
    public CallIndex index() {
        return index;
    }

    /** The decoder of the capture shown, or null. */
    public CallDecoder decoder() {
        return decoder;
    }

    /** The rows the table shows now. */
    public CallRows rows() {
        return rows;
    }

    /** The selected call (0-based), -1 for none. */
    public IntegerProperty selectedCallProperty() {
        return selected;
    }

    /** Selects a call everywhere (table, timeline, details); -1 clears. */
    public void select(int call) {
        selected.set(call);
    }

    /** Whether a capture has been indexed to its end (or cancelled, or failed). */
    public boolean isLoaded() {
        return index != null && load == null;
    }

    /** Whether a capture is being indexed now (the progress bar and Cancel show). */
    public boolean isLoading() {
        return load != null;
    }

    /** Time the last load took, ns (-1 while loading). */
    public long loadNanos() {
        return loadNanos;
    }

    /** When the first rows of the capture being shown were laid out, ms since the JVM started (-1: not yet). */
    public long firstRowsPaintedMillis() {
        return firstRowsPaintedMillis;
    }

    /** The message of a capture that could not be opened, or null. */
    public String loadError() {
        return loadError;
    }

    /** Runs {@code r} once the capture being loaded is loaded (now, when it already is). */
    public void whenLoaded(Runnable r) {
        if (isLoaded()) r.run();
        else onLoaded.add(r);
    }

    /** The tab pane (Calls, Timeline, Modules, Memory). */
    TabPane tabs() {
        return tabs;
    }

    /** Shows a tab: {@code calls}, {@code timeline}, {@code modules} or {@code memory}. */
    public void showTab(String name) {
        tabs.getSelectionModel().select(switch (name) {
            case "timeline" -> timelineTab;
            case "modules" -> modulesTab;
            case "memory" -> memoryTab;
            default -> callsTab;
        });
    }

    // ------------------------------------------------------------------ building

    private MenuBar menuBar() {
        MenuItem openFile = new MenuItem("Open capture file or pack…");
        openFile.setAccelerator(new KeyCodeCombination(KeyCode.O, KeyCombination.SHORTCUT_DOWN));
        openFile.setOnAction(e -> {
            FileChooser fc = new FileChooser();
            fc.setTitle("Open a capture (capture.zcap) or a pack");
            fc.getExtensionFilters().addAll(new FileChooser.ExtensionFilter("Captures and packs", "*.zcap", "*.zip", "*.zpack"),
                    new FileChooser.ExtensionFilter("All files", "*"));
            File f = fc.showOpenDialog(stage);
            if (f != null) open(f.toPath());
        });
        MenuItem openDir = new MenuItem("Open capture directory…");
        openDir.setAccelerator(new KeyCodeCombination(KeyCode.O, KeyCombination.SHORTCUT_DOWN, KeyCombination.SHIFT_DOWN));
        openDir.setOnAction(e -> {
            DirectoryChooser dc = new DirectoryChooser();
            dc.setTitle("Open a capture directory");
            File f = dc.showDialog(stage);
            if (f != null) open(f.toPath());
        });
        MenuItem closeItem = new MenuItem("Close window");
        closeItem.setAccelerator(new KeyCodeCombination(KeyCode.W, KeyCombination.SHORTCUT_DOWN));
        closeItem.setOnAction(e -> stage.close());
        Menu file = new Menu("File", null, openFile, openDir, new SeparatorMenuItem(), closeItem);
        MenuItem calls = new MenuItem("Calls");
        calls.setOnAction(e -> showTab("calls"));
        MenuItem tl = new MenuItem("Timeline");
        tl.setOnAction(e -> showTab("timeline"));
        MenuItem mods = new MenuItem("Modules");
        mods.setOnAction(e -> showTab("modules"));
        MenuItem mem = new MenuItem("Memory");
        mem.setOnAction(e -> showTab("memory"));
        MenuItem clear = new MenuItem("Clear filter");
        clear.setOnAction(e -> clearFilter());
        javafx.scene.control.CheckMenuItem darkItem = new javafx.scene.control.CheckMenuItem("Dark theme");
        darkItem.setId("darkTheme");
        darkItem.setSelected(Theme.dark());
        darkItem.setAccelerator(new KeyCodeCombination(KeyCode.T, KeyCombination.SHORTCUT_DOWN, KeyCombination.SHIFT_DOWN));
        darkItem.setOnAction(e -> Theme.setDark(darkItem.isSelected()));
        MenuItem larger = new MenuItem("Larger text (Ctrl+Plus)");
        larger.setOnAction(e -> Theme.setFontSize(Theme.fontSize() + 2));
        MenuItem smaller = new MenuItem("Smaller text (Ctrl+Minus)");
        smaller.setOnAction(e -> Theme.setFontSize(Theme.fontSize() - 2));
        Menu view = new Menu("View", null, calls, tl, mods, mem, new SeparatorMenuItem(), clear, new SeparatorMenuItem(), darkItem, larger, smaller);
        view.setOnShowing(e -> darkItem.setSelected(Theme.dark()));
        MenuBar mb = new MenuBar(file, view);
        mb.setId("menuBar");
        return mb;
    }

    private HBox filterBar() {
        functionField.setId("functionFilter");
        functionField.setPromptText("function regex, e.g. ^cuMem|Launch");
        functionField.setPrefColumnCount(22);
        functionField.textProperty().addListener((o, a, b) -> applyFilter());
        threadBox.setId("threadFilter");
        threadBox.setPromptText("all threads");
        threadBox.setConverter(new StringConverter<>() {
            @Override
            public String toString(Long t) {
                if (t == null || t.equals(ALL_THREADS)) return "all threads";
                String n = index == null ? null : index.threadName(t);
                return "thread " + t + (n == null ? "" : " (" + n + ")");
            }

            @Override
            public Long fromString(String s) {
                return null;
            }
        });
        threadBox.valueProperty().addListener((o, a, b) -> applyFilter());
        errorsBox.setId("errorsOnly");
        errorsBox.selectedProperty().addListener((o, a, b) -> applyFilter());
        foldBox.setId("foldLookups");
        foldBox.setSelected(true);
        foldBox.setTooltip(new Tooltip("A run of cuGetProcAddress calls (cudart looks up hundreds of driver entry points at start-up) is one row;"
                + " a function filter or Errors only shows each"));
        foldBox.selectedProperty().addListener((o, a, b) -> applyFilter());
        fromField.setId("fromTime");
        toField.setId("toTime");
        for (TextField f : new TextField[] {fromField, toField}) {
            f.setPrefColumnCount(7);
            f.textProperty().addListener((o, a, b) -> applyFilter());
        }
        fromField.setPromptText("from s");
        toField.setPromptText("to s");
        fromField.setTooltip(new Tooltip("Only calls that start at or after this time (seconds since the capture began)"));
        toField.setTooltip(new Tooltip("Only calls that start at or before this time (seconds since the capture began)"));
        Button clear = new Button("Clear");
        clear.setOnAction(e -> clearFilter());
        matchLabel.setId("matchCount");
        matchLabel.getStyleClass().add("hint");
        Label fl = new Label("Function");
        Label tl = new Label("Time");
        HBox bar = new HBox(fl, functionField, threadBox, errorsBox, foldBox, tl, fromField, new Label("–"), toField, clear, matchLabel);
        bar.getStyleClass().add("filter-bar");
        return bar;
    }

    private HBox statusBar() {
        progress.setId("loadProgress");
        progress.setPrefWidth(220);
        progress.setVisible(false);
        progress.setManaged(false);
        cancelButton.setId("cancelLoad");
        cancelButton.setVisible(false);
        cancelButton.setManaged(false);
        cancelButton.setTooltip(new Tooltip("Stop reading the capture: the calls read so far stay and can be browsed"));
        cancelButton.setOnAction(e -> cancelLoading());
        status.setId("status");
        Region grow = new Region();
        HBox.setHgrow(grow, Priority.ALWAYS);
        HBox bar = new HBox(status, grow, progress, cancelButton);
        bar.getStyleClass().add("status-bar");
        return bar;
    }

    /**
     * A table of calls as both windows show them: id and style class {@code id}, rows of 22 px, one
     * selected row, columns as wide as set, {@code placeholder} while it has no rows.
     */
    static void setUpTable(TableView<?> table, String id, String placeholder) {
        table.setId(id);
        table.getStyleClass().add(id);
        table.setFixedCellSize(22);
        table.setPlaceholder(new Label(placeholder));
        table.getSelectionModel().setSelectionMode(SelectionMode.SINGLE);
        table.setColumnResizePolicy(TableView.UNCONSTRAINED_RESIZE_POLICY);
    }

    private void buildTable() {
        setUpTable(table, "calls", "No calls");
        table.getColumns().add(column("#", 64, "num", i -> Integer.toString(i + 1)));
        table.getColumns().add(column("Thread", 64, "thread", i -> Long.toString(index.threadId(i))));
        table.getColumns().add(column("Start (s)", 86, "start", i -> String.format(Locale.ROOT, "%.6f", index.start(i) / 1e9)));
        table.getColumns().add(column("Duration", 86, "duration", i -> index.inFlight(i) ? "—" : duration(index.duration(i))));
        table.getColumns().add(column("Function", 200, "function", i -> "  ".repeat(Math.min(index.depth(i), 8)) + index.functionName(index.function(i))));
        // the result before the arguments: it stays in view, long argument lists scroll
        table.getColumns().add(column("Result", 230, "result", i -> decoder.result(i)));
        table.getColumns().add(column("Arguments", 1100, "arguments", i -> decoder.arguments(i)));
        for (String right : new String[] {"num", "thread", "start", "duration"}) {
            table.getColumns().stream().filter(c -> right.equals(c.getId())).forEach(c -> c.setStyle("-fx-alignment: CENTER-RIGHT;"));
        }
        // right-click on a launch: the instruction-level localisation (the menu is built on first use)
        table.setOnContextMenuRequested(e -> {
            if (launchMenu(e.getPickResult() == null ? null : e.getPickResult().getIntersectedNode(), e.getScreenX(), e.getScreenY())) e.consume();
        });
        table.addEventHandler(javafx.scene.input.MouseEvent.MOUSE_RELEASED, e -> {
            if (e.getButton() == javafx.scene.input.MouseButton.SECONDARY && (launchMenu == null || !launchMenu.isShowing())) {
                launchMenu(e.getPickResult() == null ? null : e.getPickResult().getIntersectedNode(), e.getScreenX(), e.getScreenY());
            }
        });
        Theme.followTable(table, 22);
        table.setRowFactory(tv -> new TableRow<>() {
            @Override
            protected void updateItem(CallRows.Row r, boolean empty) {
                super.updateItem(r, empty);
                boolean err = false, fly = false;
                if (!empty && r != null && index != null && r.call() < index.size()) {
                    fly = index.inFlight(r.call()) && index.isComplete();
                    err = index.failed(r.call());
                }
                pseudoClassStateChanged(ERROR, err);
                pseudoClassStateChanged(IN_FLIGHT, fly);
            }
        });
    }

    private javafx.scene.control.ContextMenu launchMenu;

    /** The launch's context menu last shown, or null (tests). */
    javafx.scene.control.ContextMenu launchMenu() {
        return launchMenu;
    }

    /** Shows the menu of the launch in the row under {@code target} (else the selected call); false when it is not a launch or nothing can locate. */
    private boolean launchMenu(javafx.scene.Node target, double screenX, double screenY) {
        javafx.scene.Node n = target;
        while (n != null && !(n instanceof TableRow<?>)) n = n.getParent();
        int call = n instanceof TableRow<?> r && r.getItem() instanceof CallRows.Row row ? row.call() : selected.get();
        if (index == null || call < 0 || call >= index.size() || locator == null || Role.of(index.functionName(index.function(call))) != Role.KERNEL_LAUNCH) return false;
        if (call != selected.get()) select(call);
        String cannot = locator.unavailable();
        MenuItem loc = new MenuItem(cannot == null ? "Locate the first diverging instruction (" + locator.describe() + ")"
                : "Locating the first diverging instruction (" + locator.describe() + ") " + cannot);
        loc.setId("locateMenuItem");
        loc.setDisable(locating != null || cannot != null);
        loc.setOnAction(x -> locateInstruction(call));
        if (launchMenu != null) launchMenu.hide();
        launchMenu = new javafx.scene.control.ContextMenu(loc);
        launchMenu.show(table, screenX, screenY);
        return true;
    }

    /** The user selected a row of the table (-1: none). */
    private void rowSelected(int row) {
        if (syncing || rows == null) return;
        syncing = true;
        try {
            selected.set(row < 0 || row >= rows.size() ? -1 : rows.callAt(row));
        } finally {
            syncing = false;
        }
    }

    private TableColumn<CallRows.Row, CallRows.Row> column(String title, double width, String id, IntFunction<String> text) {
        return TextColumns.of(title, width, id, r -> index == null || r.call() >= index.size() ? null
                : r.folded() > 1 ? foldedText(id, r) : text.apply(r.call()));
    }

    /**
     * A folded run of look-ups in column {@code id}: {@code cuGetProcAddress_v2 ×440}, the results of
     * the run, and what it is; the other columns show its first call.
     */
    private String foldedText(String id, CallRows.Row r) {
        int n = r.folded(), first = r.call();
        return switch (id) {
            case "function" -> index.functionName(index.function(first)) + " \u00d7" + n;
            case "result" -> {
                java.util.Map<String, Integer> results = new java.util.LinkedHashMap<>();
                for (int i = first; i < first + n && i < index.size(); i++) results.merge(decoder.result(i), 1, Integer::sum);
                StringBuilder sb = new StringBuilder();
                results.forEach((k, v) -> sb.append(sb.isEmpty() ? "" : ", ").append(v).append(' ').append(k));
                yield sb.toString();
            }
            case "arguments" -> String.format(Locale.ROOT, "calls %,d–%,d: looking up the driver's entry points, as cudart does at start-up"
                    + " (untick Fold look-ups to see each)", first + 1, first + n);
            case "num" -> (first + 1) + "–" + (first + n);
            default -> switch (id) {
                case "thread" -> Long.toString(index.threadId(first));
                case "start" -> String.format(Locale.ROOT, "%.6f", index.start(first) / 1e9);
                default -> "";
            };
        };
    }

    /** A duration for people: {@code 812 ns}, {@code 12.345 µs}, {@code 3.210 ms}, {@code 1.500 s}. */
    static String duration(long ns) {
        if (ns < 1_000) return ns + " ns";
        if (ns < 1_000_000) return String.format(Locale.ROOT, "%.3f µs", ns / 1e3);
        if (ns < 1_000_000_000) return String.format(Locale.ROOT, "%.3f ms", ns / 1e6);
        return String.format(Locale.ROOT, "%.3f s", ns / 1e9);
    }

    // ------------------------------------------------------------------ opening and loading

    /** Opens a capture directory, file or pack in the background (a pack is unpacked first). */
    public void open(Path path) {
        Task<Capture> t = new Task<>() {
            @Override
            protected Capture call() throws Exception {
                return Capture.open(path);
            }
        };
        status.setText("Opening " + path + "…");
        t.setOnSucceeded(e -> show(t.getValue()));
        t.setOnFailed(e -> {
            Throwable x = t.getException();
            loadError = x.getMessage() != null ? x.getMessage() : x.toString();
            status.setText("Cannot open " + path + ": " + loadError);
            if (!Boolean.getBoolean("zluda.viewer.noDialogs")) {
                Alert a = new Alert(Alert.AlertType.ERROR, loadError);
                a.setHeaderText("Cannot open " + path.getFileName());
                a.initOwner(stage);
                a.show();
            }
        });
        Thread th = new Thread(t, "zluda-viewer-open");
        th.setDaemon(true);
        th.start();
    }

    /** Shows an open capture and indexes it in the background; the window closes the capture when it closes or shows another. */
    public void show(Capture capture) {
        show(IndexLoad.start(capture));
    }

    /**
     * Shows a capture whose indexing has started (perhaps while the toolkit was starting): waits a
     * moment for its first calls so that the next frame shows them, then follows the load.
     */
    void show(IndexLoad l) {
        close();
        loadError = null;
        load = l;
        index = l.index();
        decoder = new CallDecoder(index);
        firstRowsPaintedMillis = -1;
        stage.setTitle("zluda view — " + index.capture().source());
        threadBox.getItems().setAll(ALL_THREADS);
        threadBox.setValue(ALL_THREADS);
        CallFilter f = currentFilter();
        rows = new CallRows(index, f == null ? CallFilter.ALL : f, foldBox.isSelected());
        callTable.setRows(rows);
        selected.set(-1);
        details.show(-1);
        timeline.reset();
        modules.reload();
        memory.reload();
        loadNanos = -1;
        progress.setProgress(0);
        setLoadingControls(true);
        poller = new Timeline(new KeyFrame(Duration.millis(100), e -> tick()));
        poller.setCycleCount(Timeline.INDEFINITE);
        poller.play();
        l.done().whenComplete((st, x) -> Platform.runLater(() -> finished(l, x)));
        l.awaitFirstRows(300);
        tick();
    }

    /** Cancel: stops reading the capture; the calls read so far stay in the window. */
    public void cancelLoading() {
        IndexLoad l = load;
        if (l == null) return;
        l.cancel();
        cancelButton.setDisable(true);
        status.setText("Cancelling…");
    }

    private void setLoadingControls(boolean loading) {
        cancelButton.setDisable(false);
        progress.setVisible(loading);
        progress.setManaged(loading);
        cancelButton.setVisible(loading);
        cancelButton.setManaged(loading);
    }

    private void tick() {
        if (index == null) return;
        boolean added = rows.refresh();
        if (added) callTable.rowsAdded();
        IndexLoad l = load;
        if (l != null) {
            if (visibleRowInFlight()) callTable.refreshCells();
            long b = l.bytesRead(), total = Math.max(1, l.fileSize());
            progress.setProgress((double) b / total);
            if (!l.isCancelled()) {
                status.setText(String.format(Locale.ROOT, "Loading %s: %,d calls, %s of %s read…", index.capture().source().getFileName(),
                        index.size(), bytes(b), bytes(total)));
            }
        }
        if (added || l != null) updateMatchLabel();
        // while loading, the timeline (when on screen) is redrawn twice a second
        if (l == null || ++ticks % 5 == 0) timeline.changed();
    }

    /** Whether a row on screen shows a call whose LEAVE has not been read yet (its cells change when it is). */
    private boolean visibleRowInFlight() {
        int top = callTable.topRow();
        for (int r = top; r < top + callTable.pageRows() && r < rows.size(); r++) {
            if (index.inFlight(rows.callAt(r))) return true;
        }
        return false;
    }

    /** {@code 12.3 MiB}, {@code 512 KiB}, {@code 812 B}. */
    static String bytes(long b) {
        if (b < 1024) return b + " B";
        if (b < 1024 * 1024) return String.format(Locale.ROOT, "%.0f KiB", b / 1024.0);
        if (b < 1024L * 1024 * 1024) return String.format(Locale.ROOT, "%.1f MiB", b / 1048576.0);
        return String.format(Locale.ROOT, "%.2f GiB", b / 1073741824.0);
    }

    private void finished(IndexLoad l, Throwable failure) {
        if (l != load) return;
        Viewer.trace("index done, on the FX thread");
        load = null;
        loadNanos = l.nanos();
        if (poller != null) poller.stop();
        setLoadingControls(false);
        if (failure instanceof java.util.concurrent.CompletionException ce && ce.getCause() != null) failure = ce.getCause();
        if (rows.filter().dependsOnResults()) applyFilter();
        else if (rows.refresh()) callTable.rowsAdded();
        callTable.refreshCells();
        long[] tids = index.threadIds();
        Long keepThread = threadBox.getValue();
        threadBox.getItems().setAll(ALL_THREADS);
        for (long tid : tids) threadBox.getItems().add(tid);
        threadBox.setValue(keepThread == null || !threadBox.getItems().contains(keepThread) ? ALL_THREADS : keepThread);
        timeline.reset();
        modules.reload();
        memory.reload();
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "%s: %,d calls, %d thread%s, %,d error%s", index.capture().source().getFileName(),
                index.size(), tids.length, tids.length == 1 ? "" : "s", index.errors(), index.errors() == 1 ? "" : "s"));
        if (index.inFlightAtEnd() > 0) sb.append(String.format(Locale.ROOT, ", %d in flight", index.inFlightAtEnd()));
        // loads as zluda info and the run summary count them (a fatbin is one load, its entries files of it)
        int loads = index.modules().size(), listed = modules.count();
        sb.append(String.format(Locale.ROOT, ", %d module load%s%s, %d blob%s", loads, loads == 1 ? "" : "s",
                listed > loads ? String.format(Locale.ROOT, " (%d listed with the dumped files)", listed) : "",
                index.blobs().size(), index.blobs().size() == 1 ? "" : "s"));
        if (failure != null) {
            loadError = failure.toString();
            sb.append(" — reading failed: ").append(failure.getMessage());
        } else if (index.isCancelled()) {
            sb.append(" — loading cancelled: the calls after these were not read");
        } else {
            ReadStatus st = index.status();
            if (st != null && st.stoppedEarly()) sb.append(" — capture ").append(st.summary());
            else if (st != null && !st.endedCleanly()) sb.append(" — no process end (killed or crashed?)");
            sb.append(String.format(Locale.ROOT, " — read in %.2f s", loadNanos / 1e9));
        }
        status.setText(sb.toString());
        updateMatchLabel();
        if (selected.get() >= 0) details.show(selected.get());
        java.util.List<Runnable> rs = java.util.List.copyOf(onLoaded);
        onLoaded.clear();
        for (Runnable r : rs) r.run();
    }

    /** Stops loading and closes the capture shown (if any). */
    void close() {
        if (poller != null) poller.stop();
        IndexLoad l = load;
        CallIndex old = index;
        load = null;
        if (l != null) {
            l.cancel();
            setLoadingControls(false);
            // the index thread still reads the mapping: close once it has stopped (cancelled or failed)
            l.done().whenComplete((st, x) -> old.capture().close());
        } else if (old != null) {
            old.capture().close();
        }
        index = null;
    }

    // ------------------------------------------------------------------ filtering

    private CallFilter currentFilter() {
        Pattern p = null;
        String re = functionField.getText();
        functionField.getStyleClass().remove("invalid");
        functionField.setTooltip(null);
        if (re != null && !re.isBlank()) {
            try {
                p = Pattern.compile(re.strip());
            } catch (PatternSyntaxException e) {
                functionField.getStyleClass().add("invalid");
                functionField.setTooltip(new Tooltip(e.getDescription()));
                return null;
            }
        }
        Long from = seconds(fromField), to = seconds(toField);
        if (from == null || to == null) return null;
        Long thread = threadBox.getValue() == null || threadBox.getValue().equals(ALL_THREADS) ? null : threadBox.getValue();
        return new CallFilter(p, thread, errorsBox.isSelected(),
                from == Long.MIN_VALUE ? Long.MIN_VALUE : from, to == Long.MIN_VALUE ? Long.MAX_VALUE : to);
    }

    /** Seconds typed in a field as ns; MIN_VALUE for blank, null (and the field marked) when it is not a number. */
    private static Long seconds(TextField f) {
        f.getStyleClass().remove("invalid");
        String s = f.getText() == null ? "" : f.getText().strip().replace("+", "");
        if (s.isEmpty()) return Long.MIN_VALUE;
        try {
            double mult = 1e9;
            if (s.endsWith("ms")) { mult = 1e6; s = s.substring(0, s.length() - 2); }
            else if (s.endsWith("us") || s.endsWith("µs")) { mult = 1e3; s = s.substring(0, s.length() - 2); }
            else if (s.endsWith("ns")) { mult = 1; s = s.substring(0, s.length() - 2); }
            else if (s.endsWith("s")) s = s.substring(0, s.length() - 1);
            return Math.round(Double.parseDouble(s.strip()) * mult);
        } catch (NumberFormatException e) {
            f.getStyleClass().add("invalid");
            return null;
        }
    }

    /** Rebuilds the rows for the filter in the bar (keeps the selected call selected when it still shows). */
    void applyFilter() {
        if (index == null) return;
        CallFilter f = currentFilter();
        if (f == null) return;
        int keep = selected.get();
        rows = new CallRows(index, f, foldBox.isSelected());
        rows.refresh();
        syncing = true;
        try {
            callTable.setRows(rows);
            int r = rows.rowOf(keep);
            if (r >= 0) callTable.selectRow(r);
        } finally {
            syncing = false;
        }
        updateMatchLabel();
        timeline.changed();
    }

    private void clearFilter() {
        functionField.setText("");
        threadBox.setValue(ALL_THREADS);
        errorsBox.setSelected(false);
        fromField.setText("");
        toField.setText("");
    }

    /** Sets the function regex in the filter bar. */
    public void filterFunctions(String regex) {
        functionField.setText(regex);
    }

    private void updateMatchLabel() {
        if (index == null || rows == null) {
            matchLabel.setText("");
            return;
        }
        matchLabel.setText(rows.filter().isAll() ? String.format(Locale.ROOT, "%,d calls", index.size())
                : String.format(Locale.ROOT, "%,d of %,d calls", rows.size(), index.size()));
    }

    // ------------------------------------------------------------------ selection

    private void selectionChanged(int call) {
        details.show(call);
        timeline.selectionChanged(call);
        if (syncing || rows == null) return;
        syncing = true;
        try {
            callTable.selectRow(rows.rowOf(call));
        } finally {
            syncing = false;
        }
    }

    /** Sets what runs the instruction-level localisation of a launch (null: the action is not offered). */
    public void setKernelLocator(KernelLocator l) {
        locator = l;
        if (selected.get() >= 0) details.show(selected.get());
    }

    /** The localisation offered on launches, or null. */
    KernelLocator kernelLocator() {
        return locator;
    }

    /** The last localisation's result, or null (none yet, or one is running). */
    public KernelLocator.Result locatedResult() {
        return located;
    }

    /** Whether a localisation is running. */
    public boolean isLocating() {
        return locating != null;
    }

    /**
     * Runs the instruction-level localisation of the kernel launched by {@code call} (0-based) in
     * the background, with a progress bar and its steps in the status line; then shows the
     * instruction it names in the modules view with both values, or says why it found none or could
     * not run. {@code kernel} and {@code module} name the launched kernel when known (else null, 0).
     */
    public void locateInstruction(int call, String kernel, long module) {
        if (locator == null || index == null || locating != null) return;
        KernelLocator l = locator;
        java.nio.file.Path src = index.capture().source();
        located = null;
        Task<KernelLocator.Result> t = new Task<>() {
            @Override
            protected KernelLocator.Result call() {
                return l.locate(src, call + 1L, this::updateMessage);
            }
        };
        locating = t;
        status.setText("Locating the first diverging instruction of call #" + (call + 1) + " (" + l.describe() + ")…");
        t.messageProperty().addListener((o, a, b) -> {
            if (b != null && !b.isEmpty()) status.setText("Locating, call #" + (call + 1) + ": " + b);
        });
        if (load == null) {
            progress.setProgress(ProgressBar.INDETERMINATE_PROGRESS);
            progress.setVisible(true);
            progress.setManaged(true);
        }
        t.setOnSucceeded(e -> locateDone(t, t.getValue(), kernel, module));
        t.setOnFailed(e -> {
            Throwable x = t.getException();
            locateDone(t, KernelLocator.Result.cannotRun("the localisation failed: " + (x.getMessage() != null ? x.getMessage() : x)), kernel, module);
        });
        Thread th = new Thread(t, "zluda-viewer-locate");
        th.setDaemon(true);
        th.start();
    }

    /** {@link #locateInstruction(int, String, long)} for a launch whose kernel is found from its arguments. */
    public void locateInstruction(int call) {
        if (index == null || call < 0 || call >= index.size()) return;
        long fn = decoder.launchedFunction(decoder.decode(call));
        CallIndex.KernelName k = fn == 0 ? null : index.kernelName(fn);
        locateInstruction(call, k == null ? null : k.name(), k == null ? 0 : k.module());
    }

    private void locateDone(Task<KernelLocator.Result> t, KernelLocator.Result r, String kernel, long module) {
        if (t != locating) return;
        locating = null;
        if (load == null) {
            progress.setVisible(false);
            progress.setManaged(false);
        }
        located = r;
        if (r.outcome() == KernelLocator.Outcome.FOUND && r.line() > 0) {
            String k = r.kernel() != null ? r.kernel() : kernel;
            if (modules.showLocated(k, module, r.line(), r)) showTab("modules");
        }
        status.setText(r.message());
    }

    /** Shows a kernel's {@code .entry} in the modules view. */
    void goToEntry(String kernel, long moduleHandle) {
        if (modules.showEntry(kernel, moduleHandle)) showTab("modules");
        else status.setText("No PTX module of this capture declares .entry " + kernel);
    }

    /** Shows bytes in the memory view. */
    void showMemory(String label, byte[] bytes) {
        memory.showBytes(label, bytes);
        showTab("memory");
    }

    /** Shows a blob in the memory view. */
    void showBlob(long hash) {
        if (memory.showBlob(hash)) showTab("memory");
        else status.setText(String.format("Blob %016x is not in this capture", hash));
    }

    /** Sets the status line. */
    void status(String text) {
        status.setText(text);
    }

    /** Runs later on the FX thread. */
    static void later(Runnable r) {
        Platform.runLater(r);
    }
}

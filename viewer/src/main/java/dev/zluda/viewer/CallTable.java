package dev.zluda.viewer;

import javafx.collections.FXCollections;
import javafx.collections.ObservableList;
import javafx.geometry.Orientation;
import javafx.scene.Node;
import javafx.scene.control.ScrollBar;
import javafx.scene.control.TableView;
import javafx.scene.input.KeyEvent;
import javafx.scene.input.ScrollEvent;
import javafx.scene.layout.BorderPane;

import java.util.ArrayList;
import java.util.List;
import java.util.function.IntConsumer;

/**
 * The call table: a {@link TableView} that holds only the rows on screen (a window of the
 * {@link CallRows}), with its own vertical scroll bar over all rows. JavaFX's TableView keeps
 * per-row bookkeeping that grows with the number of items and is walked on every layout; holding
 * one screen of rows keeps scrolling, jumping and filtering as fast with ten million calls as with
 * ten. Wheel, arrow keys, Page Up/Down and Ctrl+Home/End move through all rows. FX thread only.
 */
final class CallTable extends BorderPane {
    private final TableView<CallRows.Row> table;
    private final ScrollBar vbar = new ScrollBar();
    private final ObservableList<CallRows.Row> window = FXCollections.observableArrayList();
    private final IntConsumer onSelectRow;
    private CallRows rows;
    private int top;
    private int page = 20;
    private int selectedRow = -1;
    private boolean filling;
    private Node watchedViewport;

    /** Wraps {@code table}; {@code onSelectRow} hears the row (of all rows) the user selects, -1 for none. */
    CallTable(TableView<CallRows.Row> table, IntConsumer onSelectRow) {
        this.table = table;
        this.onSelectRow = onSelectRow;
        table.setItems(window);
        vbar.setOrientation(Orientation.VERTICAL);
        vbar.setId("callScroll");
        vbar.setMin(0);
        vbar.setUnitIncrement(1);
        vbar.valueProperty().addListener((o, a, b) -> {
            int t = (int) Math.round(b.doubleValue());
            if (t != top) {
                top = t;
                fill();
            }
        });
        setCenter(table);
        setRight(vbar);
        table.addEventFilter(ScrollEvent.SCROLL, e -> {
            if (e.getDeltaY() == 0 || rows == null) return;
            int lines = (int) Math.signum(-e.getDeltaY()) * Math.max(1, (int) Math.round(Math.abs(e.getDeltaY()) / table.getFixedCellSize()));
            scrollTo(top + lines);
            e.consume();
        });
        table.addEventFilter(KeyEvent.KEY_PRESSED, this::key);
        table.getSelectionModel().selectedIndexProperty().addListener((o, a, b) -> {
            if (filling) return;
            int i = b.intValue();
            selectedRow = i < 0 ? -1 : top + i;
            onSelectRow.accept(selectedRow);
        });
        table.heightProperty().addListener(o -> resized());
        // once the table has laid itself out, its viewport is known: fit the page to it
        table.needsLayoutProperty().addListener((o, was, now) -> {
            if (!now) resized();
        });
    }

    /** Shows these rows (a new filter or capture), from the top. */
    void setRows(CallRows r) {
        rows = r;
        top = 0;
        selectedRow = -1;
        updateBar();
        fill();
    }

    /** Rows were added (loading): extend the scroll range, fill the screen. */
    void rowsAdded() {
        updateBar();
        if (window.size() < page) fill();
    }

    /** Redraws the cells on screen (their calls changed). */
    void refreshCells() {
        table.refresh();
    }

    /** Rows shown on one screen. */
    int pageRows() {
        return page;
    }

    /** The first row on screen. */
    int topRow() {
        return top;
    }

    /** The row selected (of all rows), -1 for none. */
    int selectedRow() {
        return selectedRow;
    }

    /** Whether a row is on screen. */
    boolean onScreen(int row) {
        return row >= top && row < top + window.size();
    }

    /** Scrolls so that {@code row} is the first row on screen (as far as the rows allow). */
    void scrollTo(int row) {
        if (rows == null) return;
        int t = Math.max(0, Math.min(row, Math.max(0, rows.size() - page)));
        if (t == top) return;
        vbar.setValue(t); // fills through the listener
    }

    /** Selects {@code row} (of all rows; -1 clears), scrolling to it when it is not on screen; does not call back. */
    void selectRow(int row) {
        if (rows == null) return;
        selectedRow = row >= 0 && row < rows.size() ? row : -1;
        if (selectedRow >= 0 && !onScreen(selectedRow)) scrollTo(selectedRow - page / 3);
        applySelection();
    }

    private void applySelection() {
        filling = true;
        try {
            if (selectedRow >= top && selectedRow < top + window.size()) {
                table.getSelectionModel().clearAndSelect(selectedRow - top);
                table.getFocusModel().focus(selectedRow - top);
            } else {
                table.getSelectionModel().clearSelection();
            }
        } finally {
            filling = false;
        }
    }

    private void key(KeyEvent e) {
        if (rows == null || rows.size() == 0) return;
        int cur = selectedRow >= 0 ? selectedRow : top;
        int target = switch (e.getCode()) {
            case DOWN -> cur + 1;
            case UP -> cur - 1;
            case PAGE_DOWN -> cur + page - 1;
            case PAGE_UP -> cur - page + 1;
            case HOME -> e.isShortcutDown() || e.isControlDown() ? 0 : Integer.MIN_VALUE;
            case END -> e.isShortcutDown() || e.isControlDown() ? rows.size() - 1 : Integer.MIN_VALUE;
            default -> Integer.MIN_VALUE;
        };
        if (target == Integer.MIN_VALUE) return;
        target = Math.max(0, Math.min(rows.size() - 1, target));
        if (target < top) scrollTo(target);
        else if (target >= top + page) scrollTo(target - page + 1);
        selectedRow = target;
        applySelection();
        onSelectRow.accept(target);
        e.consume();
    }

    private void updateBar() {
        int n = rows == null ? 0 : rows.size();
        vbar.setMax(Math.max(0, n - page));
        vbar.setVisibleAmount(Math.max(1, Math.min(page, n)));
        vbar.setBlockIncrement(Math.max(1, page - 1));
        vbar.setDisable(n <= page);
    }

    /**
     * Sets the page to the rows that fit: the height of the table's viewport (its clipped cell
     * container, known once the table has laid itself out) over the fixed cell height; before
     * that, an estimate from the table's height less its header and horizontal scroll bar.
     * (Judging by whether the table showed its own vertical scroll bar, as this once did, went
     * wrong: while this pane lays out, before the table does, the bar is that of the previous,
     * larger page, and the flow leaves it visible a while after the rows fit, so one row came off
     * on every layout pass: a loaded capture showed 15 rows where 17 fit.)
     */
    private void resized() {
        double cell = table.getFixedCellSize() > 0 ? table.getFixedCellSize() : 24;
        double view = viewportHeight();
        int p;
        if (view > 0) {
            p = (int) Math.floor((view + 0.5) / cell);
        } else {
            double header = 26, hbar = 0;
            Node h = table.lookup(".column-header-background");
            if (h != null) header = h.getLayoutBounds().getHeight();
            for (Node n : table.lookupAll(".scroll-bar")) {
                if (n instanceof ScrollBar sb && sb.getOrientation() == Orientation.HORIZONTAL && sb.isVisible()) hbar = sb.getHeight();
            }
            p = (int) Math.floor((table.getHeight() - header - hbar - 2) / cell);
        }
        p = Math.max(1, p);
        if (p != page) {
            page = p;
            updateBar();
            fill();
        }
    }

    /** Height of the table's viewport (the cells' clipped container), -1 before the table has laid it out. */
    private double viewportHeight() {
        Node c = table.lookup(".clipped-container");
        if (c != null && c != watchedViewport) {
            // the viewport also changes after the table's own layout (the flow lays it out later): follow it
            watchedViewport = c;
            c.layoutBoundsProperty().addListener((o, a, b) -> {
                if (a.getHeight() != b.getHeight()) resized();
            });
        }
        double h = c == null ? -1 : c.getLayoutBounds().getHeight();
        return h > 0 ? h : -1;
    }

    /** Puts rows [top, top + page) into the table. */
    private void fill() {
        List<CallRows.Row> rs = new ArrayList<>(page);
        if (rows != null) {
            top = Math.max(0, Math.min(top, Math.max(0, rows.size() - page)));
            for (int r = top; r < Math.min(rows.size(), top + page); r++) rs.add(rows.get(r));
        }
        filling = true;
        try {
            window.setAll(rs);
        } finally {
            filling = false;
        }
        applySelection();
    }

    @Override
    protected void layoutChildren() {
        super.layoutChildren();
        resized();
    }
}

package dev.zluda.viewer;

import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.collections.FXCollections;
import javafx.collections.ObservableListBase;
import javafx.geometry.Orientation;
import javafx.scene.control.ComboBox;
import javafx.scene.control.Label;
import javafx.scene.control.ListCell;
import javafx.scene.control.ListView;
import javafx.scene.control.SplitPane;
import javafx.scene.control.Tab;
import javafx.scene.control.TabPane;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableView;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.IntFunction;

/**
 * Blobs (and other recorded data) as memory: a hex dump with ASCII, and a typed table (f32, f64,
 * i32, u32, i64, u64, i16, u16, i8, u8), both virtualized so a blob of hundreds of megabytes scrolls
 * like a small one. The list on the left holds the capture's blobs, named by the first call that
 * referred to them, and whatever was sent here from the details view or the modules view.
 */
final class MemoryView extends SplitPane {
    /** The element types of the typed table. */
    static final List<String> TYPES = List.of("f32", "f64", "i32", "u32", "i64", "u64", "i16", "u16", "i8", "u8");

    /** Something to show: a label and its bytes (loaded when first shown). */
    record Source(String label, long hash, byte[] bytes) {}

    private final ViewerWindow w;
    private final ListView<Source> sources = new ListView<>();
    private final Label header = new Label("Select a blob");
    private final ComboBox<String> type = new ComboBox<>(FXCollections.observableArrayList(TYPES));
    private final ListView<Integer> hex = new ListView<>();
    private final TableView<Integer> typed = new TableView<>();
    private final TabPane views = new TabPane();
    private final List<Source> extra = new ArrayList<>();
    private ByteBuffer data = ByteBuffer.allocate(0);

    MemoryView(ViewerWindow w) {
        this.w = w;
        setId("memoryView");
        sources.setId("blobList");
        sources.setPlaceholder(new Label("This capture holds no blobs.\n(Buffer contents are kept at\nlevel 'replay' and above.)"));
        sources.setCellFactory(lv -> new ListCell<>() {
            @Override
            protected void updateItem(Source s, boolean empty) {
                super.updateItem(s, empty);
                setText(empty || s == null ? null : s.label());
            }
        });
        sources.getSelectionModel().selectedItemProperty().addListener((o, a, b) -> show(b));

        hex.setId("hexView");
        hex.getStyleClass().add("hex-view");
        Theme.follow(hex, () -> hex.setFixedCellSize(Theme.scaled(18)));
        hex.setCellFactory(lv -> new ListCell<>() {
            @Override
            protected void updateItem(Integer line, boolean empty) {
                super.updateItem(line, empty);
                setText(empty || line == null ? null : hexLine(line));
            }
        });
        type.setId("memType");
        type.setValue("f32");
        type.valueProperty().addListener((o, a, b) -> refreshTyped());
        typed.setId("typedView");
        typed.getStyleClass().add("typed-view");
        Theme.follow(typed, () -> typed.setFixedCellSize(Theme.scaled(20)));
        typed.setColumnResizePolicy(TableView.CONSTRAINED_RESIZE_POLICY_FLEX_LAST_COLUMN);
        typed.getColumns().add(col("Index", 90, i -> Integer.toString(i)));
        typed.getColumns().add(col("Offset", 110, i -> String.format(Locale.ROOT, "0x%08x", (long) i * width())));
        typed.getColumns().add(col("Value", 220, this::value));
        typed.getColumns().add(col("Bits", 200, this::bits));
        Tab hexTab = new Tab("Hex", hex), typedTab = new Tab("Typed", typed);
        hexTab.setId("hexTab");
        typedTab.setId("typedTab");
        hexTab.setClosable(false);
        typedTab.setClosable(false);
        views.getTabs().addAll(hexTab, typedTab);
        views.setId("memoryTabs");
        header.setId("memoryHeader");
        header.setMaxWidth(Double.MAX_VALUE);
        HBox bar = new HBox(8, header, new Label("Typed as"), type);
        HBox.setHgrow(header, Priority.ALWAYS);
        bar.setStyle("-fx-padding: 4 6 4 6; -fx-alignment: center-left;");
        BorderPane right = new BorderPane(views);
        right.setTop(bar);
        getItems().addAll(sources, right);
        setOrientation(Orientation.HORIZONTAL);
        setDividerPositions(0.3);
    }

    private static TableColumn<Integer, String> col(String name, double width, IntFunction<String> f) {
        TableColumn<Integer, String> c = new TableColumn<>(name);
        c.setPrefWidth(width);
        c.setSortable(false);
        c.setCellValueFactory(x -> new ReadOnlyStringWrapper(f.apply(x.getValue())));
        return c;
    }

    /** Re-reads the blob list from the index. */
    void reload() {
        extra.clear();
        CallIndex idx = w.index();
        List<Source> all = new ArrayList<>();
        if (idx != null) {
            for (CallIndex.BlobRef b : idx.blobs()) all.add(new Source(blobLabel(idx, b), b.hash(), null));
        }
        sources.setItems(FXCollections.observableArrayList(all));
        if (all.isEmpty()) show(null);
    }

    private static String blobLabel(CallIndex idx, CallIndex.BlobRef b) {
        StringBuilder sb = new StringBuilder(String.format(Locale.ROOT, "blob %016x\n  %,d bytes", b.hash(), b.size()));
        CallIndex.BlobUse u = idx.blobUse(b.hash());
        if (u != null && u.call() < idx.size()) {
            sb.append(" · #").append(u.call() + 1).append(' ').append(idx.functionName(idx.function(u.call())))
                    .append(" arg ").append(u.param()).append(u.out() ? " (out)" : "");
        }
        return sb.toString();
    }

    /** Selects the blob with this hash; false when the capture has none. */
    boolean showBlob(long hash) {
        for (Source s : sources.getItems()) {
            if (s.hash() == hash && s.bytes() == null) {
                sources.getSelectionModel().select(s);
                sources.scrollTo(s);
                return true;
            }
        }
        return false;
    }

    /** Adds bytes (from a call's data or a module) at the top of the list and shows them. */
    void showBytes(String label, byte[] bytes) {
        Source s = new Source(String.format(Locale.ROOT, "%s\n  %,d bytes", label, bytes.length), 0, bytes);
        extra.add(s);
        sources.getItems().addFirst(s);
        sources.getSelectionModel().select(s);
        sources.scrollTo(0);
    }

    private void show(Source s) {
        byte[] b = null;
        if (s != null) {
            if (s.bytes() != null) {
                b = s.bytes();
            } else {
                CallIndex.BlobRef ref = w.index() == null ? null : w.index().blob(s.hash());
                try {
                    b = ref == null ? null : CaptureContent.bytes(ref);
                } catch (IOException e) {
                    header.setText(e.getMessage());
                }
            }
        }
        data = ByteBuffer.wrap(b == null ? new byte[0] : b).order(ByteOrder.LITTLE_ENDIAN);
        if (s == null) header.setText("Select a blob");
        else if (b != null) header.setText(s.label().replace("\n ", " ·"));
        hex.setItems(new Range((data.capacity() + 15) / 16));
        refreshTyped();
    }

    private void refreshTyped() {
        typed.setItems(new Range(data.capacity() / width()));
        typed.refresh();
    }

    /** Bytes per element of the chosen type. */
    private int width() {
        String t = type.getValue() == null ? "f32" : type.getValue();
        return switch (t) {
            case "f64", "i64", "u64" -> 8;
            case "i16", "u16" -> 2;
            case "i8", "u8" -> 1;
            default -> 4;
        };
    }

    /** Element {@code i} as the chosen type. */
    String value(int i) {
        int off = i * width();
        if (off + width() > data.capacity()) return "";
        return switch (type.getValue() == null ? "f32" : type.getValue()) {
            case "f32" -> Float.toString(data.getFloat(off));
            case "f64" -> Double.toString(data.getDouble(off));
            case "i32" -> Integer.toString(data.getInt(off));
            case "u32" -> Integer.toUnsignedString(data.getInt(off));
            case "i64" -> Long.toString(data.getLong(off));
            case "u64" -> Long.toUnsignedString(data.getLong(off));
            case "i16" -> Short.toString(data.getShort(off));
            case "u16" -> Integer.toString(Short.toUnsignedInt(data.getShort(off)));
            case "i8" -> Byte.toString(data.get(off));
            default -> Integer.toString(Byte.toUnsignedInt(data.get(off)));
        };
    }

    private String bits(int i) {
        int wd = width(), off = i * wd;
        if (off + wd > data.capacity()) return "";
        StringBuilder sb = new StringBuilder("0x");
        for (int k = wd - 1; k >= 0; k--) sb.append(String.format(Locale.ROOT, "%02x", data.get(off + k) & 0xFF));
        return sb.toString();
    }

    /** Line {@code line} of the hex dump: offset, 16 bytes, ASCII. */
    String hexLine(int line) {
        int off = line * 16, n = Math.min(16, data.capacity() - off);
        StringBuilder sb = new StringBuilder(String.format(Locale.ROOT, "%08x  ", off));
        for (int k = 0; k < 16; k++) {
            if (k < n) sb.append(String.format(Locale.ROOT, "%02x ", data.get(off + k) & 0xFF));
            else sb.append("   ");
            if (k == 7) sb.append(' ');
        }
        sb.append(" |");
        for (int k = 0; k < n; k++) {
            int c = data.get(off + k) & 0xFF;
            sb.append(c >= 0x20 && c < 0x7F ? (char) c : '.');
        }
        return sb.append('|').toString();
    }

    /** Bytes shown now. */
    int shownBytes() {
        return data.capacity();
    }

    /** The list 0..n-1 without storing it. */
    private static final class Range extends ObservableListBase<Integer> {
        private final int n;

        Range(int n) {
            this.n = n;
        }

        @Override
        public Integer get(int i) {
            if (i < 0 || i >= n) throw new IndexOutOfBoundsException(i);
            return i;
        }

        @Override
        public int size() {
            return n;
        }

        @Override
        public int indexOf(Object o) {
            return o instanceof Integer i && i >= 0 && i < n ? i : -1;
        }
    }
}

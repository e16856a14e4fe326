package dev.zluda.viewer;

import dev.zluda.diff.CallIndex;
import dev.zluda.capture.CaptureFormat;
import dev.zluda.capture.CaptureRecord;
import dev.zluda.capture.DataItem;
import dev.zluda.capture.text.CallFormatter;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.collections.FXCollections;
import javafx.geometry.Orientation;
import javafx.scene.control.Hyperlink;
import javafx.scene.control.Label;
import javafx.scene.control.ListCell;
import javafx.scene.control.ListView;
import javafx.scene.control.SplitPane;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableRow;
import javafx.scene.control.TableView;
import javafx.scene.control.Tooltip;
import javafx.scene.input.MouseButton;
import javafx.scene.layout.FlowPane;
import javafx.scene.layout.Priority;
import javafx.scene.layout.VBox;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;

/**
 * The details of the selected call: what it was (number, function, thread, time, result), its
 * arguments decoded with their C types and pointer directions, the value each had when the call
 * began and after it returned (output values), the data recorded behind pointers (shown in the
 * memory view on a double click), the calls made inside it, and for a kernel launch the kernel's
 * {@code .entry} in the modules view.
 */
final class DetailsPane extends VBox {
    private final ViewerWindow w;
    private final Label title = new Label("No call selected");
    private final Label facts = new Label();
    private final FlowPane links = new FlowPane(10, 2);
    private final TableView<CallDecoder.Argument> args = new TableView<>();
    private final ListView<Integer> nested = new ListView<>();
    private final Label nestedLabel = new Label("Nested calls");

    DetailsPane(ViewerWindow w) {
        this.w = w;
        setId("details");
        getStyleClass().add("details");
        title.setId("detailsTitle");
        title.getStyleClass().add("details-title");
        facts.setId("detailsFacts");
        facts.getStyleClass().add("details-facts");
        links.setId("detailsLinks");

        args.setId("argumentTable");
        args.getStyleClass().add("arguments");
        args.setPlaceholder(new Label("No arguments"));
        args.setColumnResizePolicy(TableView.UNCONSTRAINED_RESIZE_POLICY);
        args.getColumns().add(col("#", 32, a -> Integer.toString(a.index())));
        args.getColumns().add(col("Parameter", 120, CallDecoder.Argument::name));
        args.getColumns().add(col("C type", 150, CallDecoder.Argument::cType));
        args.getColumns().add(col("Dir", 48, CallDecoder.Argument::direction));
        args.getColumns().add(col("Raw", 140, a -> CallFormatter.hex(a.raw())));
        args.getColumns().add(col("At entry", 220, CallDecoder.Argument::atEntry));
        args.getColumns().add(col("After call", 220, CallDecoder.Argument::afterCall));
        args.getColumns().add(col("Data", 200, DetailsPane::dataText));
        args.setRowFactory(tv -> {
            TableRow<CallDecoder.Argument> row = new TableRow<>();
            row.setOnMouseClicked(e -> {
                if (e.getButton() == MouseButton.PRIMARY && e.getClickCount() == 2 && row.getItem() != null) showData(row.getItem());
            });
            return row;
        });
        args.setTooltip(new Tooltip("Double-click an argument with data to see the data in the memory view"));

        nested.setId("nestedCalls");
        nested.getStyleClass().add("nested-calls");
        nested.setPlaceholder(new Label("No nested calls"));
        nested.setCellFactory(lv -> new ListCell<>() {
            @Override
            protected void updateItem(Integer call, boolean empty) {
                super.updateItem(call, empty);
                setText(empty || call == null || w.decoder() == null ? null : "#" + (call + 1) + "  " + w.decoder().line(call));
            }
        });
        nested.setOnMouseClicked(e -> {
            Integer c = nested.getSelectionModel().getSelectedItem();
            if (e.getClickCount() == 2 && c != null) w.select(c);
        });
        nestedLabel.getStyleClass().add("section-label");
        VBox nestedBox = new VBox(2, nestedLabel, nested);
        VBox.setVgrow(nested, Priority.ALWAYS);
        Label argsLabel = new Label("Arguments");
        argsLabel.getStyleClass().add("section-label");
        VBox argsBox = new VBox(2, argsLabel, args);
        VBox.setVgrow(args, Priority.ALWAYS);
        SplitPane split = new SplitPane(argsBox, nestedBox);
        split.setOrientation(Orientation.HORIZONTAL);
        split.setDividerPositions(0.72);
        VBox.setVgrow(split, Priority.ALWAYS);
        getChildren().addAll(title, facts, links, split);
        setMinHeight(120);
    }

    private static TableColumn<CallDecoder.Argument, String> col(String name, double width, Function<CallDecoder.Argument, String> f) {
        TableColumn<CallDecoder.Argument, String> c = new TableColumn<>(name);
        c.setPrefWidth(width);
        c.setSortable(false);
        c.setCellValueFactory(x -> new ReadOnlyStringWrapper(f.apply(x.getValue())));
        return c;
    }

    private static String dataText(CallDecoder.Argument a) {
        List<String> parts = new ArrayList<>();
        if (a.in() != null) parts.add("in: " + describe(a.in()));
        if (a.out() != null) parts.add("out: " + describe(a.out()));
        return String.join("; ", parts);
    }

    private static String describe(DataItem d) {
        return switch (d.kind()) {
            case CaptureFormat.ITEM_INLINE -> d.bytes().length + " bytes";
            case CaptureFormat.ITEM_BLOB -> String.format(Locale.ROOT, "%d bytes, blob %016x", d.size(), d.hash());
            case CaptureFormat.ITEM_HASH_ONLY -> String.format(Locale.ROOT, "%d bytes, hash only", d.size());
            case CaptureFormat.ITEM_TRUNCATED -> String.format(Locale.ROOT, "%d of %d bytes", d.bytes().length, d.size());
            default -> d.kindName();
        };
    }

    private void showData(CallDecoder.Argument a) {
        DataItem d = a.out() != null ? a.out() : a.in();
        if (d == null) return;
        String label = String.format(Locale.ROOT, "call #%d %s (%s)", w.selectedCallProperty().get() + 1, a.name(), a.out() != null ? "after call" : "at entry");
        if (d.kind() == CaptureFormat.ITEM_BLOB) w.showBlob(d.hash());
        else if (d.bytes() != null) w.showMemory(label, d.bytes());
    }

    /** Shows call {@code call}, or nothing for -1. */
    void show(int call) {
        links.getChildren().clear();
        CallIndex index = w.index();
        if (index == null || call < 0 || call >= index.size()) {
            title.setText("No call selected");
            title.getStyleClass().remove("error");
            facts.setText(w.index() == null ? "" : "Select a call in the table or the timeline.");
            args.getItems().clear();
            nested.getItems().clear();
            nestedLabel.setText("Nested calls");
            return;
        }
        CallDecoder dec = w.decoder();
        CallDecoder.Decoded d = dec.decode(call);
        String fn = index.functionName(index.function(call));
        title.setText("#" + (call + 1) + "  " + fn + "  →  " + dec.result(call));
        title.getStyleClass().remove("error");
        if (index.failed(call)) title.getStyleClass().add("error");
        long tid = index.threadId(call);
        String tname = index.threadName(tid);
        StringBuilder sb = new StringBuilder();
        sb.append("thread ").append(tid);
        if (tname != null) sb.append(" (").append(tname).append(')');
        sb.append(" · depth ").append(index.depth(call));
        sb.append(String.format(Locale.ROOT, " · start +%.6f s", index.start(call) / 1e9));
        sb.append(" · duration ").append(index.inFlight(call) ? "— (in flight)" : ViewerWindow.duration(index.duration(call)));
        if (d.enter() != null) sb.append(" · seq ").append(d.enter().seq());
        if (d.leave() != null) sb.append("–").append(d.leave().seq());
        if (d.enter() != null) sb.append(" · ENTER at byte ").append(d.enter().offset());
        facts.setText(sb.toString());

        int parent = index.parent(call);
        if (parent >= 0) {
            Hyperlink p = new Hyperlink("called from #" + (parent + 1) + " " + index.functionName(index.function(parent)));
            p.setOnAction(e -> w.select(parent));
            links.getChildren().add(p);
        }
        long fnHandle = dec.launchedFunction(d);
        if (fnHandle != 0) {
            CallIndex.KernelName k = index.kernelName(fnHandle);
            if (k != null) {
                Hyperlink go = new Hyperlink("kernel " + k.name() + ": go to its .entry");
                go.setId("goToEntry");
                go.setOnAction(e -> w.goToEntry(k.name(), k.module()));
                links.getChildren().add(go);
            } else {
                links.getChildren().add(new Label("kernel " + CallFormatter.hex(fnHandle) + " (its name was not recorded)"));
            }
            CaptureRecord.Kernel snap = d.enter() == null ? null : index.kernelSnapshot(d.enter().seq());
            if (snap != null && w.kernelLocator() != null) {
                Hyperlink loc = new Hyperlink("locate the first diverging instruction (" + w.kernelLocator().describe() + ")");
                loc.setId("locateInstruction");
                loc.setOnAction(e -> w.locateInstruction(call, k == null ? null : k.name(), k == null ? 0 : k.module()));
                links.getChildren().add(loc);
            }
            if (snap != null) {
                for (CaptureRecord.KernelBuffer b : snap.buffers()) {
                    Label l = new Label(String.format(Locale.ROOT, "buffer %s (%d bytes):", CallFormatter.hex(b.devicePointer()), b.size()));
                    links.getChildren().add(l);
                    if (b.before() != 0) links.getChildren().add(blobLink("before", b.before()));
                    if (b.after() != 0) links.getChildren().add(blobLink("after", b.after()));
                }
            }
        }
        args.getItems().setAll(dec.arguments(d));
        List<Integer> kids = index.children(call, 100_000);
        nested.setItems(FXCollections.observableArrayList(kids));
        nestedLabel.setText(kids.isEmpty() ? "Nested calls" : "Nested calls (" + kids.size() + ")");
    }

    private Hyperlink blobLink(String text, long hash) {
        Hyperlink h = new Hyperlink(text);
        h.setOnAction(e -> w.showBlob(hash));
        return h;
    }
}

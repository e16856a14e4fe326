package dev.zluda.viewer;

import dev.zluda.capture.text.CallFormatter;
import javafx.collections.FXCollections;
import javafx.geometry.Orientation;
import javafx.scene.control.Button;
import javafx.scene.control.ComboBox;
import javafx.scene.control.Label;
import javafx.scene.control.ListCell;
import javafx.scene.control.ListView;
import javafx.scene.control.SplitPane;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.VBox;
import javafx.scene.text.Text;
import javafx.scene.text.TextFlow;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * The capture's modules (MODULE records and the {@code module_NNNN_NN.ptx} / {@code .elf} dumps in
 * the capture directory) and the selected module's PTX, highlighted, one virtualized line per row
 * (large modules scroll as fast as small ones). A kernel list jumps to each {@code .entry}; a
 * launch in the details view jumps here too. Binary images open in the memory view.
 */
final class ModulesView extends SplitPane {
    private final ViewerWindow w;
    private final ListView<CaptureContent.Module> list = new ListView<>();
    private final ListView<String> ptx = new ListView<>();
    private final ComboBox<String> entries = new ComboBox<>();
    private final Label header = new Label("No module selected");
    private final Button asBytes = new Button("Show bytes in memory view");
    private List<CaptureContent.Module> modules = List.of();
    private boolean[] commentStates = new boolean[0];
    private CaptureContent.Module shown;
    private byte[] shownBytes;
    private int pendingLine = -1;
    /** The line (0-based) a localisation named in the module shown, or -1. */
    private int locatedLine = -1;
    private CaptureContent.Module locatedModule;
    private final Label locateBanner = new Label();

    ModulesView(ViewerWindow w) {
        this.w = w;
        setId("modulesView");
        list.setId("moduleList");
        list.setPlaceholder(new Label("This capture has no modules.\n(The tracer keeps module images\nat level 'replay' and above.)"));
        list.setCellFactory(lv -> new ListCell<>() {
            @Override
            protected void updateItem(CaptureContent.Module m, boolean empty) {
                super.updateItem(m, empty);
                if (empty || m == null) {
                    setText(null);
                    return;
                }
                StringBuilder sb = new StringBuilder(m.name()).append("\n  ").append(m.kindName());
                if (m.size() >= 0) sb.append(String.format(Locale.ROOT, ", %,d bytes", m.size()));
                if (m.handle() != 0) sb.append(", handle ").append(CallFormatter.hex(m.handle()));
                setText(sb.toString());
            }
        });
        list.getSelectionModel().selectedItemProperty().addListener((o, a, b) -> showModule(b));

        ptx.setId("ptxView");
        ptx.getStyleClass().add("ptx-view");
        Theme.follow(ptx, () -> ptx.setFixedCellSize(Theme.scaled(18)));
        ptx.setPlaceholder(new Label("Select a module"));
        ptx.setCellFactory(lv -> new PtxCell());
        ptx.skinProperty().addListener((o, a, b) -> {
            if (b != null && pendingLine >= 0) {
                int l = pendingLine;
                pendingLine = -1;
                javafx.application.Platform.runLater(() -> ptx.scrollTo(Math.max(0, l - 3)));
            }
        });
        entries.setId("entryBox");
        entries.setPromptText("kernels (.entry)");
        entries.valueProperty().addListener((o, a, b) -> {
            if (b != null) scrollToLine(PtxHighlighter.entryLine(ptx.getItems(), b));
        });
        asBytes.setOnAction(e -> {
            if (shown != null && shownBytes != null) w.showMemory(shown.name(), shownBytes);
        });
        asBytes.setDisable(true);
        header.setId("moduleHeader");
        HBox bar = new HBox(8, header, entries, asBytes);
        bar.setStyle("-fx-padding: 4 6 4 6; -fx-alignment: center-left;");
        HBox.setHgrow(header, Priority.ALWAYS);
        header.setMaxWidth(Double.MAX_VALUE);
        locateBanner.setId("locateBanner");
        locateBanner.getStyleClass().addAll("locate-banner", "mono");
        locateBanner.setMaxWidth(Double.MAX_VALUE);
        locateBanner.setWrapText(true);
        locateBanner.setVisible(false);
        locateBanner.setManaged(false);
        BorderPane right = new BorderPane(ptx);
        right.setTop(new VBox(bar, locateBanner));
        VBox left = new VBox(list);
        VBox.setVgrow(list, Priority.ALWAYS);
        getItems().addAll(left, right);
        setOrientation(Orientation.HORIZONTAL);
        setDividerPositions(0.24);
    }

    /** Number of modules listed. */
    int count() {
        return modules.size();
    }

    /** Re-reads the module list from the index (after loading). */
    void reload() {
        CallIndex idx = w.index();
        modules = idx == null ? List.of() : CaptureContent.modules(idx);
        CaptureContent.Module keep = shown;
        list.setItems(FXCollections.observableArrayList(modules));
        if (keep != null) {
            for (CaptureContent.Module m : modules) if (m.name().equals(keep.name())) list.getSelectionModel().select(m);
        }
        if (list.getSelectionModel().getSelectedItem() == null) showModule(null);
    }

    private void showModule(CaptureContent.Module m) {
        shown = m;
        shownBytes = null;
        entries.getItems().clear();
        asBytes.setDisable(true);
        if (m == null) {
            header.setText(modules.isEmpty() ? "No modules" : "No module selected");
            ptx.setItems(FXCollections.observableArrayList());
            commentStates = new boolean[0];
            return;
        }
        byte[] b;
        try {
            b = CaptureContent.bytes(w.index(), m);
        } catch (IOException e) {
            header.setText(m.name() + ": " + e.getMessage());
            ptx.setItems(FXCollections.observableArrayList());
            return;
        }
        if (b == null) {
            header.setText(m.name() + ": the image was not kept in this capture");
            ptx.setItems(FXCollections.observableArrayList());
            return;
        }
        shownBytes = b;
        asBytes.setDisable(false);
        if (!m.isPtx()) {
            header.setText(String.format(Locale.ROOT, "%s: %s image, %,d bytes (binary: see the memory view)", m.name(), m.kindName(), b.length));
            ptx.setItems(FXCollections.observableArrayList());
            return;
        }
        int len = b.length;
        while (len > 0 && b[len - 1] == 0) len--;
        List<String> lines = Arrays.asList(new String(b, 0, len, StandardCharsets.UTF_8).split("\r?\n", -1));
        commentStates = PtxHighlighter.blockCommentStates(lines);
        ptx.setItems(FXCollections.observableArrayList(lines));
        List<String> names = PtxHighlighter.entries(lines);
        entries.getItems().setAll(names);
        header.setText(String.format(Locale.ROOT, "%s: PTX, %,d lines, %d kernel%s", m.name(), lines.size(), names.size(), names.size() == 1 ? "" : "s"));
    }

    /** The module shown, or null. */
    CaptureContent.Module shownModule() {
        return shown;
    }

    /** The lines shown (PTX), for tests. */
    List<String> lines() {
        return ptx.getItems();
    }

    /** The selected line, -1 for none. */
    int selectedLine() {
        return ptx.getSelectionModel().getSelectedIndex();
    }

    private void scrollToLine(int line) {
        if (line < 0) return;
        ptx.getSelectionModel().clearAndSelect(line);
        if (ptx.getSkin() == null) pendingLine = line; // not on screen yet: scroll once it is
        ptx.scrollTo(Math.max(0, line - 3));
    }

    /**
     * Selects the module that declares {@code .entry kernel} (the one with handle {@code moduleHandle}
     * first) and shows that line; false when no PTX module declares it.
     */
    boolean showEntry(String kernel, long moduleHandle) {
        CaptureContent.Module best = null;
        for (CaptureContent.Module m : modules) {
            if (m.isPtx() && m.handle() != 0 && m.handle() == moduleHandle) best = m;
        }
        if (best == null || !declares(best, kernel)) {
            best = null;
            for (CaptureContent.Module m : modules) {
                if (m.isPtx() && declares(m, kernel)) {
                    best = m;
                    break;
                }
            }
        }
        if (best == null) return false;
        list.getSelectionModel().select(best);
        if (shown != best) showModule(best);
        int line = PtxHighlighter.entryLine(ptx.getItems(), kernel);
        entries.setValue(kernel);
        scrollToLine(line);
        return line >= 0;
    }

    private boolean declares(CaptureContent.Module m, String kernel) {
        try {
            byte[] b = CaptureContent.bytes(w.index(), m);
            if (b == null) return false;
            List<String> lines = Arrays.asList(new String(b, StandardCharsets.UTF_8).split("\r?\n"));
            return PtxHighlighter.entryLine(lines, kernel) >= 0;
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * Shows the instruction a localisation named: selects the module that declares {@code kernel}
     * (handle {@code moduleHandle} first), marks and scrolls to {@code line} (1-based) and shows
     * the instruction with both drivers' values above the PTX; false when no PTX module declares the
     * kernel or the line is past its end.
     */
    boolean showLocated(String kernel, long moduleHandle, int line, KernelLocator.Result r) {
        if (kernel == null || !showEntry(kernel, moduleHandle) || line < 1 || line > ptx.getItems().size()) return false;
        locatedModule = shown;
        locatedLine = line - 1;
        StringBuilder sb = new StringBuilder();
        sb.append("First diverging instruction, line ").append(line).append(": ").append(r.instruction() == null ? ptx.getItems().get(line - 1).strip() : r.instruction());
        if (r.where() != null) sb.append("\n  ").append(r.where());
        if (r.onLabel() != null) sb.append("\n  ").append(r.onLabel()).append(": ").append(r.onValue());
        if (r.againstLabel() != null) sb.append("\n  ").append(r.againstLabel()).append(": ").append(r.againstValue());
        locateBanner.setText(sb.toString());
        locateBanner.setVisible(true);
        locateBanner.setManaged(true);
        ptx.refresh();
        scrollToLine(locatedLine);
        return true;
    }

    /** The text above the PTX that shows a localisation's instruction and values ("" when none). */
    String locateBannerText() {
        return locateBanner.isVisible() ? locateBanner.getText() : "";
    }

    /** One PTX line: its number and highlighted text. */
    private static final javafx.css.PseudoClass LOCATED = javafx.css.PseudoClass.getPseudoClass("located");

    private final class PtxCell extends ListCell<String> {
        @Override
        protected void updateItem(String line, boolean empty) {
            super.updateItem(line, empty);
            setText(null);
            pseudoClassStateChanged(LOCATED, !empty && line != null && shown != null && shown == locatedModule && getIndex() == locatedLine);
            if (empty || line == null) {
                setGraphic(null);
                return;
            }
            int i = getIndex();
            boolean inComment = i >= 0 && i < commentStates.length && commentStates[i];
            String shownLine = line.replace("\t", "    ");
            Text num = new Text(String.format(Locale.ROOT, "%5d  ", i + 1));
            num.getStyleClass().addAll("ptx-text", "ptx-line-number");
            TextFlow flow = new TextFlow(num);
            for (PtxHighlighter.Span s : PtxHighlighter.spans(shownLine, inComment)) {
                Text t = new Text(shownLine.substring(s.start(), s.end()));
                t.getStyleClass().addAll("ptx-text", s.style());
                flow.getChildren().add(t);
            }
            setGraphic(flow);
        }
    }
}

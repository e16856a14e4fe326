package dev.zluda.viewer;

import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.scene.control.TableCell;
import javafx.scene.control.TableColumn;

import java.util.function.Function;

/** The text columns of the viewer's call tables: each row object is its own cell value, shown as text. */
final class TextColumns {
    private TextColumns() {
    }

    /**
     * A column titled {@code title}, {@code width} px wide, with CSS id {@code id}, neither sortable nor
     * reorderable, whose cell shows {@code text} of its row (no text where {@code text} gives null, or in an empty row).
     */
    static <R> TableColumn<R, R> of(String title, double width, String id, Function<R, String> text) {
        TableColumn<R, R> c = new TableColumn<>(title);
        c.setId(id);
        c.setPrefWidth(width);
        c.setSortable(false);
        c.setReorderable(false);
        c.setCellValueFactory(f -> new ReadOnlyObjectWrapper<>(f.getValue()));
        c.setCellFactory(col -> new TableCell<>() {
            @Override
            protected void updateItem(R r, boolean empty) {
                super.updateItem(r, empty);
                setText(empty || r == null ? null : text.apply(r));
            }
        });
        return c;
    }
}

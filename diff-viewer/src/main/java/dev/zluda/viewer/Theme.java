package dev.zluda.viewer;

import javafx.scene.Scene;
import javafx.scene.input.KeyCode;
import javafx.scene.input.KeyEvent;
import javafx.scene.paint.Color;
import javafx.stage.Screen;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The viewer's look, shared by its windows: a light theme (viewer.css) and a dark one
 * (viewer-dark.css over it), and the text size. Both start from the {@code zluda.view.theme}
 * ({@code light}, {@code dark}) and {@code zluda.view.fontSize} (px) system properties, which
 * {@code zluda view --theme} and {@code --font-size} set, else {@code ZLUDA_VIEW_THEME}; the text size
 * is 12 px, or 18 px on a screen 3,000 pixels or more wide that the desktop does not scale (a 4K
 * monitor at 100 %). In a window: Ctrl+Shift+T switches the theme, Ctrl+Plus / Ctrl+Minus / Ctrl+0
 * make the text larger, smaller, or its starting size. Canvases (minimap, histogram, timeline)
 * take their colours from {@link #pick} and are redrawn on a change ({@link #onChange}). FX thread only.
 */
public final class Theme {
    private Theme() {}

    private static Boolean dark;
    private static double fontSize = -1, startSize = -1;
    /** The windows' scenes, each with what redraws its canvases; weak, so that closed windows go. */
    private static final java.util.Map<Scene, List<Runnable>> scenes = new java.util.WeakHashMap<>();

    /** Whether the dark theme is on. */
    public static boolean dark() {
        if (dark == null) {
            String p = System.getProperty("zluda.view.theme");
            if (p == null) p = System.getenv("ZLUDA_VIEW_THEME");
            dark = p != null && p.strip().equalsIgnoreCase("dark");
        }
        return dark;
    }

    /** The text size in px. */
    public static double fontSize() {
        if (fontSize < 0) {
            String p = System.getProperty("zluda.view.fontSize");
            double size = 12;
            if (p != null) {
                try {
                    size = Double.parseDouble(p.strip());
                } catch (NumberFormatException e) {
                    size = 12;
                }
            } else {
                try {
                    Screen s = Screen.getPrimary();
                    if (s.getBounds().getWidth() >= 3000 && s.getOutputScaleX() < 1.25) size = 18;
                } catch (RuntimeException e) {
                    size = 12;
                }
            }
            fontSize = startSize = Math.max(8, Math.min(40, size));
        }
        return fontSize;
    }

    /** How much larger than 12 px the text is (1.5 at 18 px): images and canvases scale with it. */
    public static double zoom() {
        return fontSize() / 12.0;
    }

    /**
     * A new window's size, {width, height} in px: {@code zluda.view.size} ({@code WxH}, {@code zluda view
     * --size}), else 1280 × 800 grown with the text size, within the screen.
     */
    public static double[] windowSize() {
        String p = System.getProperty("zluda.view.size");
        if (p != null && p.matches("\\d{3,5}x\\d{3,5}")) {
            String[] wh = p.split("x");
            return new double[] {Double.parseDouble(wh[0]), Double.parseDouble(wh[1])};
        }
        double w = 1280 * zoom(), h = 800 * zoom();
        try {
            javafx.geometry.Rectangle2D b = Screen.getPrimary().getVisualBounds();
            w = Math.min(w, b.getWidth() * 0.95);
            h = Math.min(h, b.getHeight() * 0.95);
        } catch (RuntimeException e) {
            // no screen yet: the plain size
        }
        return new double[] {Math.max(640, w), Math.max(480, h)};
    }

    /** Switches the theme (every window). */
    public static void setDark(boolean on) {
        dark = on;
        changed();
    }

    /** Sets the text size (every window), 8 to 40 px. */
    public static void setFontSize(double px) {
        fontSize();
        fontSize = Math.max(8, Math.min(40, px));
        changed();
    }

    /** Styles a window's scene with the theme and text size and gives it the keys that change them. */
    public static void install(Scene scene) {
        scenes.computeIfAbsent(scene, k -> new ArrayList<>());
        apply(scene);
        scene.addEventFilter(KeyEvent.KEY_PRESSED, e -> {
            if (!e.isShortcutDown()) return;
            if (e.isShiftDown() && e.getCode() == KeyCode.T) {
                setDark(!dark());
                e.consume();
            } else if (e.getCode() == KeyCode.PLUS || e.getCode() == KeyCode.EQUALS || e.getCode() == KeyCode.ADD) {
                setFontSize(fontSize() + 2);
                e.consume();
            } else if (e.getCode() == KeyCode.MINUS || e.getCode() == KeyCode.SUBTRACT) {
                setFontSize(fontSize() - 2);
                e.consume();
            } else if (e.getCode() == KeyCode.DIGIT0 || e.getCode() == KeyCode.NUMPAD0) {
                setFontSize(startSize);
                e.consume();
            }
        });
    }

    /** Runs {@code r} after every change of theme or text size while {@code scene} lives (redraws one of its canvases). */
    public static void onChange(Scene scene, Runnable r) {
        scenes.computeIfAbsent(scene, k -> new ArrayList<>()).add(r);
    }

    /**
     * Runs {@code apply} now and after every change of theme or text size once {@code node} is in a
     * window's scene (sizes that follow the text: table rows, column widths).
     */
    public static void follow(javafx.scene.Node node, Runnable apply) {
        apply.run();
        if (node.getScene() != null) onChange(node.getScene(), apply);
        else node.sceneProperty().addListener(new javafx.beans.value.ChangeListener<>() {
            @Override
            public void changed(javafx.beans.value.ObservableValue<? extends Scene> o, Scene a, Scene b) {
                if (b == null) return;
                node.sceneProperty().removeListener(this);
                onChange(b, apply);
                apply.run();
            }
        });
    }

    /** {@code px} at 12 px text, grown with the text size, whole pixels. */
    public static double scaled(double px) {
        return Math.round(px * zoom());
    }

    /** Row height and column widths of a table that follow the text size (widths as given at 12 px). */
    public static void followTable(javafx.scene.control.TableView<?> table, double rowPx) {
        java.util.Map<javafx.scene.control.TableColumn<?, ?>, Double> base = new java.util.HashMap<>();
        for (var c : table.getColumns()) base.put(c, c.getPrefWidth());
        follow(table, () -> {
            table.setFixedCellSize(scaled(rowPx));
            for (var c : table.getColumns()) c.setPrefWidth(scaled(base.getOrDefault(c, c.getPrefWidth())));
        });
    }

    private static void changed() {
        for (var e : List.copyOf(scenes.entrySet())) {
            apply(e.getKey());
            for (Runnable r : List.copyOf(e.getValue())) r.run();
        }
    }

    private static void apply(Scene scene) {
        String light = Theme.class.getResource("viewer.css").toExternalForm();
        String darkCss = Theme.class.getResource("viewer-dark.css").toExternalForm();
        if (!scene.getStylesheets().contains(light)) scene.getStylesheets().addFirst(light);
        if (dark()) {
            if (!scene.getStylesheets().contains(darkCss)) scene.getStylesheets().add(darkCss);
        } else {
            scene.getStylesheets().remove(darkCss);
        }
        if (scene.getRoot() != null) scene.getRoot().setStyle(String.format(Locale.ROOT, "-fx-font-size: %.1fpx;", fontSize()));
    }

    /** The colour for the current theme: {@code light} or {@code dark} ({@code #rrggbb}). */
    public static Color pick(String light, String dark) {
        return Color.web(dark() ? dark : light);
    }

    /**
     * The contrast ratio of two colours (WCAG 2.x, 1 to 21): at least 4.5 for text, 3 for large text
     * and graphics.
     */
    public static double contrast(Color a, Color b) {
        double la = luminance(a), lb = luminance(b);
        return (Math.max(la, lb) + 0.05) / (Math.min(la, lb) + 0.05);
    }

    private static double luminance(Color c) {
        return 0.2126 * lin(c.getRed()) + 0.7152 * lin(c.getGreen()) + 0.0722 * lin(c.getBlue());
    }

    private static double lin(double v) {
        return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4);
    }
}

package dev.zluda.viewer;

import javafx.geometry.VPos;
import javafx.scene.canvas.Canvas;
import javafx.scene.canvas.GraphicsContext;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.input.MouseButton;
import javafx.scene.input.ScrollEvent;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Pane;
import javafx.scene.paint.Color;
import javafx.scene.text.Font;
import javafx.scene.text.TextAlignment;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * The timeline: one lane per thread, calls as bars (nested calls one row lower), then one lane per
 * CUDA stream with the work the calls put on it ({@link StreamLanes}: kernels, copies, memsets, from
 * the call that enqueued them to the call after which they are known complete), drawn on a Canvas
 * from the index for the visible time range only. Mouse wheel zooms around the pointer, dragging
 * pans, a click selects the call under the pointer (on a stream lane: the call that enqueued the
 * work), a double click zooms to it. Failed calls are red, calls in flight orange, others coloured
 * by function.
 */
final class TimelineView extends BorderPane {
    static final double GUTTER = 130, AXIS = 24, ROW = 18;
    private static final int MAX_ROWS = 6;
    private static final Color[] PALETTE = {
            Color.web("#4e79a7"), Color.web("#59a14f"), Color.web("#9c755f"), Color.web("#76b7b2"), Color.web("#edc948"),
            Color.web("#b07aa1"), Color.web("#ff9da7"), Color.web("#86bcb6"), Color.web("#8cd17d"), Color.web("#a0cbe8"),
            Color.web("#d4a6c8"), Color.web("#bab0ac")};
    private static final Color ERROR = Color.web("#d62728"), IN_FLIGHT = Color.web("#ff9f1c");
    /** Stream work by {@link StreamLanes.Kind}: kernel, copy, memset, other. */
    private static final Color[] STREAM_COLORS = {Color.web("#4e79a7"), Color.web("#59a14f"), Color.web("#edc948"), Color.web("#bab0ac")};
    /** Stream operations shown at most. */
    static final int STREAM_OPS_LIMIT = 1_000_000;

    private final ViewerWindow w;
    private final Canvas canvas = new Canvas();
    private final Pane holder = new Pane(canvas);
    private final Label info = new Label();
    {
        info.setId("timelineInfo");
    }
    private double viewStart;      // ns at the left edge of the plot
    private double nsPerPx = 1000; // zoom
    private double scrollY;
    private boolean autoFit = true; // fit the whole capture until the user zooms or pans
    private double pressX, pressY, pressStart, pressScrollY;
    private boolean dragged;
    private long drawnCalls;
    private boolean dirty = true;
    private volatile StreamLanes streams;
    private int streamsFor = -1;      // index size the lanes were built for
    private boolean streamsBuilding;

    TimelineView(ViewerWindow w) {
        this.w = w;
        setId("timeline");
        canvas.setId("timelineCanvas");
        holder.setMinSize(0, 0);
        canvas.widthProperty().bind(holder.widthProperty());
        canvas.heightProperty().bind(holder.heightProperty());
        canvas.widthProperty().addListener(o -> changed());
        canvas.heightProperty().addListener(o -> changed());
        setCenter(holder);
        Button fit = new Button("Fit");
        fit.setId("timelineFit");
        fit.setOnAction(e -> fit());
        Button in = new Button("Zoom in");
        in.setOnAction(e -> zoom(0.5, GUTTER + plotWidth() / 2));
        Button out = new Button("Zoom out");
        out.setOnAction(e -> zoom(2, GUTTER + plotWidth() / 2));
        Button sel = new Button("Zoom to selection");
        sel.setOnAction(e -> zoomTo(w.selectedCallProperty().get()));
        info.getStyleClass().add("hint");
        for (Button b : new Button[] {fit, in, out, sel}) b.setMinWidth(javafx.scene.layout.Region.USE_PREF_SIZE);
        HBox bar = new HBox(6, fit, in, out, sel, info);
        bar.setStyle("-fx-padding: 4 6 4 6; -fx-alignment: center-left;");
        setTop(bar);

        canvas.setOnScroll(this::scrolled);
        canvas.setOnMousePressed(e -> {
            pressX = e.getX();
            pressY = e.getY();
            pressStart = viewStart;
            pressScrollY = scrollY;
            dragged = false;
        });
        canvas.setOnMouseDragged(e -> {
            if (Math.abs(e.getX() - pressX) + Math.abs(e.getY() - pressY) > 3) dragged = true;
            if (!dragged) return;
            autoFit = false;
            viewStart = pressStart - (e.getX() - pressX) * nsPerPx;
            scrollY = Math.max(0, Math.min(maxScrollY(), pressScrollY - (e.getY() - pressY)));
            redraw();
        });
        canvas.setOnMouseClicked(e -> {
            if (dragged || e.getButton() != MouseButton.PRIMARY) return;
            int c = callAt(e.getX(), e.getY());
            if (c >= 0) {
                w.select(c);
                if (e.getClickCount() == 2) zoomTo(c);
            }
        });
    }

    /** A new capture (or the end of loading): fit the whole capture once. */
    void reset() {
        streams = null;
        streamsFor = -1;
        autoFit = true;
        scrollY = 0;
        fit();
    }

    /** The timeline's tab was selected: draw what changed meanwhile. */
    void shown() {
        if (dirty) redraw();
    }

    /** Calls were added or the filter changed. */
    void changed() {
        if (autoFit) fit();
        else redraw();
    }

    void selectionChanged(int call) {
        CallIndex idx = w.index();
        if (idx != null && call >= 0 && call < idx.size()) {
            double x0 = xOf(idx.start(call)), x1 = xOf(idx.end(call));
            if (x1 < GUTTER || x0 > GUTTER + plotWidth()) viewStart = idx.start(call) - plotWidth() * nsPerPx / 2;
        }
        redraw();
    }

    private double plotWidth() {
        return Math.max(10, canvas.getWidth() - GUTTER - 8);
    }

    /** Fits the whole capture in the width. */
    void fit() {
        CallIndex idx = w.index();
        if (idx == null) {
            redraw();
            return;
        }
        long first = idx.size() > 0 ? idx.start(0) : 0;
        long end = Math.max(idx.endNs(), first + 1);
        double margin = (end - first) * 0.02;
        viewStart = first - margin;
        nsPerPx = Math.max(0.01, (end - first + 2 * margin) / plotWidth());
        autoFit = true;
        redraw();
    }

    /** Zooms by {@code factor} (below 1: in) keeping the time under {@code x} in place. */
    void zoom(double factor, double x) {
        double t = viewStart + (x - GUTTER) * nsPerPx;
        nsPerPx = Math.max(0.01, Math.min(nsPerPx * factor, 1e12));
        viewStart = t - (x - GUTTER) * nsPerPx;
        autoFit = false;
        redraw();
    }

    /** Zooms so that call {@code c} fills about half the width. */
    void zoomTo(int c) {
        CallIndex idx = w.index();
        if (idx == null || c < 0 || c >= idx.size()) return;
        double len = Math.max(idx.end(c) - idx.start(c), 100);
        nsPerPx = Math.max(0.01, len * 2 / plotWidth());
        viewStart = idx.start(c) - len / 2;
        autoFit = false;
        int t = idx.threadIndex(c);
        double y = laneTop(idx, t);
        if (y - AXIS < scrollY || y + laneHeight(idx, t) > scrollY + canvas.getHeight()) scrollY = Math.max(0, Math.min(maxScrollY(), y - AXIS));
        redraw();
    }

    private void scrolled(ScrollEvent e) {
        if (e.isShiftDown() || Math.abs(e.getDeltaX()) > Math.abs(e.getDeltaY())) {
            double d = e.isShiftDown() && e.getDeltaX() == 0 ? e.getDeltaY() : e.getDeltaX();
            viewStart -= d * nsPerPx;
            autoFit = false;
            redraw();
        } else if (e.isControlDown()) {
            scrollY = Math.max(0, Math.min(maxScrollY(), scrollY - e.getDeltaY()));
            redraw();
        } else if (e.getDeltaY() != 0) {
            zoom(e.getDeltaY() > 0 ? 0.8 : 1.25, e.getX());
        }
        e.consume();
    }

    // ------------------------------------------------------------------ geometry

    private static int rows(CallIndex idx, int lane) {
        return Math.min(idx.laneDepth(lane), MAX_ROWS - 1) + 1;
    }

    private static double laneHeight(CallIndex idx, int lane) {
        return rows(idx, lane) * ROW + 8;
    }

    private static double laneTop(CallIndex idx, int lane) {
        double y = AXIS;
        for (int t = 0; t < lane; t++) y += laneHeight(idx, t);
        return y;
    }

    private double maxScrollY() {
        CallIndex idx = w.index();
        if (idx == null) return 0;
        double h = laneTop(idx, idx.threadCount());
        StreamLanes sl = streams;
        if (sl != null) for (long s : sl.streams()) h += sl.rows(s) * ROW + 8;
        return Math.max(0, h - canvas.getHeight() + 10);
    }

    /** The stream lanes as built now (null until they are; built in the background once the capture is read). */
    StreamLanes streamLanes() {
        return streams;
    }

    /** Builds the stream lanes in the background when the index has grown since (and has been read to its end). */
    private void ensureStreams(CallIndex idx) {
        if (streamsBuilding || idx.size() == streamsFor || !(idx.isComplete() || idx.isCancelled())) return;
        CallDecoder dec = w.decoder();
        if (dec == null) return;
        streamsBuilding = true;
        int size = idx.size();
        Thread t = new Thread(() -> {
            StreamLanes sl = null;
            try {
                sl = StreamLanes.build(idx, dec, STREAM_OPS_LIMIT);
            } catch (RuntimeException e) {
                System.err.println("zluda view: warning: the stream lanes could not be built: " + e);
            }
            StreamLanes built = sl;
            javafx.application.Platform.runLater(() -> {
                streamsBuilding = false;
                if (w.index() != idx) return;
                streams = built;
                streamsFor = size;
                redraw();
            });
        }, "zluda-viewer-streams");
        t.setDaemon(true);
        t.start();
    }

    /** The stream operation under a point of the canvas (y in content coordinates), or null. */
    private StreamLanes.Op streamOpAt(CallIndex idx, double x, double yy) {
        StreamLanes sl = streams;
        if (sl == null) return null;
        double top = laneTop(idx, idx.threadCount());
        double time = viewStart + (x - GUTTER) * nsPerPx, tol = 3 * nsPerPx;
        for (long s : sl.streams()) {
            double h = sl.rows(s) * ROW + 8;
            if (yy >= top && yy < top + h) {
                int row = (int) Math.floor((yy - top - 4) / ROW);
                StreamLanes.Op best = null;
                for (StreamLanes.Op o : sl.ops(s)) {
                    if (o.row() == row && o.startNs() - tol <= time && o.doneNs() + tol >= time) best = o;
                }
                return best;
            }
            top += h;
        }
        return null;
    }

    /** The x of a time in ns. */
    double xOf(double ns) {
        return GUTTER + (ns - viewStart) / nsPerPx;
    }

    /** Centre of call {@code c}'s bar as drawn now (for tests and tools), or null when it is off screen. */
    double[] centreOf(int c) {
        CallIndex idx = w.index();
        if (idx == null || c < 0 || c >= idx.size()) return null;
        double x0 = Math.max(GUTTER, xOf(idx.start(c))), x1 = Math.min(canvas.getWidth(), Math.max(xOf(idx.end(c)), xOf(idx.start(c)) + 1));
        int t = idx.threadIndex(c);
        double y = laneTop(idx, t) + 4 + Math.min(idx.depth(c), MAX_ROWS - 1) * ROW - scrollY + ROW / 2;
        if (x1 < GUTTER || x0 > canvas.getWidth() || y < AXIS || y > canvas.getHeight()) return null;
        return new double[] {(x0 + x1) / 2, y};
    }

    /** Centre of the stream-lane bar of the work call {@code c} enqueued, as drawn now, or null (no such bar, or off screen). */
    double[] centreOfStreamOp(int c) {
        CallIndex idx = w.index();
        StreamLanes sl = streams;
        if (idx == null || sl == null) return null;
        double top = laneTop(idx, idx.threadCount());
        for (long s : sl.streams()) {
            for (StreamLanes.Op o : sl.ops(s)) {
                if (o.call() != c) continue;
                double x0 = Math.max(GUTTER, xOf(o.startNs())), x1 = Math.min(canvas.getWidth(), Math.max(xOf(o.doneNs()), xOf(o.startNs()) + 1));
                double y = top + 4 + o.row() * ROW - scrollY + ROW / 2;
                if (x1 < GUTTER || x0 > canvas.getWidth() || y < AXIS || y > canvas.getHeight()) return null;
                return new double[] {(x0 + x1) / 2, y};
            }
            top += sl.rows(s) * ROW + 8;
        }
        return null;
    }

    /** The call under a point of the canvas, or -1. */
    int callAt(double x, double y) {
        CallIndex idx = w.index();
        if (idx == null || x < GUTTER || y < AXIS) return -1;
        double yy = y + scrollY;
        if (yy >= laneTop(idx, idx.threadCount())) {
            StreamLanes.Op o = streamOpAt(idx, x, yy);
            return o == null ? -1 : o.call();
        }
        int lane = -1, row = -1;
        double top = AXIS;
        for (int t = 0; t < idx.threadCount(); t++) {
            double h = laneHeight(idx, t);
            if (yy >= top && yy < top + h) {
                lane = t;
                row = (int) Math.floor((yy - top - 4) / ROW);
                break;
            }
            top += h;
        }
        if (lane < 0 || row < 0 || row >= rows(idx, lane)) return -1;
        double tol = 3 * nsPerPx;
        double time = viewStart + (x - GUTTER) * nsPerPx;
        int lo = idx.firstStartingAtOrAfter((long) (time - idx.maxDurationNs() - tol - 1));
        int hi = Math.min(idx.size(), idx.firstStartingAtOrAfter((long) (time + tol + 1)) + 64);
        CallRows rs = w.rows();
        CallFilter.Matcher m = rs == null || rs.filter().isAll() ? null : rs.filter().bind(idx);
        int best = -1;
        for (int i = lo; i < hi; i++) {
            if (idx.threadIndex(i) != lane || Math.min(idx.depth(i), MAX_ROWS - 1) != row) continue;
            if (idx.start(i) - tol <= time && idx.end(i) + tol >= time && (m == null || m.test(i))) best = i;
        }
        return best;
    }

    // ------------------------------------------------------------------ drawing

    /** Calls drawn in the last frame (bars skipped when several fall on one pixel are not counted). */
    long drawnCalls() {
        return drawnCalls;
    }

    /** Whether the timeline is on screen (its tab selected, its window showing). */
    boolean showing() {
        if (getScene() == null || getScene().getWindow() == null || !getScene().getWindow().isShowing()) return false;
        for (javafx.scene.Node n = this; n != null; n = n.getParent()) if (!n.isVisible()) return false;
        return true;
    }

    /**
     * Draws the visible range now when the timeline is on screen; otherwise marks it for drawing
     * when it is shown (a canvas off screen would only pile up drawing commands).
     */
    void redraw() {
        if (!showing()) {
            dirty = true;
            return;
        }
        dirty = false;
        GraphicsContext g = canvas.getGraphicsContext2D();
        double width = canvas.getWidth(), height = canvas.getHeight();
        g.setFill(Color.WHITE);
        g.fillRect(0, 0, width, height);
        CallIndex idx = w.index();
        if (idx == null || width <= GUTTER || height <= AXIS) {
            info.setText("");
            return;
        }
        g.setFont(Font.font("DejaVu Sans", 11));
        int lanes = idx.threadCount();
        double[] tops = new double[lanes + 1];
        tops[0] = AXIS;
        for (int t = 0; t < lanes; t++) tops[t + 1] = tops[t] + laneHeight(idx, t);
        // lane backgrounds
        for (int t = 0; t < lanes; t++) {
            double y = tops[t] - scrollY;
            if (y > height || tops[t + 1] - scrollY < AXIS) continue;
            g.setFill(t % 2 == 0 ? Theme.pick("#fafafa", "#1f2124") : Theme.pick("#f0f3f7", "#25282d"));
            g.fillRect(0, y, width, tops[t + 1] - tops[t]);
        }
        // bars
        double viewEnd = viewStart + (width - GUTTER) * nsPerPx;
        int lo = idx.firstStartingAtOrAfter((long) Math.max(Long.MIN_VALUE / 2, viewStart - idx.maxDurationNs() - 1));
        int hi = idx.firstStartingAtOrAfter((long) Math.min(Long.MAX_VALUE / 2, viewEnd + 1));
        hi = Math.min(idx.size(), hi + 64);
        CallRows rs = w.rows();
        CallFilter.Matcher m = rs == null || rs.filter().isAll() ? null : rs.filter().bind(idx);
        int[] lastPx = new int[lanes * MAX_ROWS];
        Arrays.fill(lastPx, Integer.MIN_VALUE);
        long drawn = 0;
        g.save();
        g.beginPath();
        g.rect(GUTTER, AXIS, width - GUTTER, height - AXIS);
        g.clip();
        g.setTextBaseline(VPos.CENTER);
        for (int i = lo; i < hi; i++) {
            double s = idx.start(i);
            if (s > viewEnd) continue;
            double e = idx.end(i);
            if (e < viewStart) continue;
            int t = idx.threadIndex(i);
            int row = Math.min(idx.depth(i), MAX_ROWS - 1);
            double y = tops[t] + 4 + row * ROW - scrollY;
            if (y + ROW < AXIS || y > height) continue;
            double x0 = xOf(s), x1 = xOf(e);
            double bw = Math.max(1, x1 - x0);
            int key = t * MAX_ROWS + row;
            int px = (int) Math.floor(x0);
            if (bw < 2 && px < lastPx[key]) continue; // that pixel of this row is painted already
            if (m != null && !m.test(i)) continue;
            lastPx[key] = Math.max(lastPx[key], (int) Math.ceil(x0 + bw));
            Color c = idx.inFlight(i) && (idx.isComplete() || idx.isCancelled()) ? IN_FLIGHT
                    : idx.failed(i) ? ERROR : PALETTE[Math.floorMod(idx.function(i) * 7, PALETTE.length)];
            g.setFill(c);
            g.fillRect(x0, y + 1, bw, ROW - 2);
            drawn++;
            if (bw > 44) {
                g.setFill(Color.BLACK);
                double tx = Math.max(x0, GUTTER) + 3;
                g.fillText(idx.functionName(idx.function(i)), tx, y + ROW / 2, Math.max(0, Math.min(x0 + bw, width) - tx - 2));
            }
        }
        // stream lanes
        ensureStreams(idx);
        StreamLanes sl = streams;
        double streamTop = tops[lanes];
        List<Long> streamIds = sl == null ? List.of() : sl.streams();
        int sel = w.selectedCallProperty().get();
        for (int k = 0; k < streamIds.size(); k++) {
            long sid = streamIds.get(k);
            double h = sl.rows(sid) * ROW + 8;
            double y0 = streamTop - scrollY;
            if (y0 <= height && y0 + h >= AXIS) {
                g.setFill(k % 2 == 0 ? Theme.pick("#f4f8ee", "#222822") : Theme.pick("#eef4e6", "#283028"));
                g.fillRect(GUTTER, y0, width - GUTTER, h);
                double last = Double.NEGATIVE_INFINITY;
                for (StreamLanes.Op o : sl.ops(sid)) {
                    if (o.startNs() > viewEnd || o.doneNs() < viewStart) continue;
                    double x0 = xOf(o.startNs()), bw = Math.max(1, xOf(o.doneNs()) - x0);
                    if (bw < 2 && o.row() == 0 && x0 < last) continue;
                    last = x0 + bw;
                    double y = y0 + 4 + o.row() * ROW;
                    Color c = STREAM_COLORS[o.kind().ordinal()];
                    g.setFill(o.completed() ? c.deriveColor(0, 0.8, 1.1, 0.75) : c.deriveColor(0, 0.4, 1.3, 0.45));
                    g.fillRect(x0, y + 2, bw, ROW - 4);
                    if (o.call() == sel) {
                        g.setStroke(Color.BLACK);
                        g.setLineWidth(2);
                        g.strokeRect(x0 - 1, y + 1, bw + 2, ROW - 2);
                    }
                    if (bw > 44) {
                        g.setFill(Color.BLACK);
                        double tx = Math.max(x0, GUTTER) + 3;
                        g.fillText(idx.functionName(idx.function(o.call())), tx, y + ROW / 2, Math.max(0, Math.min(x0 + bw, width) - tx - 2));
                    }
                }
            }
            streamTop += h;
        }
        // selection

        if (sel >= 0 && sel < idx.size()) {
            int t = idx.threadIndex(sel);
            double y = tops[t] + 4 + Math.min(idx.depth(sel), MAX_ROWS - 1) * ROW - scrollY;
            double x0 = xOf(idx.start(sel)), bw = Math.max(3, xOf(idx.end(sel)) - x0);
            g.setStroke(Color.BLACK);
            g.setLineWidth(2);
            g.strokeRect(x0 - 1, y, bw + 2, ROW);
        }
        // markers
        g.setStroke(Color.web("#7b1fa2"));
        g.setLineWidth(1);
        g.setLineDashes(4, 3);
        for (CallIndex.Marker mk : idx.markers()) {
            double x = xOf(mk.startNs());
            if (x >= GUTTER && x <= width) g.strokeLine(x, AXIS, x, height);
        }
        g.setLineDashes();
        g.restore();
        drawnCalls = drawn;
        // gutter: thread names
        g.setFill(Theme.pick("#eeeeee", "#2b2d32"));
        g.fillRect(0, AXIS, GUTTER - 2, height - AXIS);
        g.setFill(Theme.pick("#303030", "#e2e4e8"));
        g.setTextAlign(TextAlignment.LEFT);
        g.setTextBaseline(VPos.CENTER);
        long[] tids = idx.threadIds();
        for (int t = 0; t < lanes; t++) {
            double y = tops[t] - scrollY;
            if (y + ROW < AXIS || y > height) continue;
            String n = idx.threadName(tids[t]);
            g.fillText("thread " + tids[t] + (n == null ? "" : " " + n), 6, y + 4 + ROW / 2, GUTTER - 10);
        }
        double st = tops[lanes];
        for (long sid : streamIds) {
            double y = st - scrollY;
            st += sl.rows(sid) * ROW + 8;
            if (y + ROW < AXIS || y > height) continue;
            g.fillText(StreamLanes.streamName(sid), 6, y + 4 + ROW / 2, GUTTER - 10);
        }
        axis(g, width);
        String streamText = sl == null ? (idx.isComplete() || idx.isCancelled() ? " · streams: reading…" : "")
                : String.format(Locale.ROOT, " · %d stream%s, %,d operations%s (bar: enqueued → known complete)",
                streamIds.size(), streamIds.size() == 1 ? "" : "s", sl.size(), sl.truncated() ? ", the first " + STREAM_OPS_LIMIT + " shown" : "");
        info.setText(String.format(Locale.ROOT, "%s per pixel · %s visible · %d thread%s%s · wheel: zoom, drag: pan, click: select",
                ViewerWindow.duration(Math.max(1, Math.round(nsPerPx))), ViewerWindow.duration(Math.round(viewEnd - viewStart)), lanes,
                lanes == 1 ? "" : "s", streamText));
    }

    private void axis(GraphicsContext g, double width) {
        g.setFill(Theme.pick("#f7f7f7", "#26282c"));
        g.fillRect(0, 0, width, AXIS);
        g.setStroke(Theme.pick("#b0b0b0", "#5a5f66"));
        g.setLineWidth(1);
        g.strokeLine(0, AXIS - 0.5, width, AXIS - 0.5);
        double span = (width - GUTTER) * nsPerPx;
        double step = niceStep(span / 8);
        double first = Math.ceil(viewStart / step) * step;
        g.setFill(Theme.pick("#404040", "#d0d4d9"));
        g.setTextBaseline(VPos.CENTER);
        g.setTextAlign(TextAlignment.LEFT);
        for (double t = first; t < viewStart + span; t += step) {
            double x = xOf(t);
            if (x < GUTTER) continue;
            g.strokeLine(x + 0.5, AXIS - 6, x + 0.5, AXIS);
            g.fillText(timeLabel(t, step), x + 3, AXIS / 2);
        }
        g.fillText("time since start", 6, AXIS / 2);
    }

    private static double niceStep(double raw) {
        double p = Math.pow(10, Math.floor(Math.log10(Math.max(raw, 1e-3))));
        for (double m : new double[] {1, 2, 5, 10}) if (m * p >= raw) return m * p;
        return 10 * p;
    }

    private static String timeLabel(double ns, double step) {
        if (step >= 1e8) return String.format(Locale.ROOT, "%.1f s", ns / 1e9);
        if (step >= 1e6) return String.format(Locale.ROOT, "%.3f s", ns / 1e9);
        if (step >= 1e3) return String.format(Locale.ROOT, "%.6f s", ns / 1e9);
        return String.format(Locale.ROOT, "%.9f s", ns / 1e9);
    }

    /** For tests: the calls that have bars now, in the order drawn (not counting those merged on one pixel). */
    List<Integer> visibleCalls() {
        CallIndex idx = w.index();
        if (idx == null) return List.of();
        java.util.ArrayList<Integer> out = new java.util.ArrayList<>();
        for (int i = 0; i < idx.size(); i++) if (centreOf(i) != null) out.add(i);
        return out;
    }
}

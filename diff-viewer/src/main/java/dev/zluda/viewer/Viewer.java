package dev.zluda.viewer;

import dev.zluda.capture.Capture;
import javafx.application.Platform;
import javafx.scene.Scene;
import javafx.scene.image.PixelFormat;
import javafx.scene.image.WritableImage;
import javafx.stage.Stage;
import javafx.stage.WindowEvent;

import javax.imageio.ImageIO;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Entry point of the viewer for the {@code zluda view} command: checks that a window can be opened
 * here, starts JavaFX, shows a {@link ViewerWindow} and waits until it is closed. Also writes PNG
 * snapshots of a window, and measures the time to first paint ({@code --benchmark}).
 */
public final class Viewer {
    /** Kept so that the JavaFX logger's level is not collected. */
    private static final Logger JAVAFX_LOGGER = Logger.getLogger("javafx");

    private Viewer() {}

    /**
     * How to run.
     *
     * @param screenshot write the window as PNG here once the capture is loaded, then close it (null: stay open)
     * @param benchmark print the time to first paint, the load time and the heap used, then close
     * @param locator runs the instruction-level localisation of a launch (offered on launches with a
     *     kernel snapshot), or null for none
     * @param divergence with two captures, the divergence selected once they are compared (1: the first)
     */
    public record Options(Path screenshot, boolean benchmark, KernelLocator locator, int divergence) {
        /** The first divergence selected (two captures). */
        public Options(Path screenshot, boolean benchmark, KernelLocator locator) {
            this(screenshot, benchmark, locator, 1);
        }

        /** Without a localisation. */
        public Options(Path screenshot, boolean benchmark) {
            this(screenshot, benchmark, null);
        }

        /** An interactive window. */
        public static Options interactive() {
            return new Options(null, false, null);
        }
    }

    /**
     * Why no window can be opened in this environment ({@code env} reads environment variables), or
     * null when one can: on Linux a display server must be named by {@code DISPLAY} or
     * {@code WAYLAND_DISPLAY}, unless JavaFX runs on its headless Monocle platform.
     */
    public static String displayProblem(Function<String, String> env) {
        String platform = System.getProperty("glass.platform", "");
        if (platform.equalsIgnoreCase("Monocle") || platform.equalsIgnoreCase("Headless")) return null;
        if (!System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("linux")) return null;
        String d = env.apply("DISPLAY"), wl = env.apply("WAYLAND_DISPLAY");
        if ((d == null || d.isBlank()) && (wl == null || wl.isBlank())) {
            return "no display to open a window on: DISPLAY is not set. Run it in a desktop session, over 'ssh -X', "
                    + "or under a virtual X server (xvfb-run zluda view CAPTURE); 'zluda dump' and 'zluda info' work without one.";
        }
        return null;
    }

    /** Silences JavaFX's warning that it runs from the class path (it does, on purpose: dist/lib). */
    static void quietJavaFxLogging() {
        JAVAFX_LOGGER.setLevel(Level.SEVERE);
    }

    /**
     * Starts the JavaFX toolkit (once per process); returns null, or why it could not start (no
     * display, no GTK).
     */
    public static String startToolkit() {
        quietJavaFxLogging();
        CountDownLatch started = new CountDownLatch(1);
        try {
            Platform.startup(started::countDown);
        } catch (IllegalStateException alreadyRunning) {
            return null;
        } catch (Throwable t) {
            String m = t.getMessage() != null ? t.getMessage() : t.toString();
            return "cannot open a window: " + m + (m.contains("DISPLAY") ? "" : " (on Linux JavaFX needs GTK 3: apt-get install libgtk-3-0)");
        }
        try {
            started.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        Platform.setImplicitExit(false);
        return null;
    }

    /**
     * Opens a window on the capture (null: an empty window, File &gt; Open) and returns when it has
     * been closed: 0, or 2 when the capture cannot be opened or no window can be opened (as
     * {@code zluda dump} and {@code info} answer an unreadable capture).
     * {@code capture} may still be opening: its indexing starts as soon as it is open, while the
     * toolkit starts, so that the first frame already shows calls; the window closes the capture.
     */
    public static int run(Future<Capture> capture, Options o, PrintWriter out, PrintWriter err) {
        long t0 = System.nanoTime();
        // index the first calls while JavaFX starts, so that the window's first frame shows them
        CompletableFuture<IndexLoad> loading = new CompletableFuture<>();
        if (capture != null) {
            Thread pre = new Thread(() -> {
                try {
                    loading.complete(IndexLoad.start(capture.get()));
                } catch (java.util.concurrent.ExecutionException e) {
                    loading.completeExceptionally(e.getCause());
                } catch (Throwable e) {
                    loading.completeExceptionally(e);
                }
            }, "zluda-viewer-preload");
            pre.setDaemon(true);
            pre.start();
        }
        String problem = startToolkit();
        if (problem != null) {
            err.println("zluda view: error: " + problem);
            err.flush();
            if (capture != null) {
                loading.thenAccept(l -> {
                    l.cancel();
                    l.done().whenComplete((st, x) -> l.index().capture().close());
                });
            }
            return 2;
        }
        long toolkitNanos = System.nanoTime() - t0;
        trace("toolkit started");
        IndexLoad cap;
        try {
            cap = capture == null ? null : loading.get();
        } catch (java.util.concurrent.ExecutionException e) {
            Throwable c = e.getCause();
            err.println("zluda view: error: " + (c.getMessage() != null ? c.getMessage() : c.toString()));
            err.println("  see: zluda view --help");
            err.flush();
            Platform.exit();
            return 2;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 1;
        }
        trace("capture opened");
        CountDownLatch closed = new CountDownLatch(1);
        AtomicInteger code = new AtomicInteger();
        Platform.runLater(() -> {
            trace("on the FX thread");
            Stage stage = new Stage();
            ViewerWindow w = new ViewerWindow(stage);
            w.setKernelLocator(o.locator());
            trace("window built");
            stage.addEventHandler(WindowEvent.WINDOW_HIDDEN, e -> closed.countDown());
            if (o.benchmark()) Benchmark.attach(w, toolkitNanos, out);
            if (cap != null) w.show(cap);
            trace("loading");
            stage.show();
            trace("stage shown");
            if (o.screenshot() != null) w.whenLoaded(() -> afterPulses(3, () -> screenshotAndClose(stage, null, o, out, err, code)));
        });
        return awaitClosed(closed, code);
    }

    /**
     * Opens the two-capture window on captures A (the reference) and B (directories, {@code .zcap}
     * files or packs), compares them in the background, and returns when the window has been
     * closed: 0, 1 when a PNG could not be written, or 2 when no window can be opened. With
     * {@link Options#screenshot()} the window is written as PNG once the comparison is shown (the
     * first divergence selected), then closed.
     */
    public static int runDiff(Path a, Path b, Options o, PrintWriter out, PrintWriter err) {
        String problem = startToolkit();
        if (problem != null) {
            err.println("zluda view: error: " + problem);
            err.flush();
            return 2;
        }
        CountDownLatch closed = new CountDownLatch(1);
        AtomicInteger code = new AtomicInteger();
        Platform.runLater(() -> {
            Stage stage = new Stage();
            DiffWindow w = new DiffWindow(stage);
            w.setKernelLocator(o.locator());
            stage.addEventHandler(WindowEvent.WINDOW_HIDDEN, e -> closed.countDown());
            stage.show();
            w.open(a, b);
            w.whenLoaded(() -> {
                int[] rows = w.divergenceRows();
                if (o.divergence() > 1 && rows.length > 0) w.selectRow(rows[Math.min(o.divergence(), rows.length) - 1]);
                // a screenshot once the selected divergence's buffers are read (10 s at most)
                if (o.screenshot() != null) whenBuffersShown(w, 100, () -> afterPulses(3, () -> screenshotAndClose(stage, w.loadError(), o, out, err, code)));
            });
        });
        return awaitClosed(closed, code);
    }

    /**
     * {@code --screenshot}: writes the window as PNG (or reports the load error instead, setting
     * {@code code} to 1, as for a PNG that cannot be written), then closes it. On the FX thread.
     */
    private static void screenshotAndClose(Stage stage, String loadError, Options o, PrintWriter out, PrintWriter err, AtomicInteger code) {
        if (loadError != null) {
            err.println("zluda view: error: " + loadError);
            code.set(1);
        } else {
            try {
                writePng(stage.getScene(), o.screenshot());
                out.println("wrote " + o.screenshot());
            } catch (IOException e) {
                err.println("zluda view: error: cannot write " + o.screenshot() + ": " + e.getMessage());
                code.set(1);
            }
        }
        out.flush();
        err.flush();
        stage.close();
    }

    /** Runs {@code r} when the selected divergence's images are shown, or it has none, polling every 100 ms {@code tries} times. */
    private static void whenBuffersShown(DiffWindow w, int tries, Runnable r) {
        if (tries <= 0 || w.shownImages() != null || !w.readingBuffers()) {
            r.run();
            return;
        }
        javafx.animation.PauseTransition p = new javafx.animation.PauseTransition(javafx.util.Duration.millis(100));
        p.setOnFinished(e -> whenBuffersShown(w, tries - 1, r));
        p.play();
    }

    /** Waits until the window is closed, ends the FX toolkit, and returns the exit code. */
    private static int awaitClosed(CountDownLatch closed, AtomicInteger code) {
        try {
            closed.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        Platform.exit();
        return code.get();
    }

    /** Runs {@code r} on the FX thread after {@code n} more pulses (so what was changed has been laid out and drawn). */
    static void afterPulses(int n, Runnable r) {
        if (n <= 0) {
            r.run();
            return;
        }
        javafx.animation.AnimationTimer t = new javafx.animation.AnimationTimer() {
            int left = n;

            @Override
            public void handle(long now) {
                if (--left <= 0) {
                    stop();
                    r.run();
                }
            }
        };
        t.start();
    }

    /** Renders the scene (FX thread) and writes it as a PNG file. */
    public static void writePng(Scene scene, Path file) throws IOException {
        WritableImage img = scene.snapshot(null);
        int w = (int) img.getWidth(), h = (int) img.getHeight();
        int[] argb = new int[w * h];
        img.getPixelReader().getPixels(0, 0, w, h, PixelFormat.getIntArgbInstance(), argb, 0, w);
        BufferedImage bi = new BufferedImage(w, h, BufferedImage.TYPE_INT_RGB);
        bi.setRGB(0, 0, w, h, argb, 0, w);
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) Files.createDirectories(parent);
        if (!ImageIO.write(bi, "png", file.toFile())) throw new IOException("no PNG writer");
    }

    private static final boolean TRACE = Boolean.getBoolean("zluda.viewer.trace");

    /** With {@code -Dzluda.viewer.trace=true}: prints what happens when, for finding where start-up time goes. */
    static void trace(String what) {
        if (TRACE) System.err.printf(Locale.ROOT, "[%6d ms] %s (%s)%n", sinceJvmStartMillis(), what, Thread.currentThread().getName());
    }

    /** Milliseconds since this JVM started. */
    static long sinceJvmStartMillis() {
        return System.currentTimeMillis() - ManagementFactory.getRuntimeMXBean().getStartTime();
    }
}

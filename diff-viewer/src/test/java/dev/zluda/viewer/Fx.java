package dev.zluda.viewer;

import java.nio.file.Path;

/** Test support: JavaFX on Monocle's headless platform, and where the repository's captures are. */
final class Fx {
    private Fx() {}

    /** Runs JavaFX headless (Monocle, software rendering) unless the build asked for something else. */
    static void headless() {
        if (System.getProperty("zluda.test.display") != null) return; // -Dzluda.test.display: a real window (e.g. under Xvfb)
        System.setProperty("testfx.robot", "glass");
        System.setProperty("testfx.headless", "true");
        System.setProperty("glass.platform", "Monocle");
        System.setProperty("monocle.platform", "Headless");
        System.setProperty("prism.order", "sw");
        System.setProperty("prism.text", "t2k");
        System.setProperty("headless.geometry", "3840x2160-32"); // room for a 4K window (DiffWindowLayoutTest)
        System.setProperty("java.awt.headless", "true");
        System.setProperty("zluda.viewer.noDialogs", "true");
        // the headless screen is 4K: the text size of a scaled desktop, not the 18 px Theme picks for an unscaled 4K screen
        if (System.getProperty("zluda.view.fontSize") == null) System.setProperty("zluda.view.fontSize", "12");
        Viewer.quietJavaFxLogging();
    }

    /** The repository root. */
    static Path repo() {
        return Path.of(System.getProperty("zluda.repo", "..")).toAbsolutePath().normalize();
    }

    /** A capture recorded on the H200 ({@code samples/traces/h200/NAME}). */
    static Path sample(String name) {
        return repo().resolve("samples/traces/h200").resolve(name);
    }
}

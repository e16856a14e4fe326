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

    /**
     * Writes what {@code scene} shows as a PNG to {@code viewer/target/screenshots/NAME}, on the JavaFX
     * thread (for a person to look at; no test compares them).
     */
    static void screenshot(org.testfx.api.FxRobot robot, javafx.scene.Scene scene, String name) throws java.io.IOException {
        Path out = repo().resolve("viewer/target/screenshots").resolve(name);
        java.nio.file.Files.createDirectories(out.getParent());
        robot.interact(() -> {
            try {
                Viewer.writePng(scene, out);
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
    }

    /**
     * A locator against NVIDIA's driver on a machine without one: {@link KernelLocator#unavailable()} says so,
     * and a run, which must not be asked for, adds its launch call to {@code asked}.
     */
    static KernelLocator locatorWithoutDriver(java.util.List<Long> asked) {
        return new KernelLocator() {
            @Override
            public Result locate(Path capture, long launchCall, java.util.function.Consumer<String> progress) {
                asked.add(launchCall);
                return Result.cannotRun("must not run");
            }

            @Override
            public String describe() {
                return "zluda against nvidia";
            }

            @Override
            public String unavailable() {
                return "needs NVIDIA's driver, and this machine has none";
            }
        };
    }

    /** A capture recorded on the H200 ({@code samples/traces/h200/NAME}). */
    static Path sample(String name) {
        return repo().resolve("samples/traces/h200").resolve(name);
    }
}

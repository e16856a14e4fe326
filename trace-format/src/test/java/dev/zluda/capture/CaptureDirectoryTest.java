package dev.zluda.capture;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;

class CaptureDirectoryTest {
    @TempDir
    Path logs;

    @Test
    void zludaLayout() throws Exception {
        assertEquals(logs.resolve("app"), CaptureDirectory.create(logs, "/usr/bin/app"));
        assertEquals(logs.resolve("app_1"), CaptureDirectory.create(logs, "/usr/bin/app"));
        assertEquals(logs.resolve("app_2"), CaptureDirectory.create(logs, "app"));
        assertEquals("module_0001_02.ptx", CaptureDirectory.moduleFileName(1, 2, "ptx"));
    }
}

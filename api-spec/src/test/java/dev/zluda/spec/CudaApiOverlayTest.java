package dev.zluda.spec;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** The hand-maintained overlay is complete for the annotated groups and consistent with the header. */
class CudaApiOverlayTest {
    private final CudaApi api = CudaApi.load();

    @Test
    void overlayNamesOnlyWhatTheHeaderDeclares() {
        List<String> problems = api.overlayProblems();
        assertTrue(problems.isEmpty(), problems.size() + " problems in cuda-api-overlay.yaml:\n" + String.join("\n", problems));
    }

    @Test
    void everyPointerParameterOfTheAnnotatedGroupsHasDirectionAndSize() {
        List<String> missing = new ArrayList<>();
        int checked = 0;
        for (CudaFunction f : api.functions()) {
            if (!CudaApi.mustBeAnnotated(f)) continue;
            for (CudaParam p : f.params()) {
                if (!p.isPointer()) continue;
                checked++;
                boolean defaultString = p.string() && p.cType().startsWith("const ");
                if (!p.annotated() && !defaultString) {
                    missing.add(f.name() + "(" + p.cType() + " " + p.name() + "): no direction (" + f.group() + ", cuda.h:" + f.line() + ")");
                } else if (p.size() == null && !p.opaque() && !p.string()) {
                    missing.add(f.name() + "." + p.name() + ": points to " + p.pointeeType() + " but has no count/bytes and is not opaque");
                }
            }
        }
        assertTrue(missing.isEmpty(), missing.size() + " of " + checked + " pointer parameters lack annotations:\n" + String.join("\n", missing));
        assertTrue(checked > 300, "only " + checked + " pointer parameters in the annotated groups: the group assignment is broken");
    }

    @Test
    void everyAnnotatedGroupExistsInTheHeader() {
        for (String g : CudaApi.ANNOTATED_GROUPS) {
            assertTrue(api.functions().stream().anyMatch(f -> f.group().equals(g)), "no function in group " + g);
        }
    }
}

package dev.zluda.runtime.driver;

import dev.zluda.spec.CudaApi;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.List;
import java.util.TreeSet;

/** What the zluda driver implements, read from the code itself (the source docs/support.md is checked against). */
public final class Support {
    private Support() {}

    /** Names of the CUDA driver functions {@link ZludaDriver} implements (overrides), sorted. */
    public static List<String> implementedFunctions() {
        CudaApi api = CudaApi.get();
        TreeSet<String> out = new TreeSet<>();
        for (Method m : ZludaDriver.class.getDeclaredMethods()) {
            if (Modifier.isPublic(m.getModifiers()) && api.function(m.getName()).isPresent()) out.add(m.getName());
        }
        return List.copyOf(out);
    }
}

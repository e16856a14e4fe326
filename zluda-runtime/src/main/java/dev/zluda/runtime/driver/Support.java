package dev.zluda.runtime.driver;

import dev.zluda.spec.CudaApi;

import java.util.List;
import java.util.TreeSet;

/**
 * What the zluda driver implements, read from its generated dispatch table ({@code DriverTable}, from
 * cuda-api-driver.yaml): the source docs/support.md's list is printed from and checked against.
 */
public final class Support {
    private Support() {}

    /** Names of the CUDA driver functions an area of {@link ZludaDriver} serves, sorted. */
    public static List<String> implementedFunctions() {
        CudaApi api = CudaApi.get();
        TreeSet<String> out = new TreeSet<>();
        for (int id = 0; id < DriverTable.Served.HANDLER.length; id++) if (DriverTable.Served.HANDLER[id] != null) out.add(api.function(id).name());
        return List.copyOf(out);
    }

    /**
     * Prints the implemented-functions section of docs/support.md (markdown, grouped by cuda.h
     * group), which SupportDocTest compares with the page. Run:
     * {@code java -cp "dist/lib/*" dev.zluda.runtime.driver.Support}
     */
    public static void main(String[] args) {
        CudaApi api = CudaApi.get();
        java.util.Map<String, java.util.List<String>> byGroup = new java.util.TreeMap<>();
        for (String f : implementedFunctions()) byGroup.computeIfAbsent(api.function(f).orElseThrow().group(), g -> new java.util.ArrayList<>()).add(f);
        System.out.println("<!-- implemented-functions:begin -->");
        System.out.println("| group | implemented | functions |");
        System.out.println("|---|---|---|");
        byGroup.forEach((g, fs) -> {
            long total = api.functions().stream().filter(x -> x.group().equals(g)).count();
            System.out.println("| " + g + " | " + fs.size() + " of " + total + " | " + String.join(", ", fs.stream().map(x -> "`" + x + "`").toList()) + " |");
        });
        System.out.println("<!-- implemented-functions:end -->");
    }
}

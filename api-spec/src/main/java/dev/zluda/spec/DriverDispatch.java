package dev.zluda.spec;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Where zluda's driver serves each CUDA function ({@code cuda-api-driver.yaml}, {@code areas} and
 * {@code served-as}; api-spec/SPEC.md, "Roles and driver areas"): the area whose class implements it and the
 * function whose method does (itself, the function it is served as, or for a {@code _ptds}/{@code _ptsz} variant
 * the function without the suffix). The driver's dispatch table is generated from this
 * ({@link dev.zluda.spec.gen.EntryGenerator}); a function without an entry is not supported.
 */
public final class DriverDispatch {
    /**
     * How one function is served.
     *
     * @param function the function
     * @param area the area ({@code memory}, {@code launch}, …) whose class has the handler
     * @param handler the function whose method in that class serves it (the same parameter types)
     */
    public record Entry(CudaFunction function, String area, CudaFunction handler) {}

    private final Map<Integer, Entry> entries;
    private final List<String> areas;
    private final List<String> views;

    DriverDispatch(Map<Integer, Entry> entries, List<String> areas, List<String> views) {
        this.entries = Collections.unmodifiableMap(new LinkedHashMap<>(entries));
        this.areas = List.copyOf(areas);
        this.views = List.copyOf(views);
    }

    /**
     * The structs the driver reads and writes through views generated from their layouts ({@code views} of
     * cuda-api-driver.yaml; {@code CudaStructs}), by the typedef name the driver uses.
     */
    public List<String> views() {
        return views;
    }

    /** How a function is served, or empty when the driver does not implement it. */
    public Optional<Entry> entry(CudaFunction f) {
        return Optional.ofNullable(entries.get(f.id()));
    }

    /** Every served function's entry, by function id. */
    public List<Entry> entries() {
        List<Entry> out = new ArrayList<>(entries.values());
        out.sort((a, b) -> Integer.compare(a.function().id(), b.function().id()));
        return out;
    }

    /** The areas in the order the file lists them. */
    public List<String> areas() {
        return areas;
    }
}

package dev.zluda.spec;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What NVIDIA's {@code cuGetProcAddress_v2} returns for a base name, a CUDA version and a flags
 * value, as measured on NVIDIA's driver (resource {@code cu-get-proc-address.tsv}, written by
 * {@code nvidia-capture/src/main/c/tools/probe_proc_address.c}; provenance in its header lines).
 *
 * <p>The table is a list of change points: for each base name and flags value, the answer given
 * from a version on until the next row. Versions are {@code major*1000 + minor*10}, measured from
 * 1000 to 13000 in steps of 10; flags 0…7. Semantics: CUDA Driver API, cuGetProcAddress.
 */
public final class ProcAddressTable {
    /** {@code CUdriverProcAddressQueryResult} values. */
    public static final int SYMBOL_SUCCESS = 0, SYMBOL_NOT_FOUND = 1, VERSION_NOT_SUFFICIENT = 2;
    /** The CUresult and symbol status that NVIDIA's driver returns for flags it does not know. */
    public static final int CUDA_ERROR_INVALID_VALUE = 1;

    /**
     * One answer.
     *
     * @param result the CUresult returned
     * @param symbolStatus the {@code CUdriverProcAddressQueryResult} written, -1 when the driver left it unwritten
     * @param symbol the exported function whose address is returned, or null for a null pointer
     */
    public record Answer(int result, int symbolStatus, String symbol) {
        /** e.g. {@code cuCtxCreate_v4} or {@code CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT}. */
        public String describe() {
            if (symbol != null) return symbol;
            if (result != 0) return "CUresult " + result + (result == CUDA_ERROR_INVALID_VALUE ? " (CUDA_ERROR_INVALID_VALUE)" : "");
            return switch (symbolStatus) {
                case SYMBOL_NOT_FOUND -> "CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND";
                case VERSION_NOT_SUFFICIENT -> "CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT";
                default -> "status " + symbolStatus;
            };
        }
    }

    private record Row(int fromVersion, Answer answer) {}

    private final List<String> provenance = new ArrayList<>();
    private final Map<String, Map<Integer, List<Row>>> rows = new LinkedHashMap<>();
    private int minVersion = Integer.MAX_VALUE;
    private int maxFlags = 0;

    /** Parses the TSV; throws UncheckedIOException naming the line of a malformed row. */
    public ProcAddressTable(InputStream tsv) {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(tsv, StandardCharsets.UTF_8))) {
            String line;
            int n = 0;
            while ((line = r.readLine()) != null) {
                n++;
                if (line.startsWith("#")) {
                    provenance.add(line.substring(1).trim());
                    continue;
                }
                if (line.isBlank()) continue;
                String[] f = line.split("\t");
                if (f.length != 6) throw new IOException("cu-get-proc-address.tsv:" + n + ": expected 6 tab-separated columns, got " + f.length);
                int flags = Integer.parseInt(f[1]);
                int from = Integer.parseInt(f[2]);
                minVersion = Math.min(minVersion, from);
                maxFlags = Math.max(maxFlags, flags);
                Answer a = new Answer(Integer.parseInt(f[3]), Integer.parseInt(f[4]), f[5].equals("-") ? null : f[5]);
                rows.computeIfAbsent(f[0], k -> new HashMap<>()).computeIfAbsent(flags, k -> new ArrayList<>()).add(new Row(from, a));
            }
        } catch (IOException | NumberFormatException e) {
            throw new UncheckedIOException(new IOException("malformed cu-get-proc-address.tsv: " + e.getMessage(), e));
        }
    }

    /** Loads the table from the classpath. */
    public static ProcAddressTable load() {
        InputStream in = ProcAddressTable.class.getResourceAsStream("/dev/zluda/spec/cu-get-proc-address.tsv");
        if (in == null) throw new UncheckedIOException(new IOException("missing classpath resource /dev/zluda/spec/cu-get-proc-address.tsv"));
        return new ProcAddressTable(in);
    }

    /** Every base name that was asked about. */
    public Set<String> names() {
        return Collections.unmodifiableSet(rows.keySet());
    }

    /** The header lines of the measurement (driver, versions, flags). */
    public List<String> provenance() {
        return List.copyOf(provenance);
    }

    /** Whether the name was measured. */
    public boolean contains(String baseName) {
        return rows.containsKey(baseName);
    }

    /**
     * The answer NVIDIA's driver gives to {@code cuGetProcAddress_v2(baseName, &pfn, cudaVersion, flags, &status)}.
     * A name that was not measured gets SYMBOL_NOT_FOUND, as an unknown name does on the driver;
     * a version above the measured range gets the answer for the highest measured version.
     *
     * @param baseName symbol without version suffix, e.g. {@code cuCtxCreate}
     * @param cudaVersion e.g. 12050 for CUDA 12.5
     * @param flags {@code CU_GET_PROC_ADDRESS_*} flags (0 default, 1 legacy stream, 2 per-thread default stream)
     */
    public Answer lookup(String baseName, int cudaVersion, long flags) {
        Map<Integer, List<Row>> byFlags = rows.get(baseName);
        if (byFlags == null) {
            return flags < 0 || flags > 3 ? new Answer(CUDA_ERROR_INVALID_VALUE, -1, null) : new Answer(0, SYMBOL_NOT_FOUND, null);
        }
        List<Row> list = flags >= 0 && flags <= maxFlags ? byFlags.get((int) flags) : null;
        if (list == null) list = byFlags.get(maxFlags);
        Answer best = null;
        for (Row row : list) {
            if (row.fromVersion <= cudaVersion) best = row.answer;
        }
        if (best == null) best = new Answer(0, VERSION_NOT_SUFFICIENT, null);
        return best;
    }

    /**
     * The versions at which the answer for (name, flags) changes, with the answer from then on;
     * empty for an unknown name.
     */
    public List<Map.Entry<Integer, Answer>> changes(String baseName, int flags) {
        Map<Integer, List<Row>> byFlags = rows.get(baseName);
        if (byFlags == null || !byFlags.containsKey(flags)) return List.of();
        return byFlags.get(flags).stream().map(r -> Map.entry(r.fromVersion, r.answer)).toList();
    }
}

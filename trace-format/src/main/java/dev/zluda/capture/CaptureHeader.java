package dev.zluda.capture;

/**
 * The file header of a capture (FORMAT.md §3.1).
 *
 * @param versionMajor format major version (1)
 * @param versionMinor format minor version
 * @param chunkSize bytes per chunk unit
 * @param specHash XXH64 of the API spec the writer was built from
 * @param startRealtimeNs wall clock at the start, ns since 1970 UTC
 * @param startMonotonicNs CLOCK_MONOTONIC at the start, ns (the clock of record timestamps)
 * @param pid process id
 */
public record CaptureHeader(int versionMajor, int versionMinor, int chunkSize, long specHash,
                            long startRealtimeNs, long startMonotonicNs, int pid) {}

package dev.zluda.capture;

import dev.zluda.spec.CudaApi;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Writes a capture file (FORMAT.md) into a shared memory mapping of the file, so that every
 * completed record survives a crash of the JVM. Many threads write at once: each writes through
 * its own {@link ThreadLog} (from {@link #currentThread()} or {@link #thread(long)}) into chunks it
 * reserves lock-free; sequence numbers from one atomic counter give the total order.
 *
 * <p>Once a capture passes 4 MiB, a background daemon thread ("zluda-capture-prefault") keeps the
 * pages of the next 16 MiB pre-faulted ({@link Prefault}, where the JVM grants native access), so
 * the writing threads do not stop for a page fault every 4 KiB; the file may then extend up to one
 * growth step past the last used unit until {@link #close()} trims it (zero units, FORMAT.md §3).
 *
 * <p>{@link #close()} must be called after every thread has stopped writing: it writes
 * PROCESS_END, seals every chunk and trims the file.
 *
 * <p>Rewriting mode ({@link Options#explicitSeq}): the caller gives each record's sequence number
 * ({@link ThreadLog#nextSeq(long)}) and must give them in increasing order from one thread; used to
 * rewrite a capture (redaction, conversion) keeping its order and numbers.
 */
public final class CaptureWriter implements AutoCloseable {
    /**
     * Writer options.
     *
     * @param chunkSize bytes per chunk unit, a power of two in 4096..16 MiB
     * @param growStep bytes by which the file grows at once (rounded to whole chunks; also the
     *     size of each shared mapping window)
     * @param specHash the header's specHash (see {@link #specHash()})
     * @param pid process id for the header
     * @param startRealtimeNs wall clock in ns since the epoch
     * @param startMonotonicNs {@link System#nanoTime()} at the same moment (Linux: CLOCK_MONOTONIC)
     * @param explicitSeq rewriting mode: sequence numbers are given by the caller
     */
    public record Options(int chunkSize, long growStep, long specHash, int pid, long startRealtimeNs,
                          long startMonotonicNs, boolean explicitSeq) {
        /** Defaults: 256 KiB chunks, 64 MiB growth, this spec's hash, this process, now. */
        public static Options defaults() {
            java.time.Instant now = java.time.Instant.now();
            return new Options(CaptureFormat.DEFAULT_CHUNK_SIZE, 64L << 20, CaptureWriter.specHash(), (int) ProcessHandle.current().pid(),
                    now.getEpochSecond() * 1_000_000_000L + now.getNano(), System.nanoTime(), false);
        }

        /** A copy with another chunk size. */
        public Options withChunkSize(int size) {
            return new Options(size, growStep, specHash, pid, startRealtimeNs, startMonotonicNs, explicitSeq);
        }

        /** A copy with another growth step. */
        public Options withGrowStep(long step) {
            return new Options(chunkSize, step, specHash, pid, startRealtimeNs, startMonotonicNs, explicitSeq);
        }

        /** A copy for rewriting: header fields from an existing capture, explicit sequence numbers. */
        public Options rewriting(CaptureHeader h) {
            return new Options(h.chunkSize(), growStep, h.specHash(), h.pid(), h.startRealtimeNs(), h.startMonotonicNs(), true);
        }
    }

    static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT.withOrder(ByteOrder.LITTLE_ENDIAN);
    static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    static final ValueLayout.OfInt INT_U = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    static final java.lang.invoke.VarHandle INT_HANDLE = INT.varHandle();
    /** Bytes pre-faulted per background step, how far ahead of the last reserved unit, and the
     * bytes left to fault in normally at the start (so that small captures pay nothing). */
    static final int PREFAULT_STRETCH = 4 << 20, PREFAULT_LEAD = 16 << 20, PREFAULT_FIRST = 4 << 20;

    private static volatile Long specHash;

    final Path file;
    /** Where the bytes are written: a temporary name beside {@link #file} until the function table is in, then {@link #file}. */
    private volatile Path writing;
    final Options options;
    final int chunkSize;
    final long windowSize;
    final int unitsPerWindow;
    final int[] paramCounts;
    private final FileChannel channel;
    private final Arena arena = Arena.ofShared();
    final AtomicLong ticket = new AtomicLong();
    private volatile MemorySegment[] windows = new MemorySegment[0];
    private volatile long fileLength;
    private final Object growLock = new Object();
    private final List<ThreadLog> logs = new ArrayList<>();
    private final ThreadLocal<ThreadLog> current = new ThreadLocal<>();
    final Set<Long> blobsWritten = ConcurrentHashMap.newKeySet();
    private final ConcurrentHashMap<String, Integer> strings = new ConcurrentHashMap<>();
    private final AtomicInteger nextStringId = new AtomicInteger();
    private volatile boolean closed;
    volatile boolean full;
    /** Background pre-faulting of the units ahead of the writers (null when {@link Prefault} is unavailable). */
    private final java.util.concurrent.ExecutorService prefaulter;
    /** Units per pre-fault stretch (divides {@link #unitsPerWindow}); the first unit not yet claimed for pre-faulting. */
    private final int stretchUnits, firstPrefaultUnit;
    private final AtomicLong prefaultedTo = new AtomicLong();
    /** Stretches the background thread pre-faulted (for tests). */
    final AtomicInteger prefaultedStretches = new AtomicInteger();

    private CaptureWriter(Path file, Options o, List<FunctionDef> functions) throws IOException {
        int cs = o.chunkSize;
        if (Integer.bitCount(cs) != 1 || cs < CaptureFormat.MIN_CHUNK_SIZE || cs > CaptureFormat.MAX_CHUNK_SIZE) {
            throw new IllegalArgumentException("chunk size must be a power of two in 4096..16777216, not " + cs);
        }
        this.file = file;
        this.options = o;
        this.chunkSize = cs;
        long w = Math.max(cs, (o.growStep / cs) * cs);
        this.windowSize = w;
        this.unitsPerWindow = (int) (w / cs);
        int su = Math.max(1, PREFAULT_STRETCH / cs);
        while (unitsPerWindow % su != 0) su--;
        this.stretchUnits = su;
        this.firstPrefaultUnit = Math.max(1, PREFAULT_FIRST / cs);
        this.prefaultedTo.set(firstPrefaultUnit);
        this.prefaulter = Prefault.available() ? java.util.concurrent.Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "zluda-capture-prefault");
            t.setDaemon(true);
            return t;
        }) : null;
        this.paramCounts = new int[functions.size()];
        for (int i = 0; i < paramCounts.length; i++) paramCounts[i] = functions.get(i).paramCount();
        // a temporary name beside the file (created as the file would be: the umask decides its mode)
        Path tmp = file.resolveSibling("." + file.getFileName() + "." + ProcessHandle.current().pid() + "."
                + Long.toHexString(System.nanoTime()) + ".tmp");
        this.writing = tmp;
        FileChannel ch = null;
        try {
            ch = FileChannel.open(tmp, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ, StandardOpenOption.WRITE);
            // header first; the file grows before any unit is handed out
            byte[] h = header(o);
            ch.write(java.nio.ByteBuffer.wrap(h), 0);
            fileLength = CaptureFormat.FILE_HEADER_SIZE;
        } catch (IOException | RuntimeException e) {
            if (ch != null) ch.close();
            deleteQuietly(tmp);
            if (prefaulter != null) prefaulter.shutdownNow();
            throw e;
        }
        this.channel = ch;
        try {
            ensureLength(CaptureFormat.FILE_HEADER_SIZE + w);
        } catch (IOException | RuntimeException e) {
            discard();
            throw e;
        }
    }

    /**
     * Creates (or replaces) {@code file} and writes its header and function table; the file has its
     * name only once the table is in it (see {@link #publishName}).
     *
     * @param functions the function table; ENTER records use indexes into it (normally {@link FunctionDef#fromSpec})
     * @throws IOException when the file cannot be created or mapped
     */
    public static CaptureWriter create(Path file, Options options, List<FunctionDef> functions) throws IOException {
        CaptureWriter w = new CaptureWriter(file, options, functions);
        try {
            ThreadLog t = w.currentThread();
            if (options.explicitSeq) t.nextSeq(0);
            t.functionTable(functions, options.startMonotonicNs);
            w.publishName();
        } catch (IOException | RuntimeException e) {
            w.discard();
            throw e;
        }
        return w;
    }

    /**
     * Gives the file its name once the function table is published: until then it is written under a
     * temporary name beside it, so that a process killed at any instant leaves either no capture file
     * or one whose first record is the table (FORMAT.md §6.10). Replaces a file of that name.
     */
    private void publishName() throws IOException {
        if (Boolean.getBoolean("zluda.capture.testHaltBeforeName")) Runtime.getRuntime().halt(137); // the kill test's moment
        Files.move(writing, file, java.nio.file.StandardCopyOption.ATOMIC_MOVE, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        writing = file;
    }

    /** A create that failed: unmaps and removes the temporary file. */
    private void discard() {
        try {
            closed = true;
            if (prefaulter != null) prefaulter.shutdownNow();
            arena.close();
            channel.close();
        } catch (IOException | RuntimeException ignored) {
            // best effort
        }
        if (writing != file) deleteQuietly(writing);
    }

    /**
     * As {@link #create(Path, Options, List)}, but the function table goes to the log of thread
     * {@code threadId}, which {@link #functionTableLog()} returns for that thread's further records:
     * rewriting a capture keeps the table in the chunk of the thread that held it, so that the copy
     * takes no chunk more than the original (a chunk per thread log).
     */
    public static CaptureWriter create(Path file, Options options, List<FunctionDef> functions, long threadId) throws IOException {
        CaptureWriter w = new CaptureWriter(file, options, functions);
        try {
            ThreadLog t = w.thread(threadId);
            w.functionTableLog = t;
            if (options.explicitSeq) t.nextSeq(0);
            t.functionTable(functions, options.startMonotonicNs);
            w.publishName();
        } catch (IOException | RuntimeException e) {
            w.discard();
            throw e;
        }
        return w;
    }

    private ThreadLog functionTableLog;

    /** The log {@link #create(Path, Options, List, long)} wrote the function table to; null after the other create. */
    public ThreadLog functionTableLog() {
        return functionTableLog;
    }

    /** Creates a capture with default options and the spec's function table. */
    public static CaptureWriter create(Path file) throws IOException {
        return create(file, Options.defaults(), FunctionDef.fromSpec(CudaApi.get()));
    }

    static byte[] header(Options o) {
        byte[] h = new byte[CaptureFormat.FILE_HEADER_SIZE];
        Varint.putLong(h, 0, CaptureFormat.MAGIC);
        h[8] = (byte) CaptureFormat.VERSION_MAJOR;
        h[10] = (byte) CaptureFormat.VERSION_MINOR;
        h[12] = 8;
        h[13] = 1;
        h[14] = (byte) CaptureFormat.FILE_HEADER_SIZE;
        putInt(h, 16, o.chunkSize);
        Varint.putLong(h, 24, o.specHash);
        Varint.putLong(h, 32, o.startRealtimeNs);
        Varint.putLong(h, 40, o.startMonotonicNs);
        putInt(h, 48, o.pid);
        putInt(h, 60, (int) Hashing.xxh64(h, 0, 60));
        return h;
    }

    static void putInt(byte[] b, int pos, int v) {
        for (int i = 0; i < 4; i++) b[pos + i] = (byte) (v >>> (8 * i));
    }

    /**
     * XXH64 of the spec resources {@code cuda-api.json} then {@code cuda-api-overlay.yaml}, as the
     * capture header's {@code specHash} (FORMAT.md §3.1).
     */
    public static long specHash() {
        Long h = specHash;
        if (h == null) {
            try (InputStream a = CudaApi.class.getResourceAsStream("/dev/zluda/spec/cuda-api.json");
                 InputStream b = CudaApi.class.getResourceAsStream("/dev/zluda/spec/cuda-api-overlay.yaml")) {
                if (a == null || b == null) throw new IOException("spec resources missing from the classpath");
                byte[] x = a.readAllBytes(), y = b.readAllBytes();
                byte[] all = new byte[x.length + y.length];
                System.arraycopy(x, 0, all, 0, x.length);
                System.arraycopy(y, 0, all, x.length, y.length);
                h = Hashing.xxh64(all);
                specHash = h;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return h;
    }

    /** The file being written. */
    public Path file() {
        return file;
    }

    /** The calling thread's log, created on first use with {@link Thread#threadId()} as thread id. */
    public ThreadLog currentThread() {
        ThreadLog t = current.get();
        if (t == null) {
            t = thread(Thread.currentThread().threadId());
            current.set(t);
        }
        return t;
    }

    /**
     * A new log for the thread with this id (e.g. the OS thread id from {@code gettid}). The
     * returned object must be used by one thread at a time.
     */
    public ThreadLog thread(long threadId) {
        ThreadLog t = new ThreadLog(this, threadId);
        synchronized (logs) {
            if (closed) throw new IllegalStateException("capture writer is closed");
            logs.add(t);
        }
        return t;
    }

    /**
     * Interns a string: returns its id, writing a STRING record through {@code log} the first time
     * (so the definition precedes every use in sequence order).
     */
    public int internString(ThreadLog log, String s, long ts) {
        Integer id = strings.get(s);
        if (id != null) return id;
        synchronized (strings) {
            id = strings.get(s);
            if (id != null) return id;
            int n = nextStringId.getAndIncrement();
            log.stringDef(n, s, ts);
            strings.put(s, n);
            return n;
        }
    }

    // ---------------------------------------------------------------- space

    /** Reserves {@code span} units; returns the old ticket (unit << 40 | seq), or -1 when the capture is full. */
    long reserve(int span) {
        long t = ticket.getAndAdd((long) span << CaptureFormat.SEQ_BITS);
        long unit = t >>> CaptureFormat.SEQ_BITS;
        if (unit + span >= CaptureFormat.MAX_UNITS) {
            full = true;
            return -1;
        }
        return t;
    }

    /**
     * Called by a writer after it reserved units up to {@code endUnit}: keeps the pages of the next
     * {@link #PREFAULT_LEAD} bytes pre-faulted by the background thread, a stretch at a time, so the
     * writing thread does not take their page faults itself.
     */
    void reservedUpTo(long endUnit) {
        if (prefaulter == null || endUnit < firstPrefaultUnit) return;
        long lead = Math.max(stretchUnits, PREFAULT_LEAD / chunkSize);
        while (true) {
            long from = prefaultedTo.get();
            if (from >= endUnit + lead || closed) return;
            long start = Math.max(from, endUnit);
            start = (start + stretchUnits - 1) / stretchUnits * stretchUnits;   // stretches never cross a window
            long end = start + stretchUnits;
            if (end >= CaptureFormat.MAX_UNITS) return;
            if (!prefaultedTo.compareAndSet(from, end)) continue;
            long s0 = start;
            try {
                prefaulter.execute(() -> {
                    try {
                        if (closed) return;
                        int win = (int) (s0 / unitsPerWindow);
                        MemorySegment m = window(win);
                        if (Prefault.populate(m.asSlice((s0 - (long) win * unitsPerWindow) * chunkSize, (long) stretchUnits * chunkSize))) {
                            prefaultedStretches.incrementAndGet();
                        }
                    } catch (Throwable ignored) {
                        // best effort: the writer faults the pages in itself
                    }
                });
            } catch (java.util.concurrent.RejectedExecutionException closing) {
                return;
            }
        }
    }

    /** Waits until the pre-faulting queued so far is done (for tests). */
    void awaitPrefault() throws Exception {
        if (prefaulter != null) prefaulter.submit(() -> { }).get();
    }

    long unitOffset(long unit) {
        return CaptureFormat.FILE_HEADER_SIZE + unit * chunkSize;
    }

    /** The mapped bytes of a chunk of {@code span} units from {@code unit}; spans that cross a window get a mapping of their own (arena returned via holder). */
    MemorySegment chunkSegment(long unit, int span, Arena[] own) throws IOException {
        long off = unitOffset(unit);
        long size = (long) span * chunkSize;
        ensureLength(off + size);
        long win = unit / unitsPerWindow;
        long endWin = (unit + span - 1) / unitsPerWindow;
        if (win == endWin) {
            MemorySegment w = window((int) win);
            return w.asSlice((unit - win * unitsPerWindow) * chunkSize, size);
        }
        Arena a = Arena.ofShared();
        own[0] = a;
        return channel.map(FileChannel.MapMode.READ_WRITE, off, size, a);
    }

    private MemorySegment window(int i) throws IOException {
        MemorySegment[] ws = windows;
        if (i < ws.length && ws[i] != null) return ws[i];
        synchronized (growLock) {
            ws = windows;
            if (i >= ws.length) ws = java.util.Arrays.copyOf(ws, Math.max(i + 1, ws.length * 2));
            if (ws[i] == null) {
                long off = CaptureFormat.FILE_HEADER_SIZE + (long) i * windowSize;
                ensureLength(off + windowSize);
                ws[i] = channel.map(FileChannel.MapMode.READ_WRITE, off, windowSize, arena);
            }
            windows = ws;
            return ws[i];
        }
    }

    private void ensureLength(long end) throws IOException {
        if (end <= fileLength) return;
        synchronized (growLock) {
            if (end <= fileLength) return;
            long target = CaptureFormat.FILE_HEADER_SIZE
                    + ((end - CaptureFormat.FILE_HEADER_SIZE + windowSize - 1) / windowSize) * windowSize;
            try (var raf = new java.io.RandomAccessFile(writing.toFile(), "rw")) {
                if (raf.length() < target) raf.setLength(target);
            }
            fileLength = target;
        }
    }

    /**
     * Writes PROCESS_END (reason CLOSED) from the calling thread (not in rewriting mode), seals
     * every chunk, unmaps and trims the file to the last reserved unit. Idempotent.
     */
    @Override
    public void close() throws IOException {
        close(CaptureFormat.END_CLOSED, 0);
    }

    /** Like {@link #close()} with an explicit PROCESS_END reason and status. */
    public void close(int reason, long status) throws IOException {
        synchronized (logs) {
            if (closed) return;
        }
        // in rewriting mode the caller copies the original PROCESS_END (if there was one)
        if (!options.explicitSeq) currentThread().processEnd(reason, status, System.nanoTime());
        List<ThreadLog> all;
        synchronized (logs) {
            closed = true;
            all = new ArrayList<>(logs);
        }
        for (ThreadLog t : all) t.finish();
        if (prefaulter != null) {
            prefaulter.shutdown();
            try {
                if (!prefaulter.awaitTermination(1, java.util.concurrent.TimeUnit.MINUTES)) prefaulter.shutdownNow();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        long units = ticket.get() >>> CaptureFormat.SEQ_BITS;
        arena.close();
        channel.truncate(Math.min(unitOffset(units), channel.size()));
        channel.force(true);
        channel.close();
        current.remove();
    }

    /** Whether a limit of the format (2^40 records or 2^24 units) was reached, so that records were dropped. */
    public boolean isFull() {
        return full;
    }

    static void deleteQuietly(Path p) {
        try {
            Files.deleteIfExists(p);
        } catch (IOException ignored) {
            // best effort
        }
    }
}

package dev.zluda.viewer;

import dev.zluda.diff.CallIndex;
import dev.zluda.capture.Capture;
import dev.zluda.capture.ReadStatus;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * One background pass of {@link CallIndex#load} over a capture, on its own daemon thread: started
 * as soon as the capture is open (by {@code zluda view} while JavaFX is still starting), so that
 * the window's first frame already shows the first calls. After the first 2,048 records it pauses
 * until the window says that they are drawn ({@link #painted()}, at most 20 s), leaving the CPU to
 * the first frame; then it reads on. Progress is read by polling ({@link #bytesRead()},
 * {@link CallIndex#size()}); {@link #cancel()} stops it at the next 16 K records, keeping what was
 * read. Thread-safe.
 */
final class IndexLoad {
    private final CallIndex index;
    private final long fileSize;
    private final long startNanos = System.nanoTime();
    private final CountDownLatch firstRows = new CountDownLatch(1);
    private final CountDownLatch painted = new CountDownLatch(1);
    private final CompletableFuture<ReadStatus> done = new CompletableFuture<>();
    private volatile boolean cancelled;
    private volatile long bytes;
    private volatile long endNanos = -1;
    /** Tests only: called on the indexing thread with the bytes read at each progress report (may block it). */
    static volatile java.util.function.LongConsumer testProbe;

    private IndexLoad(Capture capture) {
        this.index = new CallIndex(capture);
        this.fileSize = capture.reader().fileSize();
    }

    /** Starts indexing {@code capture} on a new daemon thread {@code zluda-viewer-index}. */
    static IndexLoad start(Capture capture) {
        IndexLoad l = new IndexLoad(capture);
        Thread th = new Thread(l::run, "zluda-viewer-index");
        th.setDaemon(true);
        th.start();
        return l;
    }

    private void run() {
        Viewer.trace("indexing");
        boolean[] first = {true};
        try {
            ReadStatus st = index.load(b -> {
                bytes = b;
                java.util.function.LongConsumer probe = testProbe;
                if (probe != null) probe.accept(b);
                if (first[0] && !index.isComplete()) {
                    first[0] = false;
                    firstRows.countDown();
                    try {
                        painted.await(20, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
            }, () -> cancelled);
            Viewer.trace("indexed");
            endNanos = System.nanoTime();
            done.complete(st);
        } catch (Throwable t) {
            endNanos = System.nanoTime();
            done.completeExceptionally(t);
        } finally {
            firstRows.countDown();
        }
    }

    /** The index being filled. */
    CallIndex index() {
        return index;
    }

    /** Completes with how reading ended (null when cancelled), or exceptionally when reading failed. */
    CompletableFuture<ReadStatus> done() {
        return done;
    }

    /** Waits at most {@code millis} for the first calls (or the end of a small capture); true when they are there. */
    boolean awaitFirstRows(long millis) {
        try {
            return firstRows.await(millis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** The first rows have been drawn: indexing goes on. */
    void painted() {
        painted.countDown();
    }

    /** Asks the load to stop (it stops within 16 K records); the calls read so far stay. */
    void cancel() {
        cancelled = true;
        painted.countDown();
    }

    /** Whether {@link #cancel()} was called. */
    boolean isCancelled() {
        return cancelled;
    }

    /** Bytes of the capture file read so far. */
    long bytesRead() {
        return bytes;
    }

    /** Size of the capture file, bytes. */
    long fileSize() {
        return fileSize;
    }

    /** Time from the start to the end of reading, ns, or -1 while it reads. */
    long nanos() {
        long e = endNanos;
        return e < 0 ? -1 : e - startNanos;
    }
}

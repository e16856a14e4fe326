package dev.zluda.capture;

import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * One record of a capture as the reader delivers it (FORMAT.md §6). Every record carries its
 * sequence number (the capture's total order), monotonic timestamp in ns, the id of the thread
 * that wrote it (its chunk's {@code threadId}) and the file offset of its frame.
 */
public sealed interface CaptureRecord {
    /** Sequence number: unique in the capture, increasing in the order things happened. */
    long seq();

    /** {@code CLOCK_MONOTONIC} in ns (same clock as the header's {@code startMonotonicNs}). */
    long ts();

    /** OS thread id of the writer. */
    long threadId();

    /** File offset of the record's length word. */
    long offset();

    /** A call begins: function id (index into the capture's function table), nesting depth, raw argument values, input data. */
    record Enter(long seq, long ts, long threadId, long offset, int functionId, int depth, long[] args,
                 List<DataItem> data) implements CaptureRecord {}

    /** A call returns: the sequence number of its ENTER, the CUresult, output data. */
    record Leave(long seq, long ts, long threadId, long offset, long enterSeq, int result,
                 List<DataItem> data) implements CaptureRecord {}

    /**
     * Content stored once by hash. {@code stored} is a view of the capture file, valid while the
     * reader is open; it holds {@code size} bytes when {@code compression} is NONE.
     */
    record Blob(long seq, long ts, long threadId, long offset, long hash, long size, int compression,
                MemorySegment stored) implements CaptureRecord {}

    /** A module image: dump file name parts, kind (PTX, ELF, ...), blob hash (0: not kept), size, handle. */
    record Module(long seq, long ts, long threadId, long offset, int library, int index, int kind, long imageHash,
                  long size, long handle, String fileName) implements CaptureRecord {}

    /**
     * A kernel snapshot (FORMAT.md §6.5): the launch's ENTER seq, function handle, mangled name, the
     * packed parameter buffer, the device buffers the parameters point into, and the launch itself
     * (module image, shape, dynamic shared memory, result) — {@code launch} is null for a record
     * written without that trailing section.
     */
    record Kernel(long seq, long ts, long threadId, long offset, long launchSeq, long function, String name,
                  byte[] params, List<KernelBuffer> buffers, KernelLaunch launch) implements CaptureRecord {
        /** A snapshot without the launch section. */
        public Kernel(long seq, long ts, long threadId, long offset, long launchSeq, long function, String name,
                      byte[] params, List<KernelBuffer> buffers) {
            this(seq, ts, threadId, offset, launchSeq, function, name, params, buffers, null);
        }
    }

    /**
     * One device buffer of a kernel snapshot: the allocation's base address, its size in bytes, and the
     * hashes of the BLOBs holding its whole content before and after the kernel (0 = not taken).
     */
    record KernelBuffer(long devicePointer, long size, long before, long after) {}

    /**
     * The launch section of a kernel snapshot (FORMAT.md §6.5).
     *
     * @param moduleHash hash of the BLOB holding the image of the kernel's module as it was loaded
     *     (PTX text, or a cubin/fatbin), 0 when not kept
     * @param gridX grid dimension in blocks (likewise {@code gridY}, {@code gridZ})
     * @param blockX block dimension in threads (likewise {@code blockY}, {@code blockZ})
     * @param sharedMemBytes dynamic shared memory per block, bytes
     * @param result the CUresult of the synchronisation after the kernel: 0 when it ran without a
     *     fault, else the error it left on the context (e.g. 700 CUDA_ERROR_ILLEGAL_ADDRESS)
     */
    record KernelLaunch(long moduleHash, long gridX, long gridY, long gridZ, long blockX, long blockY, long blockZ,
                        long sharedMemBytes, int result) {}

    /** A thread's name. */
    record ThreadName(long seq, long ts, long threadId, long offset, long namedThread, String name) implements CaptureRecord {}

    /** A user or tool annotation. */
    record Marker(long seq, long ts, long threadId, long offset, String text) implements CaptureRecord {}

    /**
     * The process ended: reason ({@code CaptureFormat.END_*}), exit status or signal, and the
     * number of chunk units reserved when it was written (a shorter file was cut).
     */
    record ProcessEnd(long seq, long ts, long threadId, long offset, int reason, long status, long units) implements CaptureRecord {}

    /** Defines string {@code id}. */
    record StringDef(long seq, long ts, long threadId, long offset, int id, String text) implements CaptureRecord {}

    /** The function table (always the capture's first record). */
    record FunctionTable(long seq, long ts, long threadId, long offset, List<FunctionDef> functions) implements CaptureRecord {}

    /** A record of a type this reader does not know (types 12..15 of a newer minor version), skipped. */
    record Unknown(long seq, long ts, long threadId, long offset, int type, int length) implements CaptureRecord {}
}

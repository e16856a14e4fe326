package dev.zluda.capture;

/**
 * Constants of the capture format, version 1.0 (trace-format/FORMAT.md): header and chunk layout,
 * record types, data item kinds, compression codes.
 */
public final class CaptureFormat {
    private CaptureFormat() {}

    /** File magic, bytes 0..7: {@code ZLUDACAP}. */
    public static final long MAGIC = 0x5041434144554C5AL; // "ZLUDACAP" little-endian
    /** Format major version this library reads and writes. */
    public static final int VERSION_MAJOR = 1;
    /** Format minor version this library writes. */
    public static final int VERSION_MINOR = 0;
    /** File header size in bytes; unit 0 starts here. */
    public static final int FILE_HEADER_SIZE = 64;
    /** Chunk header size in bytes; records start here inside a chunk. */
    public static final int CHUNK_HEADER_SIZE = 40;
    /** Chunk magic {@code ZCHK} as a little-endian u32. */
    public static final int CHUNK_MAGIC = 0x4B48435A;
    /** Bytes a writer keeps free at the end of every chunk for its SEAL frame. */
    public static final int SEAL_RESERVE = 16;
    /** Default chunk size in bytes (256 KiB). */
    public static final int DEFAULT_CHUNK_SIZE = 256 * 1024;
    /** Smallest and largest allowed chunk size in bytes. */
    public static final int MIN_CHUNK_SIZE = 4096, MAX_CHUNK_SIZE = 16 << 20;
    /** Bits of the shared ticket that hold the sequence number; the unit index is above them. */
    public static final int SEQ_BITS = 40;
    /** Mask of the sequence part of a ticket. */
    public static final long SEQ_MASK = (1L << SEQ_BITS) - 1;
    /** Largest unit index plus one (2^24). */
    public static final long MAX_UNITS = 1L << (64 - SEQ_BITS);
    /** Largest stored payload of one record (a blob) in bytes. */
    public static final int MAX_RECORD = Integer.MAX_VALUE - 64;

    /** Record types (the low 4 bits of a payload's tag byte). */
    public static final int ENTER = 1, LEAVE = 2, BLOB = 3, MODULE = 4, KERNEL = 5, THREAD_NAME = 6, MARKER = 7,
            PROCESS_END = 8, STRING = 9, FUNCTION_TABLE = 10, SEAL = 11;

    /** Data item kinds (the low 3 bits of an item head). */
    public static final int ITEM_INLINE = 0, ITEM_BLOB = 1, ITEM_STRING = 2, ITEM_HASH_ONLY = 3, ITEM_UNREADABLE = 4,
            ITEM_TRUNCATED = 5;

    /** Blob compression codes. */
    public static final int COMPRESSION_NONE = 0, COMPRESSION_LZ4 = 1, COMPRESSION_ZSTD = 2;

    /** MODULE kinds. */
    public static final int MODULE_PTX = 1, MODULE_ELF = 2, MODULE_FATBIN = 3, MODULE_OTHER = 4;

    /** PROCESS_END reasons. */
    public static final int END_EXIT = 0, END_SIGNAL = 1, END_CLOSED = 2;

    /** The name of the capture file inside a capture directory. */
    public static final String CAPTURE_FILE = "capture.zcap";
    /** The name of the manifest inside a capture directory. */
    public static final String MANIFEST_FILE = "manifest.json";

    /** Name of a record type for messages, e.g. {@code ENTER}. */
    public static String typeName(int type) {
        return switch (type) {
            case ENTER -> "ENTER"; case LEAVE -> "LEAVE"; case BLOB -> "BLOB"; case MODULE -> "MODULE";
            case KERNEL -> "KERNEL"; case THREAD_NAME -> "THREAD_NAME"; case MARKER -> "MARKER";
            case PROCESS_END -> "PROCESS_END"; case STRING -> "STRING"; case FUNCTION_TABLE -> "FUNCTION_TABLE";
            case SEAL -> "SEAL"; default -> "type " + type;
        };
    }
}

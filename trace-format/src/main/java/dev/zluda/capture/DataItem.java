package dev.zluda.capture;

/**
 * The data behind one pointer parameter, as recorded (FORMAT.md §6.13).
 *
 * @param param index of the parameter in the C signature
 * @param kind one of {@code CaptureFormat.ITEM_*}
 * @param bytes for INLINE and TRUNCATED: the bytes kept; otherwise null
 * @param hash for BLOB and HASH_ONLY: XXH64 of the full data; otherwise 0
 * @param size the full size in bytes (INLINE: bytes.length; STRING and UNREADABLE: -1)
 * @param stringId for STRING: the string id; otherwise -1
 */
public record DataItem(int param, int kind, byte[] bytes, long hash, long size, int stringId) {
    /** Whether the full bytes are present here (INLINE). */
    public boolean isInline() {
        return kind == CaptureFormat.ITEM_INLINE;
    }

    /** Kind name for display: {@code inline}, {@code blob}, {@code string}, {@code hash-only}, {@code unreadable}, {@code truncated}. */
    public String kindName() {
        return switch (kind) {
            case CaptureFormat.ITEM_INLINE -> "inline";
            case CaptureFormat.ITEM_BLOB -> "blob";
            case CaptureFormat.ITEM_STRING -> "string";
            case CaptureFormat.ITEM_HASH_ONLY -> "hash-only";
            case CaptureFormat.ITEM_UNREADABLE -> "unreadable";
            case CaptureFormat.ITEM_TRUNCATED -> "truncated";
            default -> "kind " + kind;
        };
    }
}

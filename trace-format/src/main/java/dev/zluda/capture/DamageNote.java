package dev.zluda.capture;

/**
 * One place where a capture is damaged or cut, as the reader reports it (FORMAT.md §5): where (file
 * offset, chunk, record number), what was found and what was expected, and how many records the
 * reader could not deliver because of it. Everything the reader could still decode around the
 * damage is delivered; a record it does not deliver is always counted in a note.
 *
 * @param offset file offset of the damaged bytes (for a cut: where the file ends)
 * @param chunk file offset of the chunk holding them, or -1 when they lie outside any chunk (bytes
 *     between chunks, the function table's absence)
 * @param thread the chunk's thread id (from its header), or -1
 * @param record 1-based number of the damaged record among its chunk's records, in the order they were
 *     written (the chunk's first record is 1), or 0 when the damage is not in a record
 * @param what what was found there and what was expected, e.g. {@code length word 0, but frames follow
 *     from byte 4312: the record's length word is damaged; read as a 24-byte record}
 * @param lost records not delivered because of this damage: frames skipped, records whose sequence
 *     numbers or arguments are stored relative to a damaged one; -1 when they cannot be counted (a
 *     region of bytes without a readable chunk header)
 * @param cut the file ends early (a crashed writer, a copy cut short) rather than holding wrong bytes
 */
public record DamageNote(long offset, long chunk, long thread, int record, String what, long lost, boolean cut) {
    /** The note in one line: {@code byte 4236 (record 7 of the chunk at byte 4160, thread 1000): WHAT}. */
    public String text() {
        StringBuilder sb = new StringBuilder("byte ").append(offset);
        if (chunk >= 0) {
            sb.append(" (");
            if (record > 0) sb.append("record ").append(record).append(" of ");
            sb.append("the chunk at byte ").append(chunk);
            if (thread != -1) sb.append(", thread ").append(thread);
            sb.append(')');
        }
        sb.append(": ").append(what);
        if (lost > 0) sb.append(" [").append(lost).append(lost == 1 ? " record" : " records").append(" not read]");
        else if (lost < 0) sb.append(" [records in it not read]");
        return sb.toString();
    }

    @Override
    public String toString() {
        return text();
    }
}

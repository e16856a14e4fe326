package dev.zluda.capture;

import java.util.List;

/**
 * How reading a capture ended (FORMAT.md §5).
 *
 * @param endedCleanly every record up to the capture's last one, a PROCESS_END, was read: nothing was
 *     damaged, cut or skipped, and the file holds every chunk unit the PROCESS_END counts
 * @param records records delivered
 * @param damage the damage notes, in the order the reader met them (at most {@link #MAX_NOTES}; {@code
 *     damageCount} counts them all)
 * @param damageCount how many places were damaged or cut
 * @param recordsLost records the reader knows it did not deliver ({@link DamageNote#lost()} summed
 *     over the notes that could count them)
 */
public record ReadStatus(boolean endedCleanly, long records, List<DamageNote> damage, long damageCount, long recordsLost) {
    /** Notes kept in {@link #damage()}; more are only counted. */
    public static final int MAX_NOTES = 1000;

    /** A status without damage. */
    public ReadStatus(boolean endedCleanly, long records) {
        this(endedCleanly, records, List.of(), 0, 0);
    }

    /** Whether anything was damaged or cut (some note exists). */
    public boolean stoppedEarly() {
        return damageCount > 0;
    }

    /** Whether bytes were damaged (a note that is not only the file ending early). */
    public boolean damaged() {
        return damage.stream().anyMatch(d -> !d.cut()) || damageCount > damage.size();
    }

    /** File offset of the first damage or cut the reader met, or -1. */
    public long stopOffset() {
        return damage.isEmpty() ? -1 : damage.getFirst().offset();
    }

    /** The first note's text ({@link DamageNote#text()}), or null when there is none. */
    public String stopReason() {
        return damage.isEmpty() ? null : damage.getFirst().text();
    }

    /**
     * A few words for a summary line: {@code ended cleanly}, {@code no process end (killed or crashed)},
     * or {@code damaged in 3 places, 12 records not read}.
     */
    public String summary() {
        if (endedCleanly) return "ended cleanly";
        if (damageCount == 0) return "no process end (killed or crashed)";
        StringBuilder sb = new StringBuilder(damaged() ? "damaged" : "cut");
        sb.append(damageCount == 1 ? " in 1 place" : " in " + damageCount + " places");
        if (recordsLost > 0) sb.append(", ").append(recordsLost).append(recordsLost == 1 ? " record" : " records").append(" not read");
        return sb.append(" (first: ").append(stopReason()).append(')').toString();
    }
}

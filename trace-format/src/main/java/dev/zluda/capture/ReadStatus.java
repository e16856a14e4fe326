package dev.zluda.capture;

/**
 * How reading a capture ended.
 *
 * @param endedCleanly the capture's last record is a PROCESS_END and nothing was damaged or cut
 * @param stopOffset file offset where reading stopped because of damage or a cut, or -1
 * @param stopReason why it stopped there (e.g. {@code the file ends inside a record (cut)}), or null
 * @param records records delivered
 */
public record ReadStatus(boolean endedCleanly, long stopOffset, String stopReason, long records) {
    /** Whether reading stopped early at damage or a cut. */
    public boolean stoppedEarly() {
        return stopOffset >= 0;
    }
}

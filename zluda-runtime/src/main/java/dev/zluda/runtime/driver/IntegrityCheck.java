package dev.zluda.runtime.driver;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.List;

/**
 * The answer of the INTEGRITY_CHECK export table's slot 1, with which the CUDA runtime checks that
 * it talks to the driver whose tables it got. Semantics from shared/reference/cuda-facts.md
 * ("Integrity check"): for {@code version % 10 == 0} and {@code == 1} fixed pairs; otherwise
 * HMAC-MD2 (RFC 1319 MD2, RFC 2104 HMAC with MD2's 16-byte block) under a fixed 16-byte key, over a
 * 48-byte little-endian record followed by 28 bytes per device, returned as two little-endian u64.
 */
final class IntegrityCheck {
    /** The HMAC key (cuda-facts.md). */
    static final byte[] KEY = {
        0x14, 0x6A, (byte) 0xDD, (byte) 0xAE, 0x53, (byte) 0xA9, (byte) 0xA7, 0x52,
        (byte) 0xAA, 0x08, 0x41, 0x36, 0x0B, (byte) 0xF5, 0x5A, (byte) 0x9F};
    /** MD2's block size in bytes, the HMAC block size. */
    static final int BLOCK = 16;

    private IntegrityCheck() {}

    /** What the hash covers for one device: its UUID and PCI location. */
    record Device(byte[] uuid, int pciDomain, int pciBus, int pciDevice) {}

    /**
     * The two u64 the check returns.
     *
     * @param version the caller's {@code version} argument
     * @param unixSeconds the caller's {@code unix_seconds} argument
     * @param driverVersion what cuDriverGetVersion reports (13000)
     * @param pid the process id
     * @param tid {@code pthread_self()} truncated to 32 bits
     * @param cudartTable address of the CUDART_INTERFACE table the caller got
     * @param integrityTable address of the INTEGRITY_CHECK table the caller got
     * @param integrityFn address of the integrity-check function (that table's slot 1)
     * @param devices every device, in ordinal order
     */
    static long[] compute(int version, long unixSeconds, int driverVersion, int pid, int tid,
                          long cudartTable, long integrityTable, long integrityFn, List<Device> devices) {
        switch (Integer.remainderUnsigned(version, 10)) {
            case 0 -> {
                return new long[] {0x3341181C03CB675CL, 0x8ED383AA1F4CD1E8L};
            }
            case 1 -> {
                return new long[] {0x1841181C03CB675CL, 0x8ED383AA1F4CD1E8L};
            }
            default -> {
                // fall through to the hash
            }
        }
        ByteBuffer b = ByteBuffer.allocate(48 + 28 * devices.size()).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(driverVersion).putInt(version).putInt(pid).putInt(tid);
        b.putLong(cudartTable).putLong(integrityTable).putLong(integrityFn).putLong(unixSeconds);
        for (Device d : devices) {
            b.put(d.uuid(), 0, 16).putInt(d.pciDomain()).putInt(d.pciBus()).putInt(d.pciDevice());
        }
        byte[] mac = hmacMd2(KEY, b.array());
        ByteBuffer r = ByteBuffer.wrap(mac).order(ByteOrder.LITTLE_ENDIAN);
        return new long[] {r.getLong(0), r.getLong(8)};
    }

    /** RFC 2104 HMAC over the JDK's RFC 1319 MD2 (block size 16 bytes); returns the 16-byte MAC. */
    static byte[] hmacMd2(byte[] key, byte[] message) {
        byte[] k = key.length > BLOCK ? md2().digest(key) : key;
        byte[] ipad = new byte[BLOCK], opad = new byte[BLOCK];
        for (int i = 0; i < BLOCK; i++) {
            byte ki = i < k.length ? k[i] : 0;
            ipad[i] = (byte) (ki ^ 0x36);
            opad[i] = (byte) (ki ^ 0x5c);
        }
        MessageDigest inner = md2();
        inner.update(ipad);
        inner.update(message);
        byte[] ih = inner.digest();
        MessageDigest outer = md2();
        outer.update(opad);
        outer.update(ih);
        return outer.digest();
    }

    static MessageDigest md2() {
        try {
            return MessageDigest.getInstance("MD2");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the Java runtime lacks MD2 (provider SUN)", e);
        }
    }
}

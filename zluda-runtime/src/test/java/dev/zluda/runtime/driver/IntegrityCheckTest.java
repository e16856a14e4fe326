package dev.zluda.runtime.driver;

import org.bouncycastle.crypto.digests.MD2Digest;
import org.bouncycastle.crypto.macs.HMac;
import org.bouncycastle.crypto.params.KeyParameter;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** The integrity-check hash: MD2 against RFC 1319's test suite, HMAC-MD2 against BouncyCastle's. */
class IntegrityCheckTest {
    /** An independent HMAC-MD2: BouncyCastle's HMac over its own MD2Digest. */
    static byte[] bouncyHmacMd2(byte[] key, byte[] message) {
        HMac mac = new HMac(new MD2Digest());
        mac.init(new KeyParameter(key));
        mac.update(message, 0, message.length);
        byte[] out = new byte[mac.getMacSize()];
        mac.doFinal(out, 0);
        return out;
    }

    @Test
    void md2MatchesTheRfc1319TestSuite() {
        String[][] suite = {
            {"", "8350e5a3e24c153df2275c9f80692773"},
            {"a", "32ec01ec4a6dac72c0ab96fb34c0b5d1"},
            {"abc", "da853b0d3f88d99b30283a69e6ded6bb"},
            {"message digest", "ab4f496bfb2a530b219ff33031fe06b0"},
            {"abcdefghijklmnopqrstuvwxyz", "4e8ddff3650292ab5a4108c3aa47940b"},
            {"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", "da33def2a42df13975352846c30338cd"},
            {"12345678901234567890123456789012345678901234567890123456789012345678901234567890", "d5976f79d83d3a0dc9806c3c66f3efd8"},
        };
        for (String[] t : suite) {
            assertEquals(t[1], HexFormat.of().formatHex(IntegrityCheck.md2().digest(t[0].getBytes(StandardCharsets.US_ASCII))), "MD2(\"" + t[0] + "\")");
        }
    }

    @Test
    void hmacMd2MatchesBouncyCastle() {
        Random r = new Random(1319);
        for (int keyLength : new int[] {16, 1, 15, 17, 40}) {
            for (int length : new int[] {0, 1, 15, 16, 17, 48, 76, 1000}) {
                byte[] key = new byte[keyLength], message = new byte[length];
                r.nextBytes(key);
                r.nextBytes(message);
                assertArrayEquals(bouncyHmacMd2(key, message), IntegrityCheck.hmacMd2(key, message), "key " + keyLength + ", message " + length);
            }
        }
    }

    @Test
    void constantsForVersionsEndingIn0And1() {
        List<IntegrityCheck.Device> none = List.of();
        assertArrayEquals(new long[] {0x3341181C03CB675CL, 0x8ED383AA1F4CD1E8L}, IntegrityCheck.compute(13000, 5, 13000, 1, 2, 3, 4, 5, none));
        assertArrayEquals(new long[] {0x1841181C03CB675CL, 0x8ED383AA1F4CD1E8L}, IntegrityCheck.compute(12091, 5, 13000, 1, 2, 3, 4, 5, none));
    }

    /** The record layout of cuda-facts.md, built here field by field, hashed by BouncyCastle. */
    static long[] reference(int version, long seconds, int driver, int pid, int tid, long cudart, long table, long fn, byte[] uuid, int domain, int bus, int device) {
        ByteBuffer b = ByteBuffer.allocate(48 + 28).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(driver).putInt(version).putInt(pid).putInt(tid).putLong(cudart).putLong(table).putLong(fn).putLong(seconds);
        b.put(uuid).putInt(domain).putInt(bus).putInt(device);
        ByteBuffer mac = ByteBuffer.wrap(bouncyHmacMd2(IntegrityCheck.KEY, b.array())).order(ByteOrder.LITTLE_ENDIAN);
        return new long[] {mac.getLong(0), mac.getLong(8)};
    }

    @Test
    void hashOfOtherVersionsIsHmacMd2OfTheRecord() {
        byte[] uuid = "ZLUDA-emulator\0\0".getBytes(StandardCharsets.US_ASCII);
        long[] ours = IntegrityCheck.compute(13002, 1764460800L, 13000, 4242, 0x7f001234, 0x7f0000001000L, 0x7f0000002000L, 0x7f0000003000L,
                List.of(new IntegrityCheck.Device(uuid, 0, 3, 0)));
        assertArrayEquals(reference(13002, 1764460800L, 13000, 4242, 0x7f001234, 0x7f0000001000L, 0x7f0000002000L, 0x7f0000003000L, uuid, 0, 3, 0), ours);
    }
}

package dev.zluda.runtime.emulator.conformance;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;

/**
 * The recorded outputs of {@link TextureCases} ({@code conformance/h200/texture.bin.gz}): per case its name,
 * the CRC-32 of the case (line, PTX, texels, arguments) it was recorded with, the harness's status line and
 * the output bytes. Format (gzip): {@code "ZLTEX1"}, case count, then per case UTF name, int CRC, UTF status,
 * int length, bytes (big-endian ints, Java DataOutput).
 */
public final class TextureData {
    private TextureData() {}

    /** One case as recorded. */
    public record Recorded(String name, int crc, String status, byte[] out) {
        public boolean ok() {
            return status.endsWith(" ok 0");
        }
    }

    /** CRC-32 of one case's definition. */
    public static int crc(TextureCases.Case c) {
        CRC32 crc = new CRC32();
        crc.update(c.line().getBytes(StandardCharsets.UTF_8));
        crc.update(c.ptx().getBytes(StandardCharsets.UTF_8));
        crc.update(c.texels());
        crc.update(TextureCases.argBytes(c));
        return (int) crc.getValue();
    }

    public static Map<String, Recorded> read(InputStream in) throws IOException {
        Map<String, Recorded> out = new LinkedHashMap<>();
        try (DataInputStream d = new DataInputStream(new GZIPInputStream(in))) {
            if (!d.readUTF().equals("ZLTEX1")) throw new IOException("not texture conformance data");
            int n = d.readInt();
            for (int i = 0; i < n; i++) {
                String name = d.readUTF();
                int crc = d.readInt();
                String status = d.readUTF();
                byte[] b = new byte[d.readInt()];
                d.readFully(b);
                out.put(name, new Recorded(name, crc, status, b));
            }
        }
        return out;
    }

    /**
     * {@code import OUTFILE RECORDING...}: each RECORDING is a directory with the harness's {@code out.bin}
     * (or {@code out.bin.gz}) and {@code status.txt}, recorded from the current export; a later recording's
     * successful case replaces an earlier one's.
     */
    public static void main(String[] a) throws IOException {
        if (a.length < 3 || !a[0].equals("import")) {
            System.err.println("usage: TextureData import OUTFILE RECORDING...");
            System.exit(2);
        }
        List<TextureCases.Case> cases = TextureCases.cases();
        Map<String, Recorded> merged = new LinkedHashMap<>();
        for (int k = 2; k < a.length; k++) {
            Path dir = Path.of(a[k]);
            byte[] all = Files.exists(dir.resolve("out.bin")) ? Files.readAllBytes(dir.resolve("out.bin"))
                    : new GZIPInputStream(Files.newInputStream(dir.resolve("out.bin.gz"))).readAllBytes();
            List<String> status = Files.readAllLines(dir.resolve("status.txt")).stream().filter(l -> !l.startsWith("  ")).toList();
            int off = 0;
            for (int i = 0; i < cases.size(); i++) {
                TextureCases.Case c = cases.get(i);
                byte[] b = java.util.Arrays.copyOfRange(all, off, off + c.outBytes());
                off += c.outBytes();
                String st = status.get(i);
                if (!st.startsWith(c.name() + " ")) throw new IOException("status line " + i + " is not " + c.name());
                Recorded r = new Recorded(c.name(), crc(c), st.endsWith(" ok 0") ? c.name() + " ok 0" : st, b);
                if (r.ok() || !merged.containsKey(c.name())) merged.put(c.name(), r);
            }
        }
        ByteArrayOutputStream bo = new ByteArrayOutputStream();
        try (DataOutputStream d = new DataOutputStream(new GZIPOutputStream(bo))) {
            d.writeUTF("ZLTEX1");
            d.writeInt(merged.size());
            for (Recorded r : merged.values()) {
                d.writeUTF(r.name());
                d.writeInt(r.crc());
                d.writeUTF(r.status());
                d.writeInt(r.out().length);
                d.write(r.out());
            }
        }
        Files.write(Path.of(a[1]), bo.toByteArray());
        System.out.println(merged.size() + " cases, " + merged.values().stream().filter(Recorded::ok).count() + " recorded");
    }
}

package dev.zluda.viewer;

import dev.zluda.diff.CallIndex;
import dev.zluda.capture.BlobContent;
import dev.zluda.capture.CaptureFormat;
import dev.zluda.capture.CaptureRecord;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/** The modules and blobs of an indexed capture, and their bytes. */
public final class CaptureContent {
    /** Blobs larger than this are not shown (the viewer holds a shown blob on the heap). */
    public static final long MAX_SHOWN_BYTES = 512L << 20;

    private CaptureContent() {}

    /**
     * A module image of the capture.
     *
     * @param name file name of its dump ({@code module_0001_01.ptx}), or a made-up one when it was not dumped
     * @param kind {@code CaptureFormat.MODULE_*}
     * @param handle the CUmodule / CUlibrary handle, 0 when unknown
     * @param size image size in bytes
     * @param file the dump file in the capture directory, or null
     * @param blobHash the blob holding the image, or 0
     */
    public record Module(String name, int kind, long handle, long size, Path file, long blobHash) {
        /** Whether the image is PTX text. */
        public boolean isPtx() {
            return kind == CaptureFormat.MODULE_PTX;
        }

        /** {@code PTX}, {@code ELF}, {@code fatbin} or {@code other}. */
        public String kindName() {
            return switch (kind) {
                case CaptureFormat.MODULE_PTX -> "PTX";
                case CaptureFormat.MODULE_ELF -> "ELF";
                case CaptureFormat.MODULE_FATBIN -> "fatbin";
                default -> "other";
            };
        }
    }

    /**
     * The modules: every MODULE record (its dump file when the directory has it, else its blob),
     * then dump files in the capture directory that no record names ({@code module_NNNN_NN.ptx}, {@code .elf}).
     */
    public static List<Module> modules(CallIndex index) {
        List<Module> out = new ArrayList<>();
        Set<String> named = new HashSet<>();
        Path dir = index.capture().directory();
        for (CaptureRecord.Module m : index.modules()) {
            Path f = null;
            if (!m.fileName().isEmpty() && dir != null && !m.fileName().contains("/") && Files.isRegularFile(dir.resolve(m.fileName()))) {
                f = dir.resolve(m.fileName());
            }
            // a record without a file: a fatbin (its entries are dumped as their own files, listed after the
            // records), an image kept only in the capture, or a load whose image was not kept (zluda info says why)
            String what = m.imageHash() == 0 ? "image not kept" : m.kind() == CaptureFormat.MODULE_FATBIN ? "fatbin, its entries below" : "kept in the capture";
            String name = m.fileName().isEmpty() ? String.format(Locale.ROOT, "module_%04d_%02d (%s)", m.library(), m.index(), what) : m.fileName();
            named.add(m.fileName());
            out.add(new Module(name, m.kind(), m.handle(), m.size(), f, m.imageHash()));
        }
        for (Path p : index.capture().moduleFiles()) {
            String n = p.getFileName().toString();
            if (named.contains(n) || n.endsWith(".log")) continue;
            int kind = n.endsWith(".ptx") ? CaptureFormat.MODULE_PTX : n.endsWith(".elf") ? CaptureFormat.MODULE_ELF : CaptureFormat.MODULE_OTHER;
            long size;
            try {
                size = Files.size(p);
            } catch (IOException e) {
                size = -1;
            }
            out.add(new Module(n, kind, 0, size, p, 0));
        }
        return out;
    }

    /** The image of a module: its dump file, else its blob; null when neither was kept. */
    public static byte[] bytes(CallIndex index, Module m) throws IOException {
        if (m.file() != null) {
            if (Files.size(m.file()) > MAX_SHOWN_BYTES) throw new IOException(m.file() + " is too large to show");
            return Files.readAllBytes(m.file());
        }
        if (m.blobHash() != 0) {
            CaptureRecord.Blob b = index.blob(m.blobHash());
            if (b != null) return bytes(b);
        }
        return null;
    }

    /** The uncompressed bytes of a blob. */
    public static byte[] bytes(CaptureRecord.Blob b) throws IOException {
        if (b.size() > MAX_SHOWN_BYTES) throw new IOException("blob of " + b.size() + " bytes is too large to show");
        if (!BlobContent.knownCompression(b.compression())) throw new IOException("unknown compression " + b.compression());
        try {
            return BlobContent.of(b);
        } catch (RuntimeException e) {
            throw new IOException(String.format("blob %016x does not decompress: %s", b.hash(), e.getMessage()), e);
        }
    }
}

package dev.zluda.viewer;

import dev.zluda.spec.Role;
import dev.zluda.capture.Capture;
import dev.zluda.capture.CaptureException;
import dev.zluda.capture.CaptureRecord;
import dev.zluda.capture.KernelSnapshots;
import dev.zluda.diff.DiffResult;
import dev.zluda.diff.ElementType;
import dev.zluda.diff.ElementTypes;

import java.io.IOException;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The bytes of a kernel's buffer after the launch, from the kernel snapshots (KERNEL records,
 * trace-format/FORMAT.md §6.5) of captures A and B: for a data difference at a launch call
 * ({@code cuLaunch*}) whose {@code what} names the buffer as {@code buffer N} (1-based, in the
 * snapshot's order, as {@code zluda replay --locate} counts them). Each side's snapshot is the one
 * taken for that side's launch call.
 */
final class KernelAfterImages implements DivergingBuffer.Source {
    private static final Pattern BUFFER = Pattern.compile("(?:^|\\W)buffer (\\d+)\\b");
    private final OpenCaptures captures;

    KernelAfterImages(OpenCaptures captures) {
        this.captures = captures;
    }

    @Override
    public boolean handles(DiffResult.Divergence d, DiffResult.Difference f) {
        String fn = d.function();
        return f.data() != null && Role.of(fn) == Role.KERNEL_LAUNCH && d.a().present() && d.b().present()
                && BUFFER.matcher(f.what()).find();
    }

    @Override
    public DivergingBuffer read(DiffResult.Divergence d, DiffResult.Difference f) throws IOException {
        Matcher m = BUFFER.matcher(f.what());
        if (!m.find()) throw new IOException("no buffer number in " + f.what());
        int n = Integer.parseInt(m.group(1));
        ElementType t = ElementTypes.get(f.data().elementType()).orElse(ElementTypes.U8);
        byte[] a = after(captures.get(0), "A", d.a().call(), n), b = after(captures.get(1), "B", d.b().call(), n);
        return new DivergingBuffer(f.data().buffer() + " after " + d.function() + " (A call " + d.a().call() + ", B call " + d.b().call() + ")", t, a, b);
    }

    /** Buffer {@code n} (1-based) of the snapshot of launch call {@code call}, after the kernel. */
    static byte[] after(Capture cap, String side, long call, int n) throws IOException {
        KernelSnapshots ks = KernelSnapshots.read(cap);
        for (KernelSnapshots.Snapshot s : ks.list()) {
            if (s.launchCall() != call) continue;
            List<CaptureRecord.KernelBuffer> bufs = s.record().buffers();
            if (n < 1 || n > bufs.size()) throw new IOException("the snapshot of call " + call + " in capture " + side + " has " + bufs.size() + " buffers, not " + n);
            long h = bufs.get(n - 1).after();
            if (h == 0) throw new IOException("capture " + side + " kept no after-image of buffer " + n + " of call " + call);
            try {
                return ks.blob(h, "buffer " + n + " after call " + call);
            } catch (CaptureException e) {
                throw new IOException("capture " + side + ": " + e.getMessage(), e);
            }
        }
        throw new IOException("capture " + side + " has no kernel snapshot of call " + call + " (recorded without --capture-kernels?)");
    }
}

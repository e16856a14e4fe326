package dev.zluda.viewer;

import dev.zluda.capture.Capture;
import dev.zluda.capture.CaptureException;
import dev.zluda.capture.CaptureFormat;
import dev.zluda.capture.CaptureRecord;
import dev.zluda.capture.DataItem;
import dev.zluda.capture.KernelSnapshots;
import dev.zluda.diff.DiffKind;
import dev.zluda.diff.DiffResult;
import dev.zluda.diff.ElementType;
import dev.zluda.diff.ElementTypes;
import dev.zluda.spec.CudaFunction;
import dev.zluda.spec.CudaParam;

import java.io.IOException;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The bytes of a diverging data buffer of an API call (a device-to-host copy's host buffer, a
 * host-to-device payload), read again from captures A and B: the call's ENTER (input data) or
 * LEAVE (output data) record names the buffer inline or as a BLOB. Handles the {@link DiffKind#DATA}
 * differences {@code DiffEngine} reports for a parameter as a whole ({@code dstHost (output data)});
 * not struct fields ({@code pCopy.srcHost}) or arrays of buffers.
 */
final class CopyBuffers implements DivergingBuffer.Source {
    private static final Pattern WHAT = Pattern.compile("([A-Za-z_][A-Za-z0-9_]*) \\((input|output) data\\)");
    private final OpenCaptures captures;

    CopyBuffers(OpenCaptures captures) {
        this.captures = captures;
    }

    @Override
    public boolean handles(DiffResult.Divergence d, DiffResult.Difference f) {
        return f.kind() == DiffKind.DATA && f.data() != null && d.a().present() && d.b().present();
    }

    @Override
    public DivergingBuffer read(DiffResult.Divergence d, DiffResult.Difference f) throws IOException {
        Matcher m = WHAT.matcher(f.what());
        if (!m.matches()) throw new IOException("no images for " + f.what() + ": only a whole parameter's data is drawn");
        String param = m.group(1);
        boolean out = m.group(2).equals("output");
        ElementType t = ElementTypes.get(f.data().elementType()).orElse(null);
        if (t == null) throw new IOException("only hashes were compared (" + f.data().elementType() + "): neither capture holds the bytes");
        byte[] a = bytes(captures.get(0), "A", d.a().call(), param, out);
        byte[] b = bytes(captures.get(1), "B", d.b().call(), param, out);
        return new DivergingBuffer(f.data().buffer() + " (A call " + d.a().call() + ", B call " + d.b().call() + ")", t, a, b);
    }

    /** The data of parameter {@code param} of call number {@code call} (1-based, order of entry). */
    static byte[] bytes(Capture cap, String side, long call, String param, boolean out) throws IOException {
        CaptureRecord.Enter enter = null;
        List<DataItem> items = null;
        long ordinal = 0;
        for (CaptureRecord r : cap.reader()) {
            if (enter == null && r instanceof CaptureRecord.Enter e && ++ordinal == call) {
                enter = e;
                if (!out) {
                    items = e.data();
                    break;
                }
            } else if (enter != null && r instanceof CaptureRecord.Leave l && l.enterSeq() == enter.seq()) {
                items = l.data();
                break;
            }
        }
        if (enter == null) throw new IOException("capture " + side + " has no call " + call);
        if (items == null) throw new IOException("call " + call + " of capture " + side + " never returned: no output data");
        CudaFunction spec = cap.specFunction(enter.functionId());
        int p = spec == null ? -1 : spec.param(param).map(CudaParam::index).orElse(-1);
        if (p < 0) throw new IOException(cap.functionName(enter.functionId()) + " of capture " + side + " has no parameter " + param);
        for (DataItem it : items) {
            if (it.param() != p) continue;
            if (it.kind() == CaptureFormat.ITEM_INLINE) return it.bytes();
            if (it.kind() == CaptureFormat.ITEM_BLOB) return blob(cap, side, it.hash());
            throw new IOException("capture " + side + " kept " + it.kindName() + " data for " + param + " of call " + call + ", not its bytes");
        }
        throw new IOException("capture " + side + " kept no data for " + param + " of call " + call);
    }

    /** The content of the BLOB record with this hash. */
    static byte[] blob(Capture cap, String side, long hash) throws IOException {
        for (CaptureRecord r : cap.reader()) {
            if (r instanceof CaptureRecord.Blob b && b.hash() == hash) {
                try {
                    return KernelSnapshots.content(b, cap.source());
                } catch (CaptureException e) {
                    throw new IOException("capture " + side + ": " + e.getMessage(), e);
                }
            }
        }
        throw new IOException(String.format("capture %s has no blob %016x", side, hash));
    }
}

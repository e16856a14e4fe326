package dev.zluda.runtime.hip;

import dev.zluda.ptx.ParamInfo;

import java.util.List;

/**
 * Packs {@code cuLaunchKernel}'s {@code kernelParams} into the kernel-argument buffer of an AMDGPU kernel compiled
 * by {@code dev.zluda.ptx.llvm}: each parameter's bytes at its PTX offset ({@link ParamInfo#offset()}, the C-struct
 * layout of PTX ISA 9.0 §5.1.6.1), which is where the code object's metadata puts the explicit arguments
 * (checked by the ptx module's AmdCodeObjectTest). Hidden arguments (block counts, group sizes) follow, at the
 * offsets the code object's metadata gives; the launch fills them.
 */
public final class KernelArgs {
    private KernelArgs() {}

    /**
     * The explicit-argument bytes.
     *
     * @param params the kernel's parameters (from {@code FunctionInfo.params()})
     * @param values each parameter's bytes, {@code values.get(i).length == params.get(i).size()}
     * @return a buffer of the end offset of the last parameter
     * @throws IllegalArgumentException when a value's size differs from its parameter's (CUDA_ERROR_INVALID_VALUE)
     */
    public static byte[] pack(List<ParamInfo> params, List<byte[]> values) {
        if (params.size() != values.size()) throw new IllegalArgumentException(params.size() + " parameters, " + values.size() + " values");
        long end = 0;
        for (ParamInfo p : params) end = Math.max(end, p.offset() + p.size());
        byte[] buf = new byte[(int) end];
        for (int i = 0; i < params.size(); i++) {
            ParamInfo p = params.get(i);
            byte[] v = values.get(i);
            if (v.length != p.size()) throw new IllegalArgumentException(p.name() + ": " + v.length + " bytes for a " + p.size() + "-byte parameter");
            System.arraycopy(v, 0, buf, (int) p.offset(), v.length);
        }
        return buf;
    }
}

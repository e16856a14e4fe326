package dev.zluda.spec;

/**
 * One parameter of a CUDA driver API function, from the generated spec and the hand-maintained overlay.
 *
 * @param index position in the C signature, from 0
 * @param name the name cuda.h gives it
 * @param cType the C type as written in cuda.h, e.g. {@code const CUDA_MEMCPY2D *}
 * @param format how its value is shown and treated on replay
 * @param direction for pointers: which way the pointed-to data flows; {@link Direction#IN} for values
 * @param pointeeType for pointers: the pointed-to type without {@code const}, e.g. {@code CUDA_MEMCPY2D}; null otherwise
 * @param size for pointers: how much data is behind it (elements of the pointee, or bytes); null when
 *     the data is not followed ({@code opaque}) or the parameter is no pointer
 * @param string the pointer is a NUL-terminated C string (for an output buffer, {@code size} bounds it)
 * @param opaque the pointer is passed through without being dereferenced by the driver in a way a
 *     tracer can follow (user data for callbacks, export tables)
 * @param flagsEnum for {@link FormatKind#FLAGS}: the enum whose members name the bits, or null
 * @param annotated whether the overlay says anything about this parameter
 * @param library the API whose spec declares the function ({@code cuda}, {@code cublas}, ...): where
 *     its enums, records and typedefs are looked up
 */
public record CudaParam(int index, String name, String cType, FormatKind format, Direction direction,
                        String pointeeType, SizeSpec size, boolean string, boolean opaque, String flagsEnum,
                        boolean annotated, String library) {

    /** Whether the C type is a data pointer (not a handle, not a function pointer). */
    public boolean isPointer() {
        return format == FormatKind.POINTER || format == FormatKind.STRING;
    }

    /** Human-readable one-line description: {@code [out] CUdeviceptr *dptr (1 element)}. */
    public String describe() {
        StringBuilder sb = new StringBuilder();
        if (isPointer()) sb.append('[').append(direction.name().toLowerCase(java.util.Locale.ROOT)).append("] ");
        sb.append(cType);
        if (!cType.endsWith("*")) sb.append(' ');
        sb.append(name);
        StringBuilder notes = new StringBuilder();
        if (string) notes.append("C string");
        if (opaque) notes.append(notes.isEmpty() ? "" : ", ").append("not followed");
        if (size != null) notes.append(notes.isEmpty() ? "" : ", ").append(size.describe(pointeeType));
        if (flagsEnum != null) notes.append(notes.isEmpty() ? "" : ", ").append("bits of ").append(flagsEnum);
        if (!isPointer() && notes.isEmpty()) notes.append(format.name().toLowerCase(java.util.Locale.ROOT).replace('_', ' '));
        if (!notes.isEmpty()) sb.append("  (").append(notes).append(')');
        return sb.toString();
    }

    /**
     * How much data a pointer parameter points to.
     *
     * @param expr the expression over the call's parameters
     * @param bytes true: the expression counts bytes; false: elements of the pointee type
     */
    public record SizeSpec(SizeExpr expr, boolean bytes) {
        /** e.g. {@code ByteCount bytes} or {@code 1 × CUDA_MEMCPY2D}. */
        public String describe(String pointee) {
            return bytes ? expr.text() + " bytes" : expr.text() + " × " + pointee;
        }
    }
}

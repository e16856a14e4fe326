package dev.zluda.spec;

import java.util.List;

/**
 * A C struct or union of the CUDA headers with its x86-64 Linux layout.
 *
 * @param name the first typedef name ({@code CUDA_MEMCPY2D_v2}) or, without one, the tag
 * @param tag the struct tag ({@code CUDA_MEMCPY2D_st}) or null
 * @param union true for a union
 * @param size {@code sizeof} in bytes
 * @param align {@code _Alignof} in bytes
 * @param fields members in declaration order; members of anonymous structs/unions appear flattened
 */
public record CudaRecord(String name, String tag, boolean union, int size, int align, List<Field> fields) {
    /**
     * One member.
     *
     * @param name member name
     * @param cType C type as written, {@code struct}/{@code union} for a type defined inline
     * @param offset byte offset from the start of the outermost record
     * @param size bytes
     * @param count array length, or 0 for a scalar member
     * @param fields members of an inline struct/union type (of its first element for an array), with
     *     offsets from the start of the outermost record
     */
    public record Field(String name, String cType, int offset, int size, int count, List<Field> fields) {}
}

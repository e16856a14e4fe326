package dev.zluda.spec;

import java.util.List;
import java.util.Optional;

/**
 * A C enum of the CUDA headers.
 *
 * @param name the typedef name ({@code CUresult}) or, without one, the tag
 * @param tag the enum tag ({@code cudaError_enum}) or null
 * @param size {@code sizeof} in bytes on x86-64 Linux
 * @param members in declaration order, with the values the compiler computes
 */
public record CudaEnum(String name, String tag, int size, List<Member> members) {
    /** One enumerator. */
    public record Member(String name, long value) {}

    /** The first member with this value (the canonical name), if any. */
    public Optional<String> nameOf(long value) {
        return members.stream().filter(m -> m.value == value).map(Member::name).findFirst();
    }

    /** The value of a member, if it exists. */
    public Optional<Long> valueOf(String member) {
        return members.stream().filter(m -> m.name.equals(member)).map(Member::value).findFirst();
    }
}

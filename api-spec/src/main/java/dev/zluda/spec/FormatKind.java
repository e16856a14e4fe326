package dev.zluda.spec;

/**
 * How a parameter value is shown in a trace ({@code name(arg: value) -> CUDA_SUCCESS}) and how a
 * replayer treats it.
 */
public enum FormatKind {
    /** An opaque driver object ({@code CUcontext}, {@code CUstream}, ...) or a value handle such as {@code CUdevice}; shown as recorded, remapped on replay. */
    HANDLE,
    /** {@code CUdeviceptr}: a device address; shown in hex, remapped on replay. */
    DEVICE_POINTER,
    /** A C enum; shown by member name. */
    ENUM,
    /** An integer bit set ({@code unsigned int Flags}); shown as names joined by {@code |} where the enum is known. */
    FLAGS,
    /** {@code size_t} byte counts and sizes; shown in decimal. */
    SIZE,
    /** Any other integer; shown in decimal. */
    INTEGER,
    /** {@code float} or {@code double}. */
    FLOAT,
    /** A pointer to host data of a known type and direction; shown as the address, the pointed-to value after it. */
    POINTER,
    /** A NUL-terminated C string ({@code const char *}); shown quoted. */
    STRING,
    /** A pointer to a host function (callback); shown as an address. */
    FUNCTION_POINTER,
    /** A struct or union passed by value. */
    RECORD
}

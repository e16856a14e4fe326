package dev.zluda.ptx;

/**
 * The layout of one kernel or function parameter in the parameter buffer: what
 * {@code cuFuncGetParamInfo} reports and where {@code cuLaunchKernel}'s {@code kernelParams[index]}
 * is copied to. Parameters are placed in declaration order, each at the next offset that is a
 * multiple of its alignment (PTX ISA 9.0, 5.1.6.1 "Kernel Function Parameters" and 5.4.5 "Alignment";
 * the CUDA ABI lays out a kernel's arguments like the fields of a C struct).
 *
 * @param index     0-based position in the parameter list
 * @param name      the parameter's name
 * @param offset    byte offset in the parameter buffer
 * @param size      size in bytes
 * @param alignment alignment in bytes
 * @param variable  the resolved declaration (type, vector width, array dims, {@code .ptr} attributes)
 */
public record ParamInfo(int index, String name, long offset, long size, long alignment, VariableInfo variable) {}

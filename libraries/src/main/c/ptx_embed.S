/*
 * Embeds blas_kernels.ptx in zluda's libcublas.so.13 and libcublasLt.so.13 as the NUL-terminated
 * string `zl_blas_ptx` (cuModuleLoadData needs the terminating NUL for PTX text), hidden from the
 * library's exports. Assembled by the Makefile with -DPTX_FILE='"path/to/blas_kernels.ptx"'.
 */
#ifndef PTX_FILE
#error "PTX_FILE must name the .ptx file to embed"
#endif
    .section .rodata
    .balign 16
    .globl zl_blas_ptx
    .hidden zl_blas_ptx
    .type zl_blas_ptx, @object
zl_blas_ptx:
    .incbin PTX_FILE
    .byte 0
    .size zl_blas_ptx, . - zl_blas_ptx

    .section .note.GNU-stack, "", @progbits

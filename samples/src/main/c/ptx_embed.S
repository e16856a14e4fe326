/*
 * Embeds one PTX file in a sample binary as the NUL-terminated string `sample_ptx`
 * (cuModuleLoadData needs the terminating NUL for PTX text).
 * Assembled once per sample by the Makefile with -DPTX_FILE='"path/to/name.ptx"'.
 */
#ifndef PTX_FILE
#error "PTX_FILE must name the .ptx file to embed"
#endif
    .section .rodata
    .balign 16
    .globl sample_ptx
    .type sample_ptx, @object
sample_ptx:
    .incbin PTX_FILE
    .byte 0
    .size sample_ptx, . - sample_ptx

    .section .note.GNU-stack, "", @progbits

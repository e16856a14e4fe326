/*
 * Embeds one fatbin in a sample binary as `<name>_fatbin` (16-byte aligned, as nvcc places fatbins)
 * and its size as `<name>_fatbin_size` (unsigned int). Assembled by the Makefile with
 * -DFATBIN_FILE='"path/to/name.fatbin"' -DFATBIN_SYM=name_fatbin -DFATBIN_SIZE_SYM=name_fatbin_size.
 */
#if !defined(FATBIN_FILE) || !defined(FATBIN_SYM) || !defined(FATBIN_SIZE_SYM)
#error "FATBIN_FILE, FATBIN_SYM and FATBIN_SIZE_SYM must be defined"
#endif
    .section .rodata
    .balign 16
    .globl FATBIN_SYM
    .type FATBIN_SYM, @object
FATBIN_SYM:
    .incbin FATBIN_FILE
1:
    .size FATBIN_SYM, 1b - FATBIN_SYM
    .balign 4
    .globl FATBIN_SIZE_SYM
    .type FATBIN_SIZE_SYM, @object
FATBIN_SIZE_SYM:
    .long 1b - FATBIN_SYM
    .size FATBIN_SIZE_SYM, 4

    .section .note.GNU-stack, "", @progbits

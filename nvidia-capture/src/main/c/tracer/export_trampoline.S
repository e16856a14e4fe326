/*
 * The generic forwarder of wrapped export-table slots (export_tables.c), x86-64 System V.
 *
 * zt_export_stubs is an array of ZT_EXPORT_STUBS entries of 16 bytes; entry i loads i into r11 and
 * jumps to zt_export_trampoline, which does not know the slot's signature and so keeps everything a
 * call can pass: it saves the six integer argument registers, rax (the vector-register count of a
 * variadic call) and xmm0-7, calls zt_slot_enter(regs, ctx) (which records ENTER and stores the
 * target function in regs->fn), copies 16 words of the caller's stack arguments, restores the
 * registers and calls the target; then it saves rax, rdx, xmm0 and xmm1 (every return value the
 * ABI has but x87), calls zt_slot_leave(regs, ctx) (which records LEAVE and may change the saved
 * return value) and returns it.
 *
 * Frame (offsets from rsp after the prologue): 0..127 the outgoing stack arguments; 128 zt_regs
 * (tracer.h: rdi rsi rdx rcx r8 r9 rax index fn pad, xmm0-7, ret rax rdx xmm0 xmm1: 256 bytes);
 * 384 the call's context (ZT_SLOT_CTX_SIZE = 1024 bytes). 1408 bytes in all, a multiple of 16.
 */
#define ZT_EXPORT_STUBS 2048

    .text
    .globl zt_export_trampoline
    .hidden zt_export_trampoline
    .type zt_export_trampoline, @function
    .balign 16
zt_export_trampoline:
    .cfi_startproc
    pushq %rbp
    .cfi_def_cfa_offset 16
    .cfi_offset %rbp, -16
    movq %rsp, %rbp
    .cfi_def_cfa_register %rbp
    subq $1408, %rsp
    movq %rdi, 128(%rsp)
    movq %rsi, 136(%rsp)
    movq %rdx, 144(%rsp)
    movq %rcx, 152(%rsp)
    movq %r8, 160(%rsp)
    movq %r9, 168(%rsp)
    movq %rax, 176(%rsp)
    movq %r11, 184(%rsp)
    movdqu %xmm0, 208(%rsp)
    movdqu %xmm1, 224(%rsp)
    movdqu %xmm2, 240(%rsp)
    movdqu %xmm3, 256(%rsp)
    movdqu %xmm4, 272(%rsp)
    movdqu %xmm5, 288(%rsp)
    movdqu %xmm6, 304(%rsp)
    movdqu %xmm7, 320(%rsp)
    leaq 128(%rsp), %rdi
    leaq 384(%rsp), %rsi
    call zt_slot_enter
    .irp i, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15
    movq 16+8*\i(%rbp), %rax
    movq %rax, 8*\i(%rsp)
    .endr
    movdqu 208(%rsp), %xmm0
    movdqu 224(%rsp), %xmm1
    movdqu 240(%rsp), %xmm2
    movdqu 256(%rsp), %xmm3
    movdqu 272(%rsp), %xmm4
    movdqu 288(%rsp), %xmm5
    movdqu 304(%rsp), %xmm6
    movdqu 320(%rsp), %xmm7
    movq 128(%rsp), %rdi
    movq 136(%rsp), %rsi
    movq 144(%rsp), %rdx
    movq 152(%rsp), %rcx
    movq 160(%rsp), %r8
    movq 168(%rsp), %r9
    movq 176(%rsp), %rax
    call *192(%rsp)
    movq %rax, 336(%rsp)
    movq %rdx, 344(%rsp)
    movdqu %xmm0, 352(%rsp)
    movdqu %xmm1, 368(%rsp)
    leaq 128(%rsp), %rdi
    leaq 384(%rsp), %rsi
    call zt_slot_leave
    movq 336(%rsp), %rax
    movq 344(%rsp), %rdx
    movdqu 352(%rsp), %xmm0
    movdqu 368(%rsp), %xmm1
    leave
    .cfi_def_cfa %rsp, 8
    ret
    .cfi_endproc
    .size zt_export_trampoline, .-zt_export_trampoline

    .globl zt_export_stubs
    .hidden zt_export_stubs
    .type zt_export_stubs, @function
    .balign 16
zt_export_stubs:
    .set zt_i, 0
    .rept ZT_EXPORT_STUBS
    .balign 16
    movl $zt_i, %r11d
    jmp zt_export_trampoline
    .set zt_i, zt_i + 1
    .endr
    .size zt_export_stubs, .-zt_export_stubs

    .section .note.GNU-stack, "", @progbits

// The syscall fuzzer's register-checking system call and clone for x86-64 (the native differential lane).
//
// long sysfuzz_svc(const struct svc_regs* in, struct svc_regs* out): loads the general registers and
// xmm0-xmm15 from `in` (rax the number, rdi rsi rdx r10 r8 r9 the arguments, the rest patterns), makes the
// call, and stores them into `out`. Linux preserves all of them across a system call but rax (the result)
// and rcx and r11 (which `syscall` itself uses). struct svc_regs: r[16] in encoding order (rax rcx rdx rbx
// rsp rbp rsi rdi r8..r15; r[4] is the rsp after the call) at 0, sp_before at 128, xmm[16] at 144.
//
// long sysfuzz_clone(flags, stack, ptid, tls, ctid, fn, arg): a raw clone whose child calls fn(arg).
        .text
        .global sysfuzz_svc
        .type sysfuzz_svc, @function
sysfuzz_svc:
        push    %rbx
        push    %rbp
        push    %r12
        push    %r13
        push    %r14
        push    %r15
        push    %rsi
        mov     %rsp, 128(%rsi)
        movdqu  144(%rdi), %xmm0
        movdqu  160(%rdi), %xmm1
        movdqu  176(%rdi), %xmm2
        movdqu  192(%rdi), %xmm3
        movdqu  208(%rdi), %xmm4
        movdqu  224(%rdi), %xmm5
        movdqu  240(%rdi), %xmm6
        movdqu  256(%rdi), %xmm7
        movdqu  272(%rdi), %xmm8
        movdqu  288(%rdi), %xmm9
        movdqu  304(%rdi), %xmm10
        movdqu  320(%rdi), %xmm11
        movdqu  336(%rdi), %xmm12
        movdqu  352(%rdi), %xmm13
        movdqu  368(%rdi), %xmm14
        movdqu  384(%rdi), %xmm15
        mov     0(%rdi), %rax
        mov     8(%rdi), %rcx
        mov     16(%rdi), %rdx
        mov     24(%rdi), %rbx
        mov     40(%rdi), %rbp
        mov     48(%rdi), %rsi
        mov     64(%rdi), %r8
        mov     72(%rdi), %r9
        mov     80(%rdi), %r10
        mov     88(%rdi), %r11
        mov     96(%rdi), %r12
        mov     104(%rdi), %r13
        mov     112(%rdi), %r14
        mov     120(%rdi), %r15
        mov     56(%rdi), %rdi
        syscall
        push    %rdi
        mov     8(%rsp), %rdi
        mov     %rax, 0(%rdi)
        mov     %rcx, 8(%rdi)
        mov     %rdx, 16(%rdi)
        mov     %rbx, 24(%rdi)
        mov     %rbp, 40(%rdi)
        mov     %rsi, 48(%rdi)
        mov     %r8, 64(%rdi)
        mov     %r9, 72(%rdi)
        mov     %r10, 80(%rdi)
        mov     %r11, 88(%rdi)
        mov     %r12, 96(%rdi)
        mov     %r13, 104(%rdi)
        mov     %r14, 112(%rdi)
        mov     %r15, 120(%rdi)
        pop     %rsi
        mov     %rsi, 56(%rdi)
        mov     %rsp, 32(%rdi)
        movdqu  %xmm0, 144(%rdi)
        movdqu  %xmm1, 160(%rdi)
        movdqu  %xmm2, 176(%rdi)
        movdqu  %xmm3, 192(%rdi)
        movdqu  %xmm4, 208(%rdi)
        movdqu  %xmm5, 224(%rdi)
        movdqu  %xmm6, 240(%rdi)
        movdqu  %xmm7, 256(%rdi)
        movdqu  %xmm8, 272(%rdi)
        movdqu  %xmm9, 288(%rdi)
        movdqu  %xmm10, 304(%rdi)
        movdqu  %xmm11, 320(%rdi)
        movdqu  %xmm12, 336(%rdi)
        movdqu  %xmm13, 352(%rdi)
        movdqu  %xmm14, 368(%rdi)
        movdqu  %xmm15, 384(%rdi)
        mov     0(%rdi), %rax
        pop     %rsi
        pop     %r15
        pop     %r14
        pop     %r13
        pop     %r12
        pop     %rbp
        pop     %rbx
        ret
        .size sysfuzz_svc, .-sysfuzz_svc

        .global sysfuzz_clone
        .type sysfuzz_clone, @function
sysfuzz_clone:
        push    %r12
        push    %r13
        mov     %r9, %r12
        mov     24(%rsp), %r13
        mov     %r8, %r10
        mov     %rcx, %r8
        mov     $56, %eax
        syscall
        test    %rax, %rax
        jz      1f
        pop     %r13
        pop     %r12
        ret
1:      xor     %ebp, %ebp
        and     $-16, %rsp
        mov     %r13, %rdi
        call    *%r12
        mov     $60, %eax
        xor     %edi, %edi
        syscall
        hlt
        .size sysfuzz_clone, .-sysfuzz_clone

        .section .note.GNU-stack,"",@progbits

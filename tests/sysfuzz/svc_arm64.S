// The syscall fuzzer's register-checking system call, clone and sigreturn landing for arm64.
//
// long sysfuzz_svc(const struct svc_regs* in, struct svc_regs* out): loads x0-x30 and v0-v31 from `in` (x0-x5
// the arguments, x8 the number, every other register a pattern), makes the call, and stores every register
// and SP into `out`. Linux preserves all of them but x0 across a system call; the caller compares.
// struct svc_regs: x[31] at 0, sp_after at 248, sp_before at 256, v[32] (lo, hi) at 272.
//
// long sysfuzz_clone(flags, stack, ptid, tls, ctid, fn, arg): a raw clone whose child calls fn(arg) on
// `stack` (or on a copy of this one) and then exits.
//
// sysfuzz_landing: where a sigreturn test points a frame's pc; saves every register on the frame's stack
// and calls sysfuzz_landed(saved, sp), which never returns.
        .text
        .global sysfuzz_svc
        .type sysfuzz_svc, %function
sysfuzz_svc:
        sub     sp, sp, #176
        stp     x29, x30, [sp, #0]
        stp     x19, x20, [sp, #16]
        stp     x21, x22, [sp, #32]
        stp     x23, x24, [sp, #48]
        stp     x25, x26, [sp, #64]
        stp     x27, x28, [sp, #80]
        stp     d8, d9, [sp, #96]
        stp     d10, d11, [sp, #112]
        stp     d12, d13, [sp, #128]
        stp     d14, d15, [sp, #144]
        str     x1, [sp, #160]
        mov     x9, sp
        str     x9, [x1, #256]
        add     x9, x0, #272
        ld1     {v0.2d, v1.2d, v2.2d, v3.2d}, [x9], #64
        ld1     {v4.2d, v5.2d, v6.2d, v7.2d}, [x9], #64
        ld1     {v8.2d, v9.2d, v10.2d, v11.2d}, [x9], #64
        ld1     {v12.2d, v13.2d, v14.2d, v15.2d}, [x9], #64
        ld1     {v16.2d, v17.2d, v18.2d, v19.2d}, [x9], #64
        ld1     {v20.2d, v21.2d, v22.2d, v23.2d}, [x9], #64
        ld1     {v24.2d, v25.2d, v26.2d, v27.2d}, [x9], #64
        ld1     {v28.2d, v29.2d, v30.2d, v31.2d}, [x9], #64
        ldp     x1, x2, [x0, #8]
        ldp     x3, x4, [x0, #24]
        ldp     x5, x6, [x0, #40]
        ldp     x7, x8, [x0, #56]
        ldp     x9, x10, [x0, #72]
        ldp     x11, x12, [x0, #88]
        ldp     x13, x14, [x0, #104]
        ldp     x15, x16, [x0, #120]
        ldp     x17, x18, [x0, #136]
        ldp     x19, x20, [x0, #152]
        ldp     x21, x22, [x0, #168]
        ldp     x23, x24, [x0, #184]
        ldp     x25, x26, [x0, #200]
        ldp     x27, x28, [x0, #216]
        ldp     x29, x30, [x0, #232]
        ldr     x0, [x0, #0]
        svc     #0
        stp     x0, x1, [sp, #-16]!
        ldr     x1, [sp, #176]
        ldr     x0, [sp, #0]
        str     x0, [x1, #0]
        ldr     x0, [sp, #8]
        str     x0, [x1, #8]
        add     sp, sp, #16
        stp     x2, x3, [x1, #16]
        stp     x4, x5, [x1, #32]
        stp     x6, x7, [x1, #48]
        stp     x8, x9, [x1, #64]
        stp     x10, x11, [x1, #80]
        stp     x12, x13, [x1, #96]
        stp     x14, x15, [x1, #112]
        stp     x16, x17, [x1, #128]
        stp     x18, x19, [x1, #144]
        stp     x20, x21, [x1, #160]
        stp     x22, x23, [x1, #176]
        stp     x24, x25, [x1, #192]
        stp     x26, x27, [x1, #208]
        stp     x28, x29, [x1, #224]
        str     x30, [x1, #240]
        mov     x2, sp
        str     x2, [x1, #248]
        add     x2, x1, #272
        st1     {v0.2d, v1.2d, v2.2d, v3.2d}, [x2], #64
        st1     {v4.2d, v5.2d, v6.2d, v7.2d}, [x2], #64
        st1     {v8.2d, v9.2d, v10.2d, v11.2d}, [x2], #64
        st1     {v12.2d, v13.2d, v14.2d, v15.2d}, [x2], #64
        st1     {v16.2d, v17.2d, v18.2d, v19.2d}, [x2], #64
        st1     {v20.2d, v21.2d, v22.2d, v23.2d}, [x2], #64
        st1     {v24.2d, v25.2d, v26.2d, v27.2d}, [x2], #64
        st1     {v28.2d, v29.2d, v30.2d, v31.2d}, [x2], #64
        ldr     x0, [x1, #0]
        ldp     x29, x30, [sp, #0]
        ldp     x19, x20, [sp, #16]
        ldp     x21, x22, [sp, #32]
        ldp     x23, x24, [sp, #48]
        ldp     x25, x26, [sp, #64]
        ldp     x27, x28, [sp, #80]
        ldp     d8, d9, [sp, #96]
        ldp     d10, d11, [sp, #112]
        ldp     d12, d13, [sp, #128]
        ldp     d14, d15, [sp, #144]
        add     sp, sp, #176
        ret
        .size sysfuzz_svc, .-sysfuzz_svc

        .global sysfuzz_clone
        .type sysfuzz_clone, %function
sysfuzz_clone:
        mov     x9, x5
        mov     x10, x6
        mov     x8, #220
        svc     #0
        cbz     x0, 1f
        ret
1:      mov     x29, #0
        mov     x30, #0
        mov     x0, x10
        blr     x9
        mov     x0, #0
        mov     x8, #93
        svc     #0
        brk     #0
        .size sysfuzz_clone, .-sysfuzz_clone

        .global sysfuzz_landing
        .type sysfuzz_landing, %function
sysfuzz_landing:
        sub     sp, sp, #800
        stp     x0, x1, [sp, #0]
        stp     x2, x3, [sp, #16]
        stp     x4, x5, [sp, #32]
        stp     x6, x7, [sp, #48]
        stp     x8, x9, [sp, #64]
        stp     x10, x11, [sp, #80]
        stp     x12, x13, [sp, #96]
        stp     x14, x15, [sp, #112]
        stp     x16, x17, [sp, #128]
        stp     x18, x19, [sp, #144]
        stp     x20, x21, [sp, #160]
        stp     x22, x23, [sp, #176]
        stp     x24, x25, [sp, #192]
        stp     x26, x27, [sp, #208]
        stp     x28, x29, [sp, #224]
        str     x30, [sp, #240]
        add     x0, sp, #272
        st1     {v0.2d, v1.2d, v2.2d, v3.2d}, [x0], #64
        st1     {v4.2d, v5.2d, v6.2d, v7.2d}, [x0], #64
        st1     {v8.2d, v9.2d, v10.2d, v11.2d}, [x0], #64
        st1     {v12.2d, v13.2d, v14.2d, v15.2d}, [x0], #64
        st1     {v16.2d, v17.2d, v18.2d, v19.2d}, [x0], #64
        st1     {v20.2d, v21.2d, v22.2d, v23.2d}, [x0], #64
        st1     {v24.2d, v25.2d, v26.2d, v27.2d}, [x0], #64
        st1     {v28.2d, v29.2d, v30.2d, v31.2d}, [x0], #64
        mov     x0, sp
        add     x1, sp, #800
        bl      sysfuzz_landed
        brk     #0
        .size sysfuzz_landing, .-sysfuzz_landing

        .section .note.GNU-stack,"",%progbits

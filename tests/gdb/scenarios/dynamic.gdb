# A dynamically linked program, with gdb's default sysroot: gdb reads the loader and libc from the stub
# (vFile, the sysroot's files as the program sees them), follows the link map and breaks in the program.
# program: debuggee_dynamic
# sysroot
# qemu-gap: qemu-aarch64 7.2 has no vFile packets: gdb looks for /lib/ld-linux-aarch64.so.1 on the host
break add
continue
# expect: Breakpoint 1, add \(a=0, b=10\) at .*debuggee.c
break write
info sharedlibrary
# expect: target:/usr/aarch64-linux-gnu/lib/libc\.so\.6|target:/lib/libc\.so\.6
# reject: does not support file transfer
delete
continue
# expect: exited normally
# exit: 0

# A dynamically linked program: gdb follows the loader's link map and breaks in the program and in libc.
# program: debuggee_dynamic
# sysroot
break add
continue
# expect: Breakpoint 1, add \(a=0, b=10\) at .*debuggee.c
break write
info sharedlibrary
# expect: /usr/aarch64-linux-gnu/lib/libc\.so\.6
delete
continue
# expect: exited normally
# exit: 0

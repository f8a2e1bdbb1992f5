# The program closes every descriptor from 3 up (close_range): the stub's are a64run's own (reserved), so
# the session goes on.
# args: closefds
# qemu-gap: qemu-aarch64 7.2 lets the program close its gdb socket; the breakpoint's trap then kills it
break add
continue
# expect: Breakpoint 1, add \(a=0, b=10\)
delete
continue
# expect: exited normally
# exit: 0

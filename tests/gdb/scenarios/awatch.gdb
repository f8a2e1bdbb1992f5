# An access watchpoint (Z4) stops at the store to `watched`, not at the stores to its neighbour on the same
# page.
# qemu-gap: qemu-aarch64 7.2 refuses gdb's watchpoints in user mode ("Could not insert hardware watchpoint")
break poke
continue
awatch watched
# expect: Hardware access \(read/write\) watchpoint 2: watched
continue
# expect: Hardware access \(read/write\) watchpoint 2: watched
# expect: New value = 42
# expect: neighbour = 6;
delete
continue
# expect: exited normally
# exit: 0

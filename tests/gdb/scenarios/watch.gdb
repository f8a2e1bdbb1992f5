# A write watchpoint stops right after the store to `watched`, not at the stores to its neighbour; a read
# watchpoint stops at the load of read_me.
# qemu-gap: qemu-aarch64 7.2 refuses gdb's watchpoints in user mode ("Could not insert hardware watchpoint")
break poke
continue
watch watched
# expect: Hardware watchpoint 2: watched
continue
# expect: Hardware watchpoint 2: watched
# expect: Old value = 0
# expect: New value = 42
# expect: neighbour = 6;
delete
rwatch read_me
# expect: Hardware read watchpoint 3: read_me
continue
# expect: Hardware read watchpoint 3: read_me
# expect: Value = 5
# expect: peek \(\) at
delete
continue
# expect: exited normally
# exit: 0

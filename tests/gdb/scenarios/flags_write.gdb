# Writing NZCV where a translated block left it lazy (after a CMP, at the start of the next block): the
# debugger reads the compare's flags, writes others, and the program's MRS reads the written ones.
break *flags_set
continue
# expect: Breakpoint 1, 0x[0-9a-f]+ in flags_probe \(\)|Breakpoint 1, flags_probe \(\)
print/x $cpsr & 0xf0000000
# expect: = 0x60000000
set $cpsr = ($cpsr & 0x0fffffff) | 0x80000000
print/x $cpsr & 0xf0000000
# expect: = 0x80000000
finish
# expect: Value returned is \$\d+ = 2147483648
delete
continue
# expect: exited normally
# exit: 0

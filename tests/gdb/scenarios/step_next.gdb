# step into a call, next over one, stepi by one instruction, and until/advance within main.
break main
continue
# expect: Breakpoint 1, main \(argc=1, argv=0x[0-9a-f]+\) at .*debuggee.c:\d+
next
next
next
# expect: total \+= add\(i, 10\);
step
# expect: add \(a=0, b=10\) at .*debuggee.c:\d+
print $pc
stepi
print $pc - $1
# expect: \$2 = 4
finish
delete
continue
# expect: exited normally
# exit: 0

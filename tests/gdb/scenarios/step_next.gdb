# next over a line, step into a call, stepi by one instruction, finish back to the caller.
break step_here
continue
# expect: Breakpoint 1, step_here \(\) at .*debuggee.c:\d+
# expect: int total = 0;
next
# expect: total \+= add\(i, 10\);
step
# expect: add \(a=0, b=10\) at .*debuggee.c:\d+
print $pc
stepi
print $pc - $1
# expect: \$2 = 4
finish
# expect: step_here \(\) at .*debuggee.c:\d+
# expect: Value returned is \$3 = 10
delete
continue
# expect: exited normally
# exit: 0

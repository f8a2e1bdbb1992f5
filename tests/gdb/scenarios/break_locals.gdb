# A breakpoint at a function, its arguments and locals, the caller's frame, next, finish, the return value.
# expect: Breakpoint 1 at 0x[0-9a-f]+: file .*debuggee.c
break add
continue
# expect: Breakpoint 1, add \(a=0, b=10\) at .*debuggee.c:\d+
backtrace
# expect: #0 +add \(a=0, b=10\) at
# expect: #1 +0x[0-9a-f]+ in step_here \(\) at .*debuggee.c
# expect: #2 +0x[0-9a-f]+ in main \(argc=1, argv=0x[0-9a-f]+\) at .*debuggee.c
next
print sum
# expect: \$1 = 10
finish
# expect: Value returned is \$2 = 10
continue
# expect: Breakpoint 1, add \(a=1, b=10\)
up
info locals
# expect: total = 10
delete
continue
# expect: \[Inferior 1 \(.*\) exited normally\]
# exit: 0

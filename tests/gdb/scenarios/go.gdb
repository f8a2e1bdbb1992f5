# A Go program: break at main.main, a backtrace, a function's argument, a package variable.
# program: debuggee_go
# qemu-flaky: qemu-aarch64 7.2's stub sometimes hands a breakpoint's trap to the program (a Go thread dies of
# SIGTRAP at main.main) when another thread stops at the same time
break main.main
continue
# expect: Breakpoint 1, main\.main \(\) at .*main\.go:\d+
break main.square
continue
# expect: Breakpoint 2, main\.square \(x=0
backtrace
# expect: #0 +main\.square \(x=0
# expect: #1 +0x[0-9a-f]+ in main\.main \(\) at .*main\.go:\d+
print x
# expect: \$1 = 0
print main.counter
# expect: \$2 = 3
delete
continue
# expect: exited with code 05
# exit: 5

# A guest segfault stops at the faulting instruction with its siginfo; continuing delivers it.
# args: segv
continue
# expect: Program received signal SIGSEGV, Segmentation fault\.
# expect: main \(argc=2, argv=0x[0-9a-f]+\) at .*debuggee.c:\d+
x/i $pc
# expect: => 0x[0-9a-f]+ <main\+\d+>:\s+str\s+w\d+, \[x\d+\]
continue
# expect: Program terminated with signal SIGSEGV, Segmentation fault\.
# exit: 139

# stepi over a system call: exactly one instruction, with the call's result in x0.
# qemu-gap: qemu-aarch64 7.2's stepi over svc runs on to the end of the translation block (here into main)
break *svc_here
continue
# expect: Breakpoint 1, raw_getpid \(\) at
x/i $pc
# expect: => 0x[0-9a-f]+ <(svc_here|raw_getpid\+\d+)>:\s+svc\s+#0x0
stepi
print (long)$pc - (long)&svc_here
# expect: \$1 = 4
print $x0 == my_pid
# expect: \$2 = 1
delete
continue
# expect: exited normally
# exit: 0

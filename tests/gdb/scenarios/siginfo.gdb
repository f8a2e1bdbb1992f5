# $_siginfo of a fault (qXfer:siginfo:read): the signal and the faulting address.
# args: segv
# qemu-gap: qemu-aarch64 7.2 has no qXfer:siginfo:read ("Unable to read siginfo")
continue
# expect: Program received signal SIGSEGV, Segmentation fault\.
print $_siginfo.si_signo
# expect: = 11
print $_siginfo.si_code
# expect: = 1
print $_siginfo._sifields._sigfault.si_addr
# expect: = \(void \*\) 0x10
continue
# expect: Program terminated with signal SIGSEGV, Segmentation fault\.
# exit: 139

# A signal stops the program first; continue passes it on and the handler runs (exit 0).
# args: signal
continue
# expect: Program received signal SIGUSR1, User defined signal 1\.
continue
# expect: exited normally
# exit: 0

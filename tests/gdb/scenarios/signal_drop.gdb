# `signal 0` drops the signal gdb stopped for: the handler never runs and the program exits 9.
# args: signal
continue
# expect: Program received signal SIGUSR1, User defined signal 1\.
signal 0
# expect: exited with code 011
# exit: 9

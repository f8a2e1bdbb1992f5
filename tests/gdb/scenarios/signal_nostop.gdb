# handle nostop pass (QPassSignals): SIGUSR1 reaches the handler without a stop.
# args: signal
handle SIGUSR1 nostop noprint pass
continue
# reject: Program received signal SIGUSR1
# expect: exited normally
# exit: 0

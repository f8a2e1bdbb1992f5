# A breakpoint hit in a second thread, every thread listed, and the other thread's registers and stack.
break worker_bp
continue
# expect: \[New Thread (0x)?[0-9a-f.]+
# expect: Thread 2 .*hit Breakpoint 1, worker_bp \(round=0\)
info threads
# expect: 1 +Thread [0-9a-f.]+ 
# expect: \* 2 +Thread [0-9a-f.]+ .*worker_bp \(round=0\) at
backtrace
# expect: #1 +0x[0-9a-f]+ in worker \(arg=0x0\) at
continue
# expect: Thread 2 .*hit Breakpoint 1, worker_bp \(round=1\)
thread 1
# expect: Switching to thread 1
delete
continue
# expect: exited normally
# exit: 0

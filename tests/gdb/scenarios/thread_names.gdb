# Thread names (qXfer:threads:read): the program's name, as the guest's /proc/self/comm shows it.
# qemu-gap: qemu-aarch64 7.2 names no threads (its qXfer:threads has "CPU#n [running]" for extra info only)
break worker_bp
continue
# expect: Thread 2 "debuggee" hit Breakpoint 1, worker_bp \(round=0\)
info threads
# expect: 1 +Thread [0-9a-f.]+ "debuggee"
# expect: \* 2 +Thread [0-9a-f.]+ "debuggee" worker_bp \(round=0\) at
kill
# exit: 137

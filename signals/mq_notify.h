// POSIX message queue notifications (mq_notify with SIGEV_SIGNAL): the registration is the host's, made with
// the timers' host signal and the queue descriptor as its value, so the host kernel decides when it fires
// (a message arriving on an empty queue with no receiver waiting) and drops it after; the intake thread turns
// the host's SI_MESGQ signal into the guest's signal and value, which this table remembers per descriptor.
#pragma once

#include <csignal>
#include <map>
#include <mutex>

#include "syscalls/abi/signal.h"

namespace emu {
class Process;
}

namespace signals {

struct MqNotification {
  int signo = 0;
  guest::sigval_t value = 0;
};

// A process's registrations (emu::Process::mq_notifications), by queue descriptor.
struct MqNotifyTable {
  std::mutex* mu =
      new std::mutex;  // leaked on purpose: a fork child replaces it (another thread may hold it)
  std::map<int, MqNotification> by_fd;  // GUARDED_BY(*mu)
};

// mq_notify(2) with SIGEV_SIGNAL for `signo` (1-64, or 0 for none) and `value`: registers with the host
// through `host_register` (given the host sigevent to pass) and remembers the guest's signal when the host
// accepts. Returns the host's result.
int64_t mq_notify_signal(emu::Process& proc, int mqd, int signo, guest::sigval_t value,
                         int64_t (*host_register)(int mqd, const ::sigevent* ev));
// The intake thread got the host's notification signal for queue `hsi.si_value.sival_int`.
void mq_notified(emu::Process& proc, const siginfo_t& hsi);
// fork(2): registrations belong to the parent.
void reset_mq_notify_after_fork(emu::Process& proc);

}  // namespace signals

// This file implements the guest side of POSIX message queue notifications by signal.
#include "signals/mq_notify.h"

#include "emu/task.h"
#include "signals/signals.h"
#include "signals/timers.h"
#include "syscalls/abi/siginfo.h"

namespace signals {

int64_t mq_notify_signal(emu::Process& proc, int mqd, int signo, guest::sigval_t value,
                         int64_t (*host_register)(int mqd, const ::sigevent* ev)) {
  ::sigevent ev{};
  ev.sigev_notify = SIGEV_SIGNAL;
  ev.sigev_signo = signo == 0 ? 0 : timer_host_signal();
  ev.sigev_value.sival_int = mqd;
  // The entry exists before the host can fire; a refused registration (EBADF, EBUSY) puts back what was
  // there, which belongs to a registration still in force.
  std::lock_guard lk(*proc.mq_notifications.mu);
  auto& table = proc.mq_notifications.by_fd;
  const auto old = table.find(mqd);
  const bool had = old != table.end();
  const MqNotification before = had ? old->second : MqNotification{};
  table[mqd] = MqNotification{signo, value};
  const int64_t r = host_register(mqd, &ev);
  if (r < 0) {
    if (had) {
      table[mqd] = before;
    } else {
      table.erase(mqd);
    }
  }
  return r;
}

void mq_notified(emu::Process& proc, const siginfo_t& hsi) {
  MqNotification n;
  {
    std::lock_guard lk(*proc.mq_notifications.mu);
    auto it = proc.mq_notifications.by_fd.find(hsi.si_value.sival_int);
    if (it == proc.mq_notifications.by_fd.end()) return;
    n = it->second;
    proc.mq_notifications.by_fd.erase(it);  // the host dropped the registration when it fired
  }
  if (n.signo == 0) return;
  // __do_notify: si_code SI_MESGQ, the sender's pid and uid, the registered value.
  guest::siginfo si{};
  si.si_signo = n.signo;
  si.si_code = guest::kSI_MESGQ;
  si.fields.rt.pid = hsi.si_pid;
  si.fields.rt.uid = hsi.si_uid;
  si.fields.rt.sigval = n.value;
  send_to_process(proc, si);
}

void reset_mq_notify_after_fork(emu::Process& proc) {
  proc.mq_notifications.mu = new std::mutex;
  proc.mq_notifications.by_fd.clear();
}

}  // namespace signals

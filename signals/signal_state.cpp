// This file implements pending queues and the default-action table.
#include "signals/signal_state.h"

#include "signals/timers.h"

namespace signals {

DefaultAction default_action(int sig) {
  switch (sig) {
    case guest::kSIGCHLD:
    case guest::kSIGURG:
    case guest::kSIGWINCH:
      return DefaultAction::kIgnore;
    case guest::kSIGCONT:
      return DefaultAction::kContinue;
    case guest::kSIGSTOP:
    case guest::kSIGTSTP:
    case guest::kSIGTTIN:
    case guest::kSIGTTOU:
      return DefaultAction::kStop;
    case guest::kSIGQUIT:
    case guest::kSIGILL:
    case guest::kSIGTRAP:
    case guest::kSIGABRT:
    case guest::kSIGBUS:
    case guest::kSIGFPE:
    case guest::kSIGSEGV:
    case guest::kSIGXCPU:
    case guest::kSIGXFSZ:
    case guest::kSIGSYS:
      return DefaultAction::kCore;
    default:
      return DefaultAction::kTerminate;
  }
}

int next_signal(sigset_t set) {
  constexpr sigset_t kSynchronous = sig_bit(guest::kSIGSEGV) | sig_bit(guest::kSIGBUS) |
                                    sig_bit(guest::kSIGILL) | sig_bit(guest::kSIGTRAP) |
                                    sig_bit(guest::kSIGFPE) | sig_bit(guest::kSIGSYS);
  if (set & kSynchronous) set &= kSynchronous;
  return set ? __builtin_ctzll(set) + 1 : 0;
}

bool is_ignored(const guest::sigaction& a, int sig) {
  if (a.handler == guest::kSIG_IGN) return true;
  if (a.handler != guest::kSIG_DFL) return false;
  const DefaultAction d = default_action(sig);
  return d == DefaultAction::kIgnore || d == DefaultAction::kContinue;
}

void PendingQueue::push(const PendingSignal& p) {
  const int sig = p.info.si_signo;
  if (sig < guest::kSIGRTMIN && has(sig)) return;  // standard signals coalesce
  items_.push_back(p);
  set_ |= sig_bit(sig);
}

bool PendingQueue::take(int sig, PendingSignal* out) {
  bool found = false;
  bool more = false;
  for (auto it = items_.begin(); it != items_.end();) {
    if (it->info.si_signo != sig) {
      ++it;
      continue;
    }
    if (found) {
      more = true;
      break;
    }
    const bool live =
        it->timer < 0 || note_timer_dequeued(it->timer, it->timer_seq, it->info.fields.timer.overrun);
    if (live) *out = *it;
    found = live;
    it = items_.erase(it);
  }
  if (!more) set_ &= ~sig_bit(sig);
  return found;
}

PendingSignal* PendingQueue::find_timer(int32_t id) {
  for (PendingSignal& p : items_) {
    if (p.timer == id) return &p;
  }
  return nullptr;
}

size_t PendingQueue::discard(int sig) {
  size_t n = 0;
  for (auto it = items_.begin(); it != items_.end();) {
    if (it->info.si_signo == sig) {
      it = items_.erase(it);
      ++n;
    } else {
      ++it;
    }
  }
  set_ &= ~sig_bit(sig);
  return n;
}

}  // namespace signals

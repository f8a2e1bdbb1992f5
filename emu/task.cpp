// This file implements a guest thread's run loop and process exit.
#include "emu/task.h"

#include <fmt/format.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>

#include "emu/crash_report.h"

namespace emu {

std::string Process::host_path(const std::string& guest_path) const {
  if (opts_.sysroot.empty() || guest_path.empty() || guest_path[0] != '/') return guest_path;
  // Files (the loader, libraries, ld.so.cache) come from the sysroot when it has them; directories stay the
  // host's, so `ls /` under -L lists the real root rather than the sysroot's.
  std::string in_root = opts_.sysroot + guest_path;
  struct stat st {};
  if (::stat(in_root.c_str(), &st) == 0 && !S_ISDIR(st.st_mode)) return in_root;
  return guest_path;
}

void Task::run() {
  RunLock& lock = proc_.run_lock();
  lock.acquire(&cpu_, false);
  while (true) {
    const StopInfo stop = cpu_.run();
    switch (stop.kind) {
      case StopKind::kNone:
      case StopKind::kSyscallStop:
        break;
      case StopKind::kRequest: {
        const uint32_t req = cpu_.take_requests();
        if (req & Vcpu::kRequestYield) {
          lock.release(&cpu_);
          lock.acquire(&cpu_, false);
        }
        break;
      }
      case StopKind::kFault:
      case StopKind::kUndefined:
      case StopKind::kBreakpoint:
      case StopKind::kOtherException:
        lock.release(&cpu_);
        report_fault_and_exit(stop);
    }
  }
}

void Task::report_fault_and_exit(const StopInfo& stop) {
  // Until guest signal delivery exists, a synchronous fault ends the program like an unhandled signal would,
  // with a report that names the instruction.
  int sig = SIGSEGV;
  if (stop.kind == StopKind::kUndefined || stop.kind == StopKind::kOtherException) sig = SIGILL;
  if (stop.kind == StopKind::kBreakpoint) sig = SIGTRAP;
  print_crash_report(cpu_, stop, sig);
  exit_group(128 + sig);
}

void Task::exit_group(int status) {
  fflush(stdout);
  fflush(stderr);
  _exit(status & 0xff);
}

}  // namespace emu

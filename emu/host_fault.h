// The host's SIGSEGV and SIGBUS (emu/host_fault.cpp): one handler for the whole process, which sorts every
// host fault into a64run's guarded accesses to guest memory (emu/fault_access.h: EFAULT), the guest's own
// accesses in translated code (the guest's SIGSEGV or SIGBUS), and everything else (an a64run bug: it still
// crashes).
#pragma once

namespace emu {

// Installs the handler, once per process (fork children keep it). start_host_signal_intake does, before any
// guest code runs, and so does every vCPU with direct access (a unit test's runs without the intake). What
// was installed before (a sanitizer's handler) gets the faults that are a64run's bugs. The handler runs only
// in threads that leave SIGSEGV and SIGBUS unblocked: every thread a64run runs guest code or touches guest
// memory in does (signals/host_signals.cpp, kThreadBlocked); a fault on a blocked signal kills at once.
void install_host_fault_handler();

}  // namespace emu

// The host's SIGSEGV and SIGBUS (emu/host_fault.cpp): a direct guest access that faults in translated code
// becomes the guest's fault; any other fault is a64run's own bug and still kills it.
#pragma once

namespace emu {

// Installs the handler, once per process image; the first vCPU with direct access does, before any guest
// code runs (the previous actions, a sanitizer's for one, get the faults that are not the guest's).
void install_host_fault_handler();

// The calling thread is about to run guest code: SIGSEGV and SIGBUS must reach the handler there (a64run
// blocks every signal in every thread and takes them in its intake thread; a fault in a thread that blocks
// it kills the process). Once per thread.
void allow_host_faults();

// True once the calling thread has allowed host faults: code that blocks every signal in a thread that may
// already run guest code (signals::block_after_thread_start, called again in a fork child when its intake
// thread starts) must leave SIGSEGV and SIGBUS unblocked there.
bool host_faults_allowed_here();

}  // namespace emu

// Host accesses to guest memory that a fault cannot kill: a page that passed the VMA check may still fault
// when the emulator touches it (a file page past the end of its file, whose length the host decides at the
// access: SIGBUS; a page another thread unmaps between the check and the access: SIGSEGV). Linux's
// copy_from_user and futex word accesses return EFAULT then, so these do too. Each routine's one faulting
// instruction has a fixup (fault_access.cpp): the SIGSEGV and SIGBUS handler (emu/host_fault.h) moves a fault
// there to the fixup.
#pragma once

#include <ucontext.h>

#include <cstddef>
#include <cstdint>

namespace emu {

// For the SIGSEGV/SIGBUS handler: when the fault's PC is one of the routines' faulting instructions, moves it
// to that routine's fixup and returns true. Reads nothing but the frame (a raw handler's rules).
bool take_fault_access_fixup(ucontext_t* uc, int sig);

// The signal of the last fault one of these routines took on this thread (SIGSEGV or SIGBUS): a file page
// past the end of its file is SIGBUS, a guard page (MADV_GUARD_INSTALL) or a page unmapped meanwhile SIGSEGV.
int last_fault_signal();

// Copies n bytes; returns how many were not copied (0: all), from the first byte that faulted.
size_t fault_copy(void* dst, const void* src, size_t n);
// An aligned 32-bit load (acquire, as every x86-64 load is). False when it faulted.
bool fault_load32(const uint32_t* p, uint32_t* out);
// An aligned 32-bit compare-and-swap (sequentially consistent). 1: swapped; 0: *expected now holds the
// value found; -1: it faulted.
int fault_cas32(uint32_t* p, uint32_t* expected, uint32_t desired);

}  // namespace emu

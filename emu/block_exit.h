// The block-start exit test (emu/block_exit.cpp): every translated block tests the CPU's exit_request (in
// place of QEMU's test of the counter flag), so that a kick (Vcpu::kick) cannot be lost to the engine's
// unfenced clearing of that flag.
#pragma once

#include <unicorn/unicorn.h>

namespace emu {

// True when this Unicorn build is the one whose translator and CPU loop the test was written against (their
// machine code is checked once). Kicks are exact only then; otherwise vCPUs stop by the block hook.
bool block_exit_test_available();

// The next translation on this thread gets the test (from the translator's wrapper, for a vCPU that stops
// by kick). A translation that does not reach the place where the test goes aborts a64run.
void arm_block_exit_test();
void check_block_exit_test_done();

// For tests: leaves `uc` in the state a kick that lost its race leaves it in (stop and exit requested, the
// block-start counter flag not set).
void set_exit_request_only(uc_engine* uc);

}  // namespace emu

// --version: what a64run was built with, and which of its fast paths this build takes.
#pragma once

#include <string>

namespace emu {

// The version line, the Unicorn and Capstone versions in use, and whether parallel atomics, kicks, 4 KiB
// pages, direct memory access, the host FPU, huge pages for guest memory and the short block lookup are
// active. Finding out runs one guest
// instruction on a vCPU of its own (a few milliseconds): the checks behind the fast paths happen when an
// engine starts and at the first translation.
std::string version_report();

}  // namespace emu

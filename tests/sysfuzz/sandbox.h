// The syscall fuzzer runner's sandbox: one fuzzer child (under a64run, under qemu-aarch64, or natively) in
// fresh pid, mount, network, IPC and UTS namespaces, as an unprivileged user with resource limits, its
// stderr and sanitizer reports in files, watched through the shared ring (ring.h) for a call that does not
// return.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tests/sysfuzz/ring.h"

namespace sysfuzz {

struct Launch {
  std::vector<std::string> argv;  // the program and its arguments (the fuzzer's own are added)
  std::string run_dir;            // made for the run: scratch/, stderr, sanitizer logs
  uint64_t seed = 1;
  uint64_t calls = 1000;
  std::string mode = "fuzz";         // the fuzzer's --mode
  double stall_seconds = 10;         // a call that runs longer is a hang (or a blocking call's timeout)
  double total_seconds = 300;        // the whole child
  bool limit_address_space = false;  // RLIMIT_AS for builds without a sanitizer's shadow memory
};

// What became of one child.
struct Outcome {
  bool exited = false;  // else killed by `signal`
  int status = 0;       // exit status
  int signal = 0;
  bool timed_out = false;  // the runner killed it (stall or total time)
  std::string stderr_text;
  std::string sanitizer_text;  // the sanitizer reports it wrote (log_path files)
  std::vector<uint8_t> ring;   // a copy of the shared ring at the end
  const sysfuzz_ring* header() const { return reinterpret_cast<const sysfuzz_ring*>(ring.data()); }
};

// False (with a reason) when this machine cannot give the children their namespaces.
bool sandbox_available(std::string* why);
Outcome run_sandboxed(const Launch& l);

}  // namespace sysfuzz

// Process and Task: a guest process (address space, run lock, identity, options) and one guest thread
// (its vCPU and thread-level state). One host thread runs each Task.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "emu/address_space.h"
#include "emu/run_lock.h"
#include "emu/vcpu.h"

namespace emu {

// What the command line asked for.
struct Options {
  std::string sysroot;                 // -L / A64RUN_LD_PREFIX; empty for none
  bool strace = false;                 // --strace
  std::string program;                 // host path of the guest executable
  std::vector<std::string> argv;       // guest argv (argv[0] may come from -0)
  std::vector<std::string> envp;       // guest environment
};

class Process {
 public:
  explicit Process(Options opts, std::unique_ptr<AddressSpace> as)
      : opts_(std::move(opts)), as_(std::move(as)) {}

  const Options& opts() const { return opts_; }
  AddressSpace& as() { return *as_; }
  RunLock& run_lock() { return run_lock_; }

  // Resolves a guest path for file access: absolute paths look inside the sysroot first (qemu's -L rule).
  std::string host_path(const std::string& guest_path) const;

  // What /proc/self/{exe,cmdline,auxv} show the guest.
  std::string exe_path;
  std::string cmdline;
  std::vector<uint8_t> auxv;

 private:
  Options opts_;
  std::unique_ptr<AddressSpace> as_;
  RunLock run_lock_;
};

class Task {
 public:
  Task(Process& proc, int tid) : proc_(proc), cpu_(proc.as(), this), tid_(tid) {}

  Process& proc() { return proc_; }
  AddressSpace& as() { return proc_.as(); }
  Vcpu& cpu() { return cpu_; }
  int tid() const { return tid_; }

  uint64_t clear_child_tid = 0;  // set_tid_address / CLONE_CHILD_CLEARTID
  uint64_t robust_list = 0;      // set_robust_list head
  uint64_t robust_list_len = 0;

  // Runs the thread's guest code until it exits; returns only for thread exit, never for exit_group.
  void run();
  // Ends the whole process with the guest's status (exit_group).
  [[noreturn]] void exit_group(int status);

 private:
  void report_fault_and_exit(const StopInfo& stop);

  Process& proc_;
  Vcpu cpu_;
  int tid_;
};

}  // namespace emu

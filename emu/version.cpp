// This file reports a64run's version, its engines' versions and its fast paths (--version).
#include "emu/version.h"

#include <capstone/capstone.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <unicorn/unicorn.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "emu/address_space.h"
#include "emu/code_placement.h"
#include "emu/fp_fast.h"
#include "emu/fp_pairs.h"
#include "emu/helper_calls.h"
#include "emu/lazy_flags.h"
#include "emu/parallel_atomics.h"
#include "emu/tb_lookup.h"
#include "emu/vcpu.h"
#include "emu/vreg_forwarding.h"

namespace emu {
namespace {

struct FastPaths {
  bool parallel_atomics = false;
  bool kicks = false;
  uint32_t page_size = 0;
  bool direct_memory = false;
  bool host_fpu = false;
  bool short_lookup = false;
  bool lazy_flags = false;
  bool near_code = false;
  bool fp_calls = false;
  bool forwarding = false;
  bool fp_pairs = false;
};

// A vCPU of its own runs one undefined instruction: making the engine checks the layout kicks rely on and
// sets the page size; translating the instruction decides parallel atomics.
FastPaths probe() {
  FastPaths f;
  std::string error;
  auto as = AddressSpace::create(uint64_t{1} << 32, &error);
  constexpr uint64_t kCode = 0x10000;
  if (!as ||
      as->mmap(kCode, kPageSize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, {}) < 0)
    return f;
  const uint32_t udf = 0;
  memcpy(as->host(kCode), &udf, sizeof udf);
  as->mprotect(kCode, kPageSize, PROT_READ | PROT_EXEC);
  auto cpu = std::make_unique<Vcpu>(*as, nullptr);
  f.kicks = cpu->stops_by_kick();
  f.direct_memory = cpu->direct_memory();
  f.host_fpu = prepare_fp_fast();  // checked once, when the first vCPU was made: the answer it gave
  f.short_lookup = prepare_tb_lookup();
  f.lazy_flags = prepare_lazy_flags(cpu->uc());  // the engine made its checks: the same answer again
  f.near_code = cpu->near_code();
  f.fp_calls = prepare_helper_calls(cpu->uc()) && prepare_vreg_forwarding(cpu->uc());
  f.forwarding = vreg_forwarding_enabled();
  f.fp_pairs = f.fp_calls && fp_pairs_enabled();
  (void)uc_ctl_get_page_size(cpu->uc(), &f.page_size);
  cpu->set_pc(kCode);
  (void)cpu->run();
  f.parallel_atomics = parallel_guest_code();
  return f;
}

const char* yes_no(bool v) {
  return v ? "yes" : "no";
}

bool set(const char* name) {
  const char* v = getenv(name);
  return v != nullptr && strcmp(v, "0") != 0;
}

// Transparent huge pages for guest memory: the host's policy, or asked for under A64RUN_HUGE_PAGES and
// given unless the host's policy is "never".
std::string huge_pages_line() {
  if (!guest_huge_pages()) return "  huge pages: the host's policy (A64RUN_HUGE_PAGES=1 asks for them)\n";
  std::string policy;
  if (FILE* f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "re")) {
    char buf[128] = {};
    if (fgets(buf, sizeof buf, f) != nullptr) policy = buf;
    fclose(f);
  }
  if (policy.find("[never]") != std::string::npos)
    return "  huge pages: no (the host's transparent_hugepage is never)\n";
  return "  huge pages: yes (private anonymous guest mappings of 2 MiB and more on transparent huge pages)\n";
}

}  // namespace

std::string version_report() {
  unsigned uc_major = 0, uc_minor = 0;
  const unsigned uc_all = uc_version(&uc_major, &uc_minor);
  int cs_major = 0, cs_minor = 0;
  cs_version(&cs_major, &cs_minor);
#ifdef A64RUN_WRAP_TRANSLATOR
  const char* linkage = "linked in";
#else
  const char* linkage = "shared library";
#endif
  const FastPaths f = probe();
  const bool serial = getenv("A64RUN_SERIAL") != nullptr && strcmp(getenv("A64RUN_SERIAL"), "0") != 0;
  const bool block_hook = getenv("A64RUN_BLOCK_HOOK") != nullptr;
  std::string out = fmt::format("a64run {}\n", A64RUN_VERSION);
  out += fmt::format("Unicorn {}.{}.{} ({}), Capstone {}.{}.{}\n", uc_major, uc_minor, (uc_all >> 8) & 0xff,
                     linkage, cs_major, cs_minor, CS_VERSION_EXTRA);
  out += "fast paths on this build:\n";
  out += fmt::format("  parallel atomics: {}{}\n", yes_no(f.parallel_atomics),
                     f.parallel_atomics ? " (guest threads run at the same time)"
                     : serial           ? " (A64RUN_SERIAL: one guest thread at a time)"
                                        : " (one guest thread at a time)");
  out += fmt::format("  kicks: {}{}\n", yes_no(f.kicks),
                     f.kicks      ? " (other threads stop a vCPU at its next block without a block hook)"
                     : block_hook ? " (A64RUN_BLOCK_HOOK: a block hook polls for stops)"
                                  : " (a block hook polls for stops)");
  out += fmt::format("  4 KiB pages: {} (the engine translates with {} byte pages)\n",
                     yes_no(f.page_size == 4096), f.page_size);
  out += fmt::format("  direct memory access: {}{}\n", yes_no(f.direct_memory),
                     f.direct_memory         ? " (guest loads and stores go straight to the guest window)"
                     : set("A64RUN_SOFTMMU") ? " (A64RUN_SOFTMMU: through the softmmu TLB)"
                                             : " (through the softmmu TLB)");
  out += fmt::format("  host FPU: {}{}\n", yes_no(f.host_fpu),
                     f.host_fpu ? " (scalar FADD, FSUB, FMUL, FDIV, FSQRT on SSE in the common case)"
                     : set("A64RUN_SOFTFLOAT") ? " (A64RUN_SOFTFLOAT: softfloat only)"
                                               : " (softfloat only)");
  out += huge_pages_line();
  out += fmt::format("  short block lookup: {}{}\n", yes_no(f.short_lookup),
                     f.short_lookup              ? " (indirect branches through the jump cache)"
                     : set("A64RUN_SLOW_LOOKUP") ? " (A64RUN_SLOW_LOOKUP: Unicorn's own lookup)"
                                                 : " (Unicorn's own lookup)");
  out += fmt::format("  lazy flags: {}{}\n", yes_no(f.lazy_flags),
                     f.lazy_flags                ? " (NZCV is computed only where something reads it)"
                     : set("A64RUN_EAGER_FLAGS") ? " (A64RUN_EAGER_FLAGS: every flag computed)"
                                                 : " (every flag computed)");
  out += fmt::format("  near helpers: {}{}\n", yes_no(f.near_code),
                     f.near_code       ? " (translated code calls helpers with a direct call)"
                     : code_lies_low() ? " (no free slot: helpers are called through a constant pool)"
                                       : " (a position-independent build: helpers are called through a "
                                         "constant pool)");
  const bool shared = TbShare::enabled() && f.kicks && f.near_code;
  out +=
      fmt::format("  shared blocks: {}{}\n", yes_no(shared),
                  shared ? " (a thread runs the blocks another thread of its process translated)"
                  : set("A64RUN_NO_SHARED_TB") ? " (A64RUN_NO_SHARED_TB: each thread translates for itself)"
                                               : " (each thread translates for itself)");
  out += fmt::format("  FP helper calls: {}{}\n", yes_no(f.fp_calls),
                     f.fp_calls ? " (guest registers stay in host registers across them)"
                                : " (guest registers are stored before them and loaded after)");
  out += fmt::format("  V register forwarding: {}{}\n", yes_no(f.forwarding),
                     f.forwarding               ? " (a value stored to a V register is used without a reload)"
                     : set("A64RUN_NO_FORWARD") ? " (A64RUN_NO_FORWARD: loaded back from the CPU state)"
                                                : " (loaded back from the CPU state)");
  out += fmt::format("  FMUL and FADD pairs: {}{}\n", yes_no(f.fp_pairs),
                     f.fp_pairs ? " (an FMUL and the FADD or FSUB of its product make one call)"
                     : set("A64RUN_NO_FP_PAIRS") ? " (A64RUN_NO_FP_PAIRS: two calls)"
                                                 : " (two calls)");
  return out;
}

}  // namespace emu

// This file owns where each engine's translation buffer lies: within 2 GiB of a64run's own code.
//
// Why. TCG's x86 backend calls a helper (every FP operation, the softmmu slow paths, the block lookup) with
// a direct `call rel32` when the helper lies within 2 GiB of the call, and otherwise through a constant
// pool (`call *disp(%rip)`: one more load, and a target the front end learns only from its predictors).
// a64run is a static program at 0x400000, so all its helpers and Unicorn's lie in its first few dozen MiB,
// but mmap puts the buffer just under the top of the address space, 128 TiB away. A double-precision
// matrix multiply, whose inner loop is two helper calls, ran 10% faster with the buffer near.
//
// How. Unicorn allocates the buffer with one mmap64 call (alloc_code_gen_buffer in translate-all.c): no
// address, read-write-execute, private and anonymous. The link wraps mmap64; a call of exactly that shape
// (nothing else in a64run maps anonymous memory executable) is tried first at free slots from 256 MiB up to
// the guest window's preferred base (AddressSpace::kLowBase, 1 GiB), with MAP_FIXED_NOREPLACE, which never
// takes a range that is mapped already (the brk heap, another engine's buffer, anything). When no slot is
// free, or a64run is a position-independent build (its code is not in the low 2 GiB: ThreadSanitizer's),
// the call goes on as asked, and TCG calls through its constant pool as before.
#include "emu/code_placement.h"

#include <sys/mman.h>

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "emu/address_space.h"
#include "emu/unicorn_layout.h"

extern "C" {
extern const char __executable_start[];  // the first byte of a64run's code (the linker's symbols)
extern const char etext[];               // just past it
}

namespace emu {
namespace {

constexpr uintptr_t kSlotsFrom = uintptr_t{256} << 20;  // above the brk heap's start and its room to grow
constexpr uintptr_t kSlotsTo = AddressSpace::kLowBase;
constexpr uintptr_t kSlotAlign = uintptr_t{2} << 20;
constexpr uintptr_t kReach = uintptr_t{1} << 31;  // a rel32 displacement

std::atomic<uintptr_t> g_next{kSlotsFrom};  // where the next search starts (the slot after the last taken)

// True when [lo, hi) and all of a64run's code are within a rel32 displacement of each other.
bool near_code(uintptr_t lo, uintptr_t hi) {
  const auto text = reinterpret_cast<uintptr_t>(__executable_start);
  const auto text_end = reinterpret_cast<uintptr_t>(etext);
  const uintptr_t first = lo < text ? lo : text;
  const uintptr_t last = hi > text_end ? hi : text_end;
  return last - first < kReach;
}

}  // namespace

void* place_code_buffer(size_t len,
                        void* (*map)(void* addr, size_t len, int prot, int flags, int fd, off_t off)) {
  const uintptr_t step = (len + kSlotAlign - 1) & ~(kSlotAlign - 1);
  if (len == 0 || step > kSlotsTo - kSlotsFrom || !near_code(kSlotsFrom, kSlotsTo)) return MAP_FAILED;
  const uintptr_t slots = (kSlotsTo - kSlotsFrom) / step;
  const auto after = [step](uintptr_t at) { return at + step + step <= kSlotsTo ? at + step : kSlotsFrom; };
  uintptr_t at = g_next.load(std::memory_order_relaxed);
  if (at < kSlotsFrom || at + step > kSlotsTo || (at - kSlotsFrom) % step != 0) at = kSlotsFrom;
  for (uintptr_t tried = 0; tried < slots; ++tried, at = after(at)) {
    void* p = map(reinterpret_cast<void*>(at), len, PROT_READ | PROT_WRITE | PROT_EXEC,
                  MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    if (p != MAP_FAILED) {
      g_next.store(after(at), std::memory_order_relaxed);
      return p;  // (a kernel older than 4.17 takes the address as a hint and may map elsewhere: as good)
    }
  }
  return MAP_FAILED;
}

bool code_lies_low() {
  return near_code(kSlotsFrom, kSlotsTo);
}

bool code_buffer_near(uc_engine* uc) {
#if A64RUN_WRAP_TRANSLATOR
  void* ctx = unicorn::field<void*>(uc, unicorn::kUcTcgCtx);
  if (ctx == nullptr) return false;
  const auto buf = unicorn::field<uintptr_t>(ctx, unicorn::kCtxCodeGenBuffer);
  const auto size = unicorn::field<size_t>(ctx, unicorn::kCtxCodeGenBufferSize);
  return buf != 0 && near_code(buf, buf + size);
#else
  (void)uc;
  return false;
#endif
}

}  // namespace emu

#if A64RUN_WRAP_TRANSLATOR

extern "C" void* __real_mmap64(void* addr, size_t len, int prot, int flags, int fd, off_t off);

// Unicorn's code buffer goes near a64run's code when it can; every other mapping as asked.
extern "C" void* __wrap_mmap64(void* addr, size_t len, int prot, int flags, int fd, off_t off) {
  if (addr == nullptr && prot == (PROT_READ | PROT_WRITE | PROT_EXEC) &&
      flags == (MAP_PRIVATE | MAP_ANONYMOUS) && fd == -1 && off == 0) {
    void* p = emu::place_code_buffer(len, &__real_mmap64);
    if (p != MAP_FAILED) return p;
  }
  return __real_mmap64(addr, len, prot, flags, fd, off);
}

#endif  // A64RUN_WRAP_TRANSLATOR

// This file owns the record of which guest pages the engines of an address space have translated code from.
//
// Why. An arm64 program that writes code makes it visible with `dc cvau; dsb; ic ivau; dsb; isb` per cache
// line (__clear_cache), and a64run answers `ic ivau` by making every vCPU drop its translations (the code
// gate, emu/vcpu.cpp). A JIT writes most of its code into pages nothing has run yet: there is nothing to
// drop, and dropping everything per line made such a program 20 to 40 times slower than qemu-aarch64.
//
// What. From the first `ic ivau` on, each translation first sets its page's bit here, and an `ic ivau` of
// a line whose page has no bit drops nothing. One whose page has its bit drops everything, as before, and
// the bits start afresh: after that flush no vCPU runs an older translation. A JIT that rewrites pages it
// has run then flushes about once per round of its pages, not once per line.
//
// The invariant: when `ic ivau` of a line finds its page's bit clear, no vCPU can run a translation of that
// page made from the line's old contents. The translator sets the bit with a seq_cst read-modify-write
// before it reads the page's instructions; `ic ivau` runs after the guest's stores to the line and reads
// the bit with a seq_cst read-modify-write too (each a locked instruction: a full barrier). Of that
// store-buffering pair (bit, code) one side sees the other: either the `ic ivau` sees the bit and flushes,
// or the translation reads the new instructions. The record's answers count only once a flush has
// followed its start (until then they are true): a flush closes the code gate, which waits for every vCPU
// to leave code (a translation happens inside it), and each vCPU drops its translations before it runs
// again, so every translation that can still run was made, and noted, after the record began. The same
// makes clearing the bits at such a flush, with the gate closed, safe. A translation this file is not
// told of (lose_track) turns every answer to true for good.
#include "emu/code_pages.h"

#include <sys/mman.h>

namespace emu {
namespace {

constexpr unsigned kPageShift = 12;
std::atomic<bool> g_lost{false};  // process-wide: a translation of unknown pages was made

}  // namespace

CodePages::~CodePages() {
  uint64_t* bits = bits_.load(std::memory_order_acquire);
  if (bits != nullptr) munmap(bits, bytes_);
}

void CodePages::note_translation(uint64_t pc) {
  uint64_t* bits = bits_.load(std::memory_order_acquire);
  if (bits == nullptr) return;  // off: the first `ic ivau` flushes everything
  const uint64_t page = pc >> kPageShift;
  if (pc >= window_) {
    lose_track();  // no code lies there; be safe if some does
    return;
  }
  auto* word = reinterpret_cast<std::atomic<uint64_t>*>(bits + page / 64);
  // Always the read-modify-write (a locked instruction, a full barrier on x86-64): the translator's reads
  // of the page come after it. (No atomic_thread_fence: ThreadSanitizer does not support them.)
  word->fetch_or(uint64_t{1} << (page % 64), std::memory_order_seq_cst);
}

bool CodePages::may_hold(uint64_t va) {
  if (g_lost.load(std::memory_order_seq_cst)) return true;
  if (!trusted_.load(std::memory_order_seq_cst)) {
    if (bits_.load(std::memory_order_acquire) != nullptr) return true;
    void* m =
        mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED) return true;  // no record: every `ic ivau` flushes, as it always did
    uint64_t* expected = nullptr;
    if (!bits_.compare_exchange_strong(expected, static_cast<uint64_t*>(m), std::memory_order_seq_cst))
      munmap(m, bytes_);  // another thread's `ic ivau` began it meanwhile
    return true;          // translations made before now were not noted: the caller drops them all
  }
  if (va >= window_) return false;  // outside the window: never translated
  const uint64_t page = va >> kPageShift;
  auto* word = reinterpret_cast<std::atomic<uint64_t>*>(bits_.load(std::memory_order_acquire) + page / 64);
  // Read with a read-modify-write (a full barrier on x86-64), so the guest's stores to the line, made
  // before this hook, come before the read.
  return (word->fetch_or(0, std::memory_order_seq_cst) >> (page % 64)) & 1;
}

void CodePages::flushed() {
  uint64_t* bits = bits_.load(std::memory_order_acquire);
  if (bits == nullptr) return;
  // No vCPU runs a translation made before the flush, and none translates while the gate is closed: the
  // record starts afresh (the kernel gives zeros the next time a page of it is touched).
  if (trusted_.load(std::memory_order_relaxed)) madvise(bits, bytes_, MADV_DONTNEED);
  trusted_.store(true, std::memory_order_seq_cst);
}

void CodePages::lose_track() {
  g_lost.store(true, std::memory_order_seq_cst);
}

}  // namespace emu

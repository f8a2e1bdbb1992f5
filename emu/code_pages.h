// The guest pages some engine of an address space may hold translations of, so that `ic ivau` of a line in
// any other page drops nothing (emu/code_pages.cpp).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace emu {

class CodePages {
 public:
  // `window` is the size of the guest window (addresses at or above it hold no code).
  explicit CodePages(uint64_t window) : window_(window), bytes_((window / 4096 + 63) / 64 * 8) {}
  ~CodePages();
  CodePages(const CodePages&) = delete;
  CodePages& operator=(const CodePages&) = delete;

  // The translator is about to read the code of the page at `pc` (a block never leaves its page).
  void note_translation(uint64_t pc);
  // A translation was made where note_translation could not be called: every `ic ivau` flushes.
  static void lose_track();

  // At `ic ivau` of `va` (its tag stripped), after the guest wrote the line: whether an engine may hold a
  // translation of that line's page, so that every vCPU must drop its translations. Until a flush has
  // followed the first call (flushed), the answer is true: translations made before the record began
  // were not noted.
  bool may_hold(uint64_t va);
  // The caller of may_hold made every vCPU drop its translations (the code generation moved under the
  // closed code gate, still closed): the record starts afresh and covers every translation from now on.
  void flushed();

 private:
  const uint64_t window_;
  const size_t bytes_;                    // of the record: one bit per guest page of the window
  std::atomic<uint64_t*> bits_{nullptr};  // the record, once it has begun
  std::atomic<bool> trusted_{false};      // and a flush has followed its start
};

}  // namespace emu

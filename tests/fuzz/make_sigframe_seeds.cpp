// This file writes the signal frame fuzzer's seed corpus: frames Linux accepts, with fpsimd_context,
// esr_context of two sizes and extra_context records (one whose data runs past the fixed-size frame), and
// two it refuses (no fpsimd_context, an EL1 pstate).
#include <utility>
#include <vector>

#include "tests/fuzz/seed_writer.h"
#include "tests/fuzz/sigframe_testing.h"

namespace {

using signals::sigframe_testing::FrameImage;

std::vector<std::pair<const char*, std::vector<uint8_t>>> seeds() {
  std::vector<std::pair<const char*, std::vector<uint8_t>>> out;
  FrameImage plain;
  plain.fpsimd();
  out.emplace_back("seed-fpsimd", plain.bytes());
  FrameImage fault;
  fault.fpsimd();
  fault.esr();
  out.emplace_back("seed-fault", fault.bytes());
  FrameImage big_esr;
  big_esr.esr(48);
  big_esr.fpsimd();
  out.emplace_back("seed-esr-48", big_esr.bytes());
  FrameImage extra;
  extra.fpsimd();
  const uint64_t e = extra.begin_extra();
  extra.esr();
  extra.end_extra(e);
  out.emplace_back("seed-extra", extra.bytes());
  FrameImage far;  // __reserved mostly taken by a large esr_context: the extra data ends past the frame
  far.esr(3600);
  const uint64_t f = far.begin_extra();
  far.fpsimd();
  far.esr();
  far.end_extra(f);
  out.emplace_back("seed-extra-far", far.bytes());
  FrameImage none;
  none.esr();
  out.emplace_back("seed-no-fpsimd", none.bytes());
  FrameImage el1;
  el1.fpsimd();
  el1.put_u64(signals::sigframe_testing::kPstateAt, 0x3c5);
  out.emplace_back("seed-el1", el1.bytes());
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  return fuzz_seeds::write_seeds(argc, argv, seeds());
}

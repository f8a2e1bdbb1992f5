// The syscall fuzzer runner's verdicts: how each child ended (normal, a timeout inside a call that
// legitimately blocks, a death the guest caused, an emulator failure), and the differential comparison of
// two lanes' results against the named known differences.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "tests/sysfuzz/sandbox.h"

namespace sysfuzz {

enum class Verdict { kNormal, kBlocked, kGuestDeath, kEmulatorFailure, kBroken };
const char* verdict_name(Verdict v);

struct Classified {
  Verdict verdict = Verdict::kBroken;
  std::string reason;  // one line: the call, the signal, the report's first line
};

// `emulated`: the child ran under an emulator whose failures count (a64run), not the reference.
Classified classify(const Outcome& o);

// The last calls in the ring, one line each, oldest first (for a failure's report).
std::string describe_last_calls(const Outcome& o, int count);
std::string describe_call(const sysfuzz_result& r);

// One line of known_differences.txt: lane, call, a64run's result, the reference's, why.
struct KnownDifference {
  std::string lane, call, ours, theirs, reason;
};
std::vector<KnownDifference> load_known_differences(const std::string& path, std::string* error);

struct Comparison {
  uint64_t compared = 0;                  // calls whose results were compared
  std::map<std::string, uint64_t> known;  // reason -> times seen
  bool diverged = false;                  // an unknown difference (described in `first`)
  std::string first;
  std::string stopped;  // why the comparison stopped early, if it did
};
Comparison compare(const std::string& lane, const Outcome& ours, const Outcome& theirs,
                   const std::vector<KnownDifference>& known);

}  // namespace sysfuzz

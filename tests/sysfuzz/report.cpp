// This file classifies how a fuzzer child ended and compares two lanes' results call by call.
#include "tests/sysfuzz/report.h"

#include <signal.h>
#include <string.h>

#include <algorithm>
#include <cinttypes>
#include <fstream>
#include <sstream>

extern "C" {
#include "tests/sysfuzz/sysfuzz.h"
}

namespace sysfuzz {
namespace {

// Lines that only an emulator failure writes: a sanitizer's report, a64run's own checks.
const char* const kFailureMarks[] = {
    "ERROR: AddressSanitizer", "AddressSanitizer:DEADLYSIGNAL", "runtime error:",
    "ERROR: LeakSanitizer",    "WARNING: ThreadSanitizer",      "internal error",
    "a64run: fatal",           "UndefinedBehaviorSanitizer"};

std::string first_line_with(const std::string& text, const char* mark) {
  const size_t at = text.find(mark);
  if (at == std::string::npos) return {};
  const size_t bol = text.rfind('\n', at);
  const size_t start = bol == std::string::npos ? 0 : bol + 1;
  const size_t eol = text.find('\n', at);
  return text.substr(start, eol == std::string::npos ? std::string::npos : eol - start);
}

std::string signal_name(int sig) {
  const char* abbrev = sigabbrev_np(sig);
  return abbrev ? std::string("SIG") + abbrev : "signal " + std::to_string(sig);
}

std::string value_text(int64_t v) {
  if (v == SYSFUZZ_NO_RESULT) return "-";
  if (v < 0 && v >= -4095) {
    const char* name = strerrorname_np(static_cast<int>(-v));
    return name ? std::string("-") + name : std::to_string(v);
  }
  char buf[32];
  snprintf(buf, sizeof buf, v > 0xffff ? "%#" PRIx64 : "%" PRId64, static_cast<uint64_t>(v));
  return buf;
}

const sysfuzz_slot* current_slot(const sysfuzz_ring* h) {
  if (h->calls_started == 0) return nullptr;
  const sysfuzz_slot* s = &h->slots[h->calls_started % SYSFUZZ_SLOTS];
  return s->index == h->calls_started ? s : nullptr;
}

std::string slot_text(const sysfuzz_slot& s) {
  sysfuzz_result r{};
  r.value = s.state == SYSFUZZ_DONE ? s.result : SYSFUZZ_NO_RESULT;
  memcpy(r.args, s.args, sizeof r.args);
  r.nr = static_cast<int32_t>(s.nr);
  memcpy(r.name, s.name, sizeof r.name);
  std::string line = "#" + std::to_string(s.index) + " " + describe_call(r);
  if (s.state != SYSFUZZ_DONE) line += " ... (did not return)";
  return line;
}

bool matches(const std::string& pattern, int64_t v) {
  if (pattern == "*") return true;
  if (pattern == "ok") return v >= 0;
  if (pattern == "err") return v < 0 && v >= -4095;
  return value_text(v) == pattern || std::to_string(v) == pattern;
}

}  // namespace

const char* verdict_name(Verdict v) {
  switch (v) {
    case Verdict::kNormal:
      return "normal";
    case Verdict::kBlocked:
      return "timeout in a call that blocks";
    case Verdict::kGuestDeath:
      return "death the guest caused";
    case Verdict::kEmulatorFailure:
      return "emulator failure";
    case Verdict::kBroken:
      return "broken run";
  }
  return "?";
}

std::string describe_call(const sysfuzz_result& r) {
  std::string s(r.name, strnlen(r.name, sizeof r.name));
  s += "(";
  for (int i = 0; i < 6; ++i) {
    char buf[24];
    snprintf(buf, sizeof buf, "%s%#" PRIx64, i ? ", " : "", r.args[i]);
    s += buf;
  }
  s += ")";
  if (r.value != SYSFUZZ_NO_RESULT) s += " = " + value_text(r.value);
  return s;
}

std::string describe_last_calls(const Outcome& o, int count) {
  const sysfuzz_ring* h = o.header();
  std::string out;
  const uint64_t last = h->calls_started;
  for (uint64_t i = last > static_cast<uint64_t>(count) ? last - count + 1 : 1; i <= last; ++i) {
    const sysfuzz_slot& s = h->slots[i % SYSFUZZ_SLOTS];
    if (s.index == i) out += "    " + slot_text(s) + "\n";
  }
  return out;
}

Classified classify(const Outcome& o) {
  for (const char* mark : kFailureMarks) {
    for (const std::string* text : {&o.sanitizer_text, &o.stderr_text}) {
      if (std::string line = first_line_with(*text, mark); !line.empty())
        return {Verdict::kEmulatorFailure, line};
    }
  }
  const sysfuzz_ring* h = o.header();
  if (h->magic != SYSFUZZ_MAGIC) return {Verdict::kBroken, "no ring"};
  const sysfuzz_slot* cur = current_slot(h);
  const std::string where = cur ? slot_text(*cur) : "before the first call";
  if (o.timed_out) {
    if (cur && cur->state == SYSFUZZ_STARTED && (cur->props & P_BLOCKS)) return {Verdict::kBlocked, where};
    return {Verdict::kEmulatorFailure, "no progress (a hang) at " + where};
  }
  if (o.exited) {
    if (o.status == 0 && h->finished) return {Verdict::kNormal, ""};
    if (o.status == SYSFUZZ_EXIT_CORRUPT) return {Verdict::kEmulatorFailure, std::string(h->message)};
    if (o.status == SYSFUZZ_EXIT_SETUP || o.status == 127) return {Verdict::kBroken, o.stderr_text};
    return {Verdict::kEmulatorFailure, "exit status " + std::to_string(o.status) + " at " + where};
  }
  if (o.signal == 0) return {Verdict::kBroken, "no status from the sandbox's init"};
  const std::string sig = signal_name(o.signal);
  if (o.signal <= 64 && (h->fatal_signals_sent >> (o.signal - 1)) & 1)
    return {Verdict::kGuestDeath, sig + " (which the fuzzer sent itself) at " + where};
  return {Verdict::kEmulatorFailure,
          "killed by " + sig + ", which the last calls do not explain, at " + where};
}

std::vector<KnownDifference> load_known_differences(const std::string& path, std::string* error) {
  std::vector<KnownDifference> out;
  std::ifstream in(path);
  if (!in) {
    *error = "cannot read " + path;
    return out;
  }
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    KnownDifference k;
    fields >> k.lane >> k.call >> k.ours >> k.theirs;
    std::getline(fields >> std::ws, k.reason);
    if (k.reason.empty()) {
      *error = path + ": a line without its reason: " + line;
      return {};
    }
    out.push_back(k);
  }
  return out;
}

Comparison compare(const std::string& lane, const Outcome& ours, const Outcome& theirs,
                   const std::vector<KnownDifference>& known) {
  Comparison c;
  const sysfuzz_ring* a = ours.header();
  const sysfuzz_ring* b = theirs.header();
  const uint64_t n = std::min({a->calls_done, b->calls_done, a->results_capacity});
  for (uint64_t i = 0; i < n; ++i) {
    const sysfuzz_result& x = a->results[i];
    const sysfuzz_result& y = b->results[i];
    if (x.call != y.call || strncmp(x.name, y.name, sizeof x.name) != 0) {
      c.diverged = true;
      c.first = "the lanes made different calls at #" + std::to_string(i + 1) + ": " + describe_call(x) +
                " and " + describe_call(y) + " (the fuzzer is not deterministic)";
      return c;
    }
    if (x.value == SYSFUZZ_NO_RESULT || (x.props & P_CMP_NONE)) continue;
    ++c.compared;
    const bool same = (x.props & P_CMP_OK)
                          ? ((x.value < 0) == (y.value < 0) && (x.value >= 0 || x.value == y.value))
                          : x.value == y.value;
    if (same) continue;
    const std::string name(x.name, strnlen(x.name, sizeof x.name));
    const KnownDifference* k = nullptr;
    for (const KnownDifference& d : known) {
      if ((d.lane == lane || d.lane == "*") && (d.call == name || d.call == "*") &&
          matches(d.ours, x.value) && matches(d.theirs, y.value)) {
        k = &d;
        break;
      }
    }
    if (k != nullptr) {
      ++c.known[k->reason];
      if (x.props & P_STATE) {
        c.stopped =
            "after a known difference in #" + std::to_string(i + 1) + " " + name + ", which changes state";
        return c;
      }
      continue;
    }
    c.diverged = true;
    c.first = "#" + std::to_string(i + 1) + " " + describe_call(x) + " under a64run, " + value_text(y.value) +
              " under " + lane;
    return c;
  }
  if (a->calls_done != b->calls_done)
    c.stopped = "one lane ended at call " + std::to_string(std::min(a->calls_done, b->calls_done));
  return c;
}

}  // namespace sysfuzz

// The syscall fuzzer's runner: runs the fuzzer (sysfuzz.c) seed after seed, each child sandboxed
// (sandbox.cpp), classifies how each ended (report.cpp), prints what killed a failed child, and at the end
// a table of the classes. In the differential modes each seed also runs under the reference (qemu-aarch64,
// or the fuzzer built for x86-64 on the host kernel) and the results are compared call by call, each known
// difference named (known_differences.txt).
//
// usage: sysfuzz_run --guest PROG [--emulator A64RUN] [--mode fuzz|qemu|native] [--qemu QEMU]
//                    [--native PROG] [--seconds S] [--seed FIRST] [--seeds N] [--calls N] [--workdir DIR]
//                    [--known FILE] [--stall S] [--limit-as] [--keep] [--verbose]
// Exit status 0 when no child was an emulator failure or a broken run and no unknown difference was seen.
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "tests/sysfuzz/report.h"
#include "tests/sysfuzz/sandbox.h"

namespace sysfuzz {
namespace {

struct Options {
  std::string guest, emulator, qemu = "qemu-aarch64", native, mode = "fuzz", workdir = "sysfuzz-runs", known;
  double seconds = 600, stall = 10;
  uint64_t seed = 1, seeds = UINT64_MAX, calls = 2000;
  bool limit_as = false, keep = false, verbose = false;
};

[[noreturn]] void usage(const char* why) {
  fprintf(
      stderr,
      "sysfuzz_run: %s\nusage: sysfuzz_run --guest PROG [--emulator A64RUN] [--mode fuzz|qemu|native] "
      "[--qemu QEMU] [--native PROG] [--seconds S] [--seed FIRST] [--seeds N] [--calls N] [--workdir DIR] "
      "[--known FILE] [--stall S] [--limit-as] [--keep] [--verbose]\n",
      why);
  exit(2);
}

std::string absolute_program(const std::string& p) {
  if (p.empty()) return p;
  if (p.find('/') != std::string::npos) return std::filesystem::absolute(p).string();
  const char* path = getenv("PATH");
  std::string dirs = path ? path : "/usr/bin:/bin";
  for (size_t pos = 0; pos <= dirs.size();) {
    const size_t colon = std::min(dirs.find(':', pos), dirs.size());
    const std::string candidate = dirs.substr(pos, colon - pos) + "/" + p;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
    pos = colon + 1;
  }
  return p;
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--limit-as") {
      o.limit_as = true;
      continue;
    }
    if (a == "--keep") {
      o.keep = true;
      continue;
    }
    if (a == "--verbose") {
      o.verbose = true;
      continue;
    }
    if (i + 1 >= argc) usage(("missing the value of " + a).c_str());
    const std::string v = argv[++i];
    if (a == "--guest")
      o.guest = v;
    else if (a == "--emulator")
      o.emulator = v;
    else if (a == "--qemu")
      o.qemu = v;
    else if (a == "--native")
      o.native = v;
    else if (a == "--mode")
      o.mode = v;
    else if (a == "--workdir")
      o.workdir = v;
    else if (a == "--known")
      o.known = v;
    else if (a == "--seconds")
      o.seconds = std::stod(v);
    else if (a == "--stall")
      o.stall = std::stod(v);
    else if (a == "--seed")
      o.seed = std::stoull(v);
    else if (a == "--seeds")
      o.seeds = std::stoull(v);
    else if (a == "--calls")
      o.calls = std::stoull(v);
    else
      usage(("unknown option " + a).c_str());
  }
  if (o.guest.empty() || o.emulator.empty()) usage("--guest and --emulator are needed");
  // The children start in their scratch directories: every program by its absolute path.
  for (std::string* p : {&o.guest, &o.emulator, &o.native, &o.known, &o.qemu}) *p = absolute_program(*p);
  if (o.mode != "fuzz" && o.mode != "qemu" && o.mode != "native") usage("--mode is fuzz, qemu or native");
  if (o.mode == "native" && o.native.empty()) usage("--mode native needs --native");
  if (o.mode != "fuzz" && o.known.empty()) usage("the differential modes need --known");
  return o;
}

double now_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

std::string tail_lines(const std::string& text, int n) {
  size_t at = text.size();
  for (int i = 0; i <= n && at != std::string::npos && at > 0; ++i) at = text.rfind('\n', at - 1);
  std::string t = text.substr(at == std::string::npos ? 0 : at + 1);
  std::string out;
  size_t pos = 0;
  while (pos < t.size()) {
    const size_t eol = t.find('\n', pos);
    out += "    " + t.substr(pos, eol == std::string::npos ? std::string::npos : eol - pos + 1);
    if (eol == std::string::npos) out += "\n";
    pos = eol == std::string::npos ? t.size() : eol + 1;
  }
  return out;
}

struct Totals {
  std::map<Verdict, uint64_t> children;
  std::map<Verdict, std::map<std::string, uint64_t>> details;  // e.g. which call blocked
  uint64_t calls = 0, compared = 0, unknown_differences = 0, reference_deaths = 0;
  std::map<std::string, uint64_t> known;
  std::string first_reference_death;
};

std::string call_name_of(const std::string& reason) {
  // "#12 flock(...) = ..." -> "flock"
  const size_t sp = reason.find(' ');
  const size_t paren = reason.find('(');
  if (sp == std::string::npos || paren == std::string::npos || paren < sp) return reason.substr(0, 40);
  return reason.substr(sp + 1, paren - sp - 1);
}

std::string replay_command(const Options& o, uint64_t seed) {
  std::string s = "sysfuzz_run --guest " + o.guest + " --emulator " + o.emulator + " --mode " + o.mode +
                  " --seed " + std::to_string(seed) + " --seeds 1 --calls " + std::to_string(o.calls);
  if (o.mode == "qemu") s += " --qemu " + o.qemu;
  if (o.mode == "native") s += " --native " + o.native;
  if (!o.known.empty()) s += " --known " + o.known;
  if (o.limit_as) s += " --limit-as";
  return s + " --keep";
}

void report_failure(const Options& o, uint64_t seed, const char* lane, const Classified& c,
                    const Outcome& out, const std::string& dir) {
  printf("\n%s seed %llu (%s): %s\n", c.verdict == Verdict::kBroken ? "BROKEN" : "FAIL",
         static_cast<unsigned long long>(seed), lane, c.reason.c_str());
  printf("  last calls:\n%s", describe_last_calls(out, 12).c_str());
  if (!out.sanitizer_text.empty())
    printf("  sanitizer report:\n%s", tail_lines(out.sanitizer_text, 40).c_str());
  if (!out.stderr_text.empty()) printf("  stderr (last lines):\n%s", tail_lines(out.stderr_text, 15).c_str());
  printf("  kept in %s\n  replay: %s\n", dir.c_str(), replay_command(o, seed).c_str());
  fflush(stdout);
}

Launch launch_for(const Options& o, const std::vector<std::string>& argv, const std::string& lane,
                  uint64_t seed) {
  Launch l;
  l.argv = argv;
  l.run_dir = o.workdir + "/seed-" + std::to_string(seed) + "-" + lane;
  l.seed = seed;
  l.calls = o.calls;
  l.mode = o.mode;
  l.stall_seconds = o.stall;
  l.total_seconds = std::max(120.0, o.stall * 12);
  l.limit_address_space = o.limit_as && lane == "a64run";
  return l;
}

// Runs one seed: the a64run lane, and in the differential modes the reference lane and the comparison.
bool run_seed(const Options& o, uint64_t seed, const std::vector<KnownDifference>& known, Totals* t) {
  const Launch la = launch_for(o, {o.emulator, o.guest}, "a64run", seed);
  std::filesystem::remove_all(la.run_dir);
  const Outcome oa = run_sandboxed(la);
  const Classified ca = classify(oa);
  t->children[ca.verdict]++;
  t->calls += oa.header()->calls_done;
  if (ca.verdict == Verdict::kBlocked) t->details[ca.verdict][call_name_of(ca.reason)]++;
  if (ca.verdict == Verdict::kGuestDeath) t->details[ca.verdict][ca.reason.substr(0, ca.reason.find(' '))]++;
  bool ok = ca.verdict != Verdict::kEmulatorFailure && ca.verdict != Verdict::kBroken;
  if (!ok) report_failure(o, seed, "a64run", ca, oa, la.run_dir);
  if (ok && o.verbose && ca.verdict != Verdict::kNormal) {
    printf("seed %llu: %s: %s\n", static_cast<unsigned long long>(seed), verdict_name(ca.verdict),
           ca.reason.c_str());
    printf("  last calls:\n%s", describe_last_calls(oa, 6).c_str());
  }
  if (o.mode == "fuzz" || ca.verdict == Verdict::kBroken) {
    if (ok && !o.keep) std::filesystem::remove_all(la.run_dir);
    return ok;
  }
  const bool qemu = o.mode == "qemu";
  const Launch lb =
      launch_for(o, qemu ? std::vector<std::string>{o.qemu, o.guest} : std::vector<std::string>{o.native},
                 qemu ? "qemu" : "native", seed);
  std::filesystem::remove_all(lb.run_dir);
  const Outcome ob = run_sandboxed(lb);
  const Classified cb = classify(ob);
  if (cb.verdict != Verdict::kNormal && cb.verdict != Verdict::kBlocked) {
    // The reference's own end (qemu-aarch64 crashes on some calls): the comparison stops there.
    t->reference_deaths++;
    if (t->first_reference_death.empty())
      t->first_reference_death = "seed " + std::to_string(seed) + ": " + cb.reason;
  }
  const Comparison c = compare(qemu ? "qemu" : "native", oa, ob, known);
  t->compared += c.compared;
  for (const auto& [reason, n] : c.known) t->known[reason] += n;
  if (c.diverged) {
    ++t->unknown_differences;
    ok = false;
    printf("\nDIFF seed %llu: %s\n  a64run's last calls:\n%s  replay: %s\n",
           static_cast<unsigned long long>(seed), c.first.c_str(), describe_last_calls(oa, 6).c_str(),
           replay_command(o, seed).c_str());
  }
  if (ok && !o.keep) {
    std::filesystem::remove_all(la.run_dir);
    std::filesystem::remove_all(lb.run_dir);
  }
  return ok;
}

void print_table(const Options& o, const Totals& t, uint64_t first, uint64_t last, double elapsed) {
  uint64_t children = 0;
  for (const auto& [v, n] : t.children) children += n;
  printf("\nsysfuzz: mode %s, seeds %llu..%llu: %llu children, %llu calls in %.0f s (%.0f calls/s)\n",
         o.mode.c_str(), static_cast<unsigned long long>(first), static_cast<unsigned long long>(last),
         static_cast<unsigned long long>(children), static_cast<unsigned long long>(t.calls), elapsed,
         elapsed > 0 ? static_cast<double>(t.calls) / elapsed : 0.0);
  for (Verdict v : {Verdict::kNormal, Verdict::kBlocked, Verdict::kGuestDeath, Verdict::kEmulatorFailure,
                    Verdict::kBroken}) {
    const auto it = t.children.find(v);
    printf("  %-32s %8llu", verdict_name(v),
           static_cast<unsigned long long>(it == t.children.end() ? 0 : it->second));
    const auto d = t.details.find(v);
    if (d != t.details.end()) {
      const char* sep = "   ";
      for (const auto& [what, n] : d->second) {
        printf("%s%s %llu", sep, what.c_str(), static_cast<unsigned long long>(n));
        sep = ", ";
      }
    }
    printf("\n");
  }
  if (o.mode != "fuzz") {
    printf("  compared %llu results with %s: %llu unknown differences\n",
           static_cast<unsigned long long>(t.compared),
           o.mode == "qemu" ? "qemu-aarch64" : "the host kernel (x86-64 build)",
           static_cast<unsigned long long>(t.unknown_differences));
    for (const auto& [reason, n] : t.known)
      printf("    %8llu known: %s\n", static_cast<unsigned long long>(n), reason.c_str());
    if (t.reference_deaths)
      printf("  the reference ended early in %llu children (first: %s)\n",
             static_cast<unsigned long long>(t.reference_deaths), t.first_reference_death.c_str());
  }
}

}  // namespace
}  // namespace sysfuzz

int main(int argc, char** argv) {
  using namespace sysfuzz;
  const Options o = parse(argc, argv);
  std::string why;
  if (!sandbox_available(&why)) {
    fprintf(stderr, "sysfuzz_run: cannot sandbox the children here (%s): not running\n", why.c_str());
    return 77;
  }
  std::vector<KnownDifference> known;
  if (!o.known.empty()) {
    known = load_known_differences(o.known, &why);
    if (known.empty()) {
      fprintf(stderr, "sysfuzz_run: %s\n", why.c_str());
      return 2;
    }
  }
  std::filesystem::create_directories(o.workdir);
  const std::string absolute = std::filesystem::absolute(o.workdir).string();
  for (const char* d : {"/tmp", "/var/tmp", "/dev/shm", "/run/lock"}) {
    if (absolute.rfind(std::string(d) + "/", 0) == 0) {
      fprintf(stderr, "sysfuzz_run: the workdir may not be under %s (the sandbox mounts a tmpfs there)\n", d);
      return 2;
    }
  }
  Options run = o;
  run.workdir = absolute;
  Totals t;
  const double start = now_seconds();
  uint64_t seed = o.seed;
  bool ok = true;
  for (uint64_t n = 0; n < o.seeds && now_seconds() - start < o.seconds; ++n, ++seed)
    ok &= run_seed(run, seed, known, &t);
  print_table(o, t, o.seed, seed - 1, now_seconds() - start);
  fflush(stdout);
  return ok ? 0 : 1;
}

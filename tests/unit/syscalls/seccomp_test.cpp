// This file tests a64run's seccomp filters (syscalls/seccomp.h): the kernel's checks of a program, the
// classic BPF machine (a division by a zero X ends the program with 0, shifts by X take five bits), the
// precedence of a chain's results, the chain's serialized form for execve and its refusal of a damaged one;
// and, against this host's own kernel, random programs: the kernel's verdict on each (installed or EINVAL)
// and, for the installed ones, what a call it filters does (runs, fails with which errno, or kills), compared
// with what a64run's interpreter says of the same seccomp_data.
#include "syscalls/seccomp.h"

#include <gtest/gtest.h>
#include <linux/audit.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <random>
#include <vector>

namespace syscalls::seccomp {
namespace {

using guest::seccomp_data;
using guest::sock_filter;
namespace bpf = guest::bpf;

constexpr uint16_t kLdAbs = bpf::kLD | bpf::kW | bpf::kABS;
constexpr uint16_t kRetK = bpf::kRET | bpf::kK;
constexpr uint16_t kRetA = bpf::kRET | bpf::kA;

sock_filter stmt(uint16_t code, uint32_t k) {
  return {code, 0, 0, k};
}
sock_filter jump(uint16_t code, uint32_t k, uint8_t jt, uint8_t jf) {
  return {code, jt, jf, k};
}

int64_t check(std::vector<sock_filter> p) {
  return check_program(p);
}

TEST(SeccompTest, CheckerRefusesWhatTheKernelRefuses) {
  EXPECT_EQ(check({stmt(kRetK, 0)}), 0);
  EXPECT_EQ(check({}), -EINVAL);
  EXPECT_EQ(check(std::vector<sock_filter>(4097, stmt(kRetK, 0))), -EINVAL);
  EXPECT_EQ(check(std::vector<sock_filter>(4096, stmt(kRetK, 0))), 0);
  EXPECT_EQ(check({stmt(bpf::kLD | bpf::kIMM, 1)}), -EINVAL);  // no return at the end
  EXPECT_EQ(check({stmt(bpf::kALU | bpf::kMOD | bpf::kK, 3), stmt(kRetA, 0)}),
            -EINVAL);  // classic, not seccomp
  EXPECT_EQ(check({stmt(bpf::kLD | bpf::kH | bpf::kABS, 0), stmt(kRetA, 0)}), -EINVAL);
  EXPECT_EQ(check({stmt(bpf::kLD | bpf::kW | bpf::kIND, 0), stmt(kRetA, 0)}), -EINVAL);
  EXPECT_EQ(check({stmt(kLdAbs, 60), stmt(kRetA, 0)}), 0);
  EXPECT_EQ(check({stmt(kLdAbs, 64), stmt(kRetA, 0)}), -EINVAL);
  EXPECT_EQ(check({stmt(kLdAbs, 6), stmt(kRetA, 0)}), -EINVAL);
  EXPECT_EQ(check({stmt(kLdAbs, 0xfffff000), stmt(kRetA, 0)}), -EINVAL);  // an ancillary load
  EXPECT_EQ(check({stmt(bpf::kALU | bpf::kDIV | bpf::kK, 0), stmt(kRetA, 0)}), -EINVAL);
  EXPECT_EQ(check({stmt(bpf::kALU | bpf::kDIV | bpf::kX, 0), stmt(kRetA, 0)}), 0);
  EXPECT_EQ(check({stmt(bpf::kALU | bpf::kLSH | bpf::kK, 31), stmt(kRetA, 0)}), 0);
  EXPECT_EQ(check({stmt(bpf::kALU | bpf::kRSH | bpf::kK, 32), stmt(kRetA, 0)}), -EINVAL);
  EXPECT_EQ(check({stmt(bpf::kST, 15), stmt(kRetA, 0)}), 0);
  EXPECT_EQ(check({stmt(bpf::kSTX, 16), stmt(kRetA, 0)}), -EINVAL);
  EXPECT_EQ(check({stmt(bpf::kLD | bpf::kMEM, 2), stmt(kRetA, 0)}), -EINVAL);  // read before any write
  EXPECT_EQ(check({stmt(bpf::kST, 2), stmt(bpf::kLDX | bpf::kMEM, 2), stmt(kRetA, 0)}), 0);
  // Written on one path only.
  EXPECT_EQ(check({jump(bpf::kJMP | bpf::kJEQ | bpf::kK, 0, 0, 1), stmt(bpf::kST, 2),
                   stmt(bpf::kLD | bpf::kMEM, 2), stmt(kRetA, 0)}),
            -EINVAL);
  EXPECT_EQ(check({stmt(bpf::kST, 2), jump(bpf::kJMP | bpf::kJEQ | bpf::kK, 0, 0, 1), stmt(bpf::kST, 2),
                   stmt(bpf::kLD | bpf::kMEM, 2), stmt(kRetA, 0)}),
            0);
  EXPECT_EQ(check({stmt(bpf::kJMP | bpf::kJA, 0), stmt(kRetA, 0)}), 0);
  EXPECT_EQ(check({stmt(bpf::kJMP | bpf::kJA, 1), stmt(kRetA, 0)}), -EINVAL);
  EXPECT_EQ(check({jump(bpf::kJMP | bpf::kJGT | bpf::kX, 0, 0, 1), stmt(kRetA, 0)}), -EINVAL);
  EXPECT_EQ(check({jump(bpf::kJMP | bpf::kJSET | bpf::kK, 0, 1, 0), stmt(kRetA, 0), stmt(kRetK, 1)}), 0);
  EXPECT_EQ(check({stmt(0x4f, 0), stmt(kRetA, 0)}), -EINVAL);  // no such instruction
  EXPECT_EQ(check({stmt(0x106, 0)}), -EINVAL);
}

TEST(SeccompTest, MachineComputesAsLinux) {
  seccomp_data d{};
  d.nr = 221;
  d.arch = guest::kAUDIT_ARCH_AARCH64;
  d.args[0] = 0x1122334455667788;
  auto run = [&](std::vector<sock_filter> p) {
    EXPECT_EQ(check_program(p), 0);
    return run_program(p, d);
  };
  EXPECT_EQ(run({stmt(kLdAbs, 0), stmt(kRetA, 0)}), 221u);
  EXPECT_EQ(run({stmt(kLdAbs, 4), stmt(kRetA, 0)}), guest::kAUDIT_ARCH_AARCH64);
  EXPECT_EQ(run({stmt(kLdAbs, 16), stmt(kRetA, 0)}), 0x55667788u);  // little-endian halves
  EXPECT_EQ(run({stmt(kLdAbs, 20), stmt(kRetA, 0)}), 0x11223344u);
  EXPECT_EQ(run({stmt(bpf::kLD | bpf::kW | bpf::kLEN, 0), stmt(kRetA, 0)}), 64u);
  EXPECT_EQ(run({stmt(bpf::kLDX | bpf::kW | bpf::kLEN, 0), stmt(bpf::kMISC | bpf::kTXA, 0), stmt(kRetA, 0)}),
            64u);
  // A division by a zero X returns 0 at once; by a constant it divides.
  EXPECT_EQ(run({stmt(bpf::kLD | bpf::kIMM, 7), stmt(bpf::kALU | bpf::kDIV | bpf::kX, 0), stmt(kRetK, 5)}),
            0u);
  EXPECT_EQ(run({stmt(bpf::kLD | bpf::kIMM, 7), stmt(bpf::kALU | bpf::kDIV | bpf::kK, 2), stmt(kRetA, 0)}),
            3u);
  // Shifts by X use its low five bits.
  EXPECT_EQ(run({stmt(bpf::kLD | bpf::kIMM, 1), stmt(bpf::kLDX | bpf::kIMM, 33),
                 stmt(bpf::kALU | bpf::kLSH | bpf::kX, 0), stmt(kRetA, 0)}),
            2u);
  EXPECT_EQ(run({stmt(bpf::kLD | bpf::kIMM, 0x80000000), stmt(bpf::kALU | bpf::kRSH | bpf::kK, 31),
                 stmt(kRetA, 0)}),
            1u);  // logical
  EXPECT_EQ(run({stmt(bpf::kLD | bpf::kIMM, 5), stmt(bpf::kALU | bpf::kNEG, 0), stmt(kRetA, 0)}),
            0xfffffffbu);
  EXPECT_EQ(
      run({stmt(bpf::kLD | bpf::kIMM, 0xffffffff), stmt(bpf::kALU | bpf::kADD | bpf::kK, 2), stmt(kRetA, 0)}),
      1u);  // 32-bit
  EXPECT_EQ(run({stmt(bpf::kLD | bpf::kIMM, 6), stmt(bpf::kALU | bpf::kXOR | bpf::kK, 3), stmt(kRetA, 0)}),
            5u);
  // Jumps: JGE, JGT unsigned; JSET a mask.
  EXPECT_EQ(run({stmt(bpf::kLD | bpf::kIMM, 0xffffffff), jump(bpf::kJMP | bpf::kJGT | bpf::kK, 1, 0, 1),
                 stmt(kRetK, 10), stmt(kRetK, 20)}),
            10u);
  EXPECT_EQ(run({stmt(bpf::kLD | bpf::kIMM, 4), jump(bpf::kJMP | bpf::kJSET | bpf::kK, 3, 0, 1),
                 stmt(kRetK, 10), stmt(kRetK, 20)}),
            20u);
  EXPECT_EQ(run({stmt(bpf::kJMP | bpf::kJA, 1), stmt(kRetK, 10), stmt(kRetK, 20)}), 20u);
  EXPECT_EQ(run({stmt(bpf::kLD | bpf::kIMM, 9), stmt(bpf::kST, 4), stmt(bpf::kLD | bpf::kIMM, 1),
                 stmt(bpf::kLDX | bpf::kMEM, 4), stmt(bpf::kMISC | bpf::kTXA, 0), stmt(kRetA, 0)}),
            9u);
}

std::shared_ptr<Filter> filter(uint32_t ret, Chain prev = nullptr) {
  auto f = std::make_shared<Filter>();
  f->prog = {stmt(kRetK, ret)};
  f->prev = std::move(prev);
  return f;
}

TEST(SeccompTest, ChainTakesTheLowestActionAndTheNewestAmongEquals) {
  seccomp_data d{};
  Chain c = filter(guest::kSECCOMP_RET_ERRNO | 1);
  c = filter(guest::kSECCOMP_RET_ERRNO | 2, c);
  c = filter(guest::kSECCOMP_RET_ALLOW, c);
  EXPECT_EQ(run_chain(c.get(), d), guest::kSECCOMP_RET_ERRNO | 2);
  c = filter(guest::kSECCOMP_RET_TRAP | 7, c);
  EXPECT_EQ(run_chain(c.get(), d), guest::kSECCOMP_RET_TRAP | 7);
  c = filter(guest::kSECCOMP_RET_KILL_THREAD | 3, c);
  EXPECT_EQ(run_chain(c.get(), d), guest::kSECCOMP_RET_KILL_THREAD | 3);
  c = filter(guest::kSECCOMP_RET_KILL_PROCESS, c);
  EXPECT_EQ(run_chain(c.get(), d), guest::kSECCOMP_RET_KILL_PROCESS);
  EXPECT_EQ(chain_size(c.get()), 6);
  EXPECT_EQ(run_chain(nullptr, d), guest::kSECCOMP_RET_KILL_PROCESS);  // never open
}

TEST(SeccompTest, ChainTravelsThroughExecAndADamagedOneIsRefused) {
  Chain c = filter(guest::kSECCOMP_RET_ERRNO | 1);
  auto newer = std::make_shared<Filter>();
  newer->prog = {stmt(kLdAbs, 0), jump(bpf::kJMP | bpf::kJEQ | bpf::kK, 5, 0, 1), stmt(kRetK, 9),
                 stmt(kRetK, guest::kSECCOMP_RET_ALLOW)};
  newer->log = true;
  newer->prev = c;
  c = newer;
  const std::string bytes = serialize(c.get());
  Chain back;
  ASSERT_TRUE(deserialize(bytes, &back));
  ASSERT_EQ(chain_size(back.get()), 2);
  EXPECT_TRUE(back->log);
  EXPECT_FALSE(back->prev->log);
  ASSERT_EQ(back->prog.size(), 4u);
  EXPECT_EQ(back->prog[1].jf, 1);
  EXPECT_EQ(back->prev->prog[0].k, guest::kSECCOMP_RET_ERRNO | 1);
  EXPECT_EQ(serialize(back.get()), bytes);

  Chain none;
  EXPECT_FALSE(deserialize("", &none));
  EXPECT_FALSE(deserialize(bytes.substr(0, bytes.size() - 1), &none));
  EXPECT_FALSE(deserialize(bytes + "x", &none));
  std::string bad = bytes;
  bad[0] = 'B';
  EXPECT_FALSE(deserialize(bad, &none));
  bad = bytes;
  bad[8] = 9;  // more filters than there are
  EXPECT_FALSE(deserialize(bad, &none));
  bad = bytes;
  bad[12] = 0;  // a filter of no instructions
  EXPECT_FALSE(deserialize(bad, &none));
  bad = bytes;
  bad[20] = 0x4f;  // an instruction the checker refuses
  EXPECT_FALSE(deserialize(bad, &none));
  EXPECT_FALSE(none);
}

// --- against the host kernel ---

constexpr uint32_t kArchX86_64 = 0xc000003e;  // AUDIT_ARCH_X86_64
constexpr int kCallsPerProgram = 4;

#if defined(__SANITIZE_ADDRESS__)
constexpr int kPrograms = 40;  // a fork under a sanitizer costs milliseconds
#else
constexpr int kPrograms = 400;
#endif

// A random program: a prologue that lets every call but getppid through, a body of random instructions
// (now and then one the checker refuses), and an epilogue that returns ERRNO with twelve bits of A, shifted
// right by args[5]: so most programs show their A through the errno, and the rest return from the body.
std::vector<sock_filter> random_program(std::mt19937_64& rng, bool* meant_valid) {
  auto pick = [&](uint32_t n) { return static_cast<uint32_t>(rng() % n); };
  std::vector<sock_filter> p = {stmt(kLdAbs, 0), jump(bpf::kJMP | bpf::kJEQ | bpf::kK, SYS_getppid, 1, 0),
                                stmt(kRetK, guest::kSECCOMP_RET_ALLOW)};
  const bool invalid = pick(8) == 0;
  *meant_valid = !invalid;
  const uint32_t body = 1 + pick(20);
  const size_t start = p.size();
  // Words 0 to 13 are written first, so that loads of them pass the checker; 14 and 15 are the epilogue's.
  p.push_back(stmt(bpf::kLD | bpf::kIMM, static_cast<uint32_t>(rng())));
  for (uint32_t i = 0; i < 14; ++i) p.push_back(stmt(i % 2 ? bpf::kST : bpf::kSTX, i));
  const uint32_t offsets[] = {0, 4, 16, 20, 24, 28, 32, 36, 40, 44, 48, 52, 56, 60};
  const uint16_t alu_ops[] = {bpf::kADD, bpf::kSUB, bpf::kMUL, bpf::kDIV, bpf::kAND,
                              bpf::kOR,  bpf::kXOR, bpf::kLSH, bpf::kRSH};
  const uint16_t jmp_ops[] = {bpf::kJEQ, bpf::kJGT, bpf::kJGE, bpf::kJSET};
  const size_t body_start = p.size();
  for (uint32_t i = 0; i < body; ++i) {
    const size_t pc = p.size();
    const uint32_t left = static_cast<uint32_t>(body_start + body - pc - 1);  // instructions after this one
    const uint32_t small = pick(4) == 0 ? pick(40) : static_cast<uint32_t>(rng());
    switch (pick(9)) {
      case 0:
        p.push_back(stmt(kLdAbs, offsets[pick(14)]));
        break;
      case 1:
      case 2: {
        const uint16_t alu = alu_ops[pick(9)];
        uint32_t k = small;
        if ((alu == bpf::kLSH || alu == bpf::kRSH)) k %= 32;
        if (alu == bpf::kDIV && k == 0) k = 3;
        p.push_back(stmt(static_cast<uint16_t>(bpf::kALU | alu | (pick(2) ? bpf::kX : bpf::kK)), k));
        break;
      }
      case 3:
        p.push_back(stmt(pick(2) ? bpf::kLD | bpf::kIMM : bpf::kLDX | bpf::kIMM, small));
        break;
      case 4:
        p.push_back(stmt(pick(2) ? bpf::kLD | bpf::kMEM : bpf::kLDX | bpf::kMEM, pick(14)));
        break;
      case 5:
        p.push_back(stmt(pick(2) ? bpf::kMISC | bpf::kTAX : bpf::kMISC | bpf::kTXA, 0));
        break;
      case 6:
        p.push_back(stmt(pick(2) ? bpf::kALU | bpf::kNEG : bpf::kST, pick(14)));
        break;
      case 7: {
        const uint16_t j = jmp_ops[pick(4)];
        p.push_back(jump(static_cast<uint16_t>(bpf::kJMP | j | (pick(2) ? bpf::kX : bpf::kK)), small,
                         static_cast<uint8_t>(pick(left + 2)), static_cast<uint8_t>(pick(left + 2))));
        break;
      }
      default: {
        const uint32_t rets[] = {guest::kSECCOMP_RET_ALLOW,
                                 guest::kSECCOMP_RET_LOG,
                                 guest::kSECCOMP_RET_ERRNO | pick(5000),
                                 guest::kSECCOMP_RET_TRAP | pick(9),
                                 guest::kSECCOMP_RET_KILL_PROCESS,
                                 guest::kSECCOMP_RET_TRACE,
                                 static_cast<uint32_t>(rng())};
        p.push_back(pick(3) ? stmt(kRetK, rets[pick(7)]) : stmt(bpf::kJMP | bpf::kJA, pick(left + 1)));
        break;
      }
    }
  }
  (void)start;
  const std::vector<sock_filter> epilogue = {stmt(bpf::kST, 15),
                                             stmt(kLdAbs, 56),
                                             stmt(bpf::kMISC | bpf::kTAX, 0),
                                             stmt(bpf::kLD | bpf::kMEM, 15),
                                             stmt(bpf::kALU | bpf::kRSH | bpf::kX, 0),
                                             stmt(bpf::kALU | bpf::kAND | bpf::kK, 0xfff),
                                             stmt(bpf::kALU | bpf::kOR | bpf::kK, guest::kSECCOMP_RET_ERRNO),
                                             stmt(kRetA, 0)};
  p.insert(p.end(), epilogue.begin(), epilogue.end());
  if (invalid) {
    sock_filter& f = p[body_start + pick(body)];
    switch (pick(7)) {
      case 0:
        f = stmt(bpf::kALU | bpf::kMOD | bpf::kK, 3);
        break;
      case 1:
        f = stmt(kLdAbs, 64 + pick(8) * 4);
        break;
      case 2:
        f = stmt(kLdAbs, 1 + pick(3));
        break;
      case 3:
        f = stmt(bpf::kALU | bpf::kLSH | bpf::kK, 32 + pick(8));
        break;
      case 4:
        f = stmt(bpf::kALU | bpf::kDIV | bpf::kK, 0);
        break;
      case 5:
        f = stmt(bpf::kST, 16 + pick(4));
        break;
      default:
        f = jump(bpf::kJMP | bpf::kJEQ | bpf::kK, 0, 250, 0);
        break;
    }
  }
  return p;
}

// What a call does once the filter has returned `ret`: >= 0 it ran, < 0 -errno, kKilled it killed.
constexpr int64_t kKilled = INT64_MIN;
int64_t outcome_of(uint32_t ret) {
  const uint32_t data = ret & guest::kSECCOMP_RET_DATA;
  switch (ret & guest::kSECCOMP_RET_ACTION_FULL) {
    case guest::kSECCOMP_RET_ALLOW:
    case guest::kSECCOMP_RET_LOG:
      return 1;
    case guest::kSECCOMP_RET_ERRNO:
      return -static_cast<int64_t>(std::min<uint32_t>(data, 4095));
    case guest::kSECCOMP_RET_TRACE:
    case guest::kSECCOMP_RET_USER_NOTIF:
      return -ENOSYS;
    default:
      return kKilled;
  }
}

TEST(SeccompTest, InterpreterAgreesWithTheHostKernel) {
#if defined(__SANITIZE_THREAD__)
  // A child under ThreadSanitizer's runtime, confined by a filter that kills or traps its getppid, hung
  // until the test's timeout; the interpreter is single-threaded code the other lanes check.
  GTEST_SKIP() << "not under ThreadSanitizer";
#endif
  std::mt19937_64 rng(20261203);
  int installed = 0, refused = 0, killed = 0, errnos = 0, ran = 0;
  for (int n = 0; n < kPrograms; ++n) {
    bool meant_valid = true;
    const std::vector<sock_filter> prog = random_program(rng, &meant_valid);
    uint64_t args[kCallsPerProgram][6];
    for (auto& a : args) {
      for (uint64_t& v : a) v = rng();
      a[5] = (a[5] & ~uint64_t{0xffffffff}) | (rng() % 3 == 0 ? rng() % 64 : (rng() % 3) * 10);
    }
    int fds[2];
    ASSERT_EQ(pipe(fds), 0);
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      ::close(fds[0]);
      const rlimit no_core{0, 0};
      ::setrlimit(RLIMIT_CORE, &no_core);
      int64_t r = ::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 ? 0 : -1000;
      struct {
        uint16_t len;
        const sock_filter* filter;
      } fprog{static_cast<uint16_t>(prog.size()), prog.data()};
      if (r == 0 && ::syscall(SYS_seccomp, 1, 0, &fprog) != 0) r = -errno;
      (void)!::write(fds[1], &r, sizeof r);
      for (int i = 0; r == 0 && i < kCallsPerProgram; ++i) {
        const long v =
            ::syscall(SYS_getppid, args[i][0], args[i][1], args[i][2], args[i][3], args[i][4], args[i][5]);
        const int64_t out = v == -1 ? -errno : v > 0 ? 1 : 0;
        (void)!::write(fds[1], &out, sizeof out);
      }
      ::_exit(0);
    }
    ::close(fds[1]);
    std::vector<int64_t> got;
    int64_t v;
    while (::read(fds[0], &v, sizeof v) == sizeof v) got.push_back(v);
    ::close(fds[0]);
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ASSERT_FALSE(got.empty()) << "program " << n;

    const int64_t verdict = check_program(prog);
    ASSERT_EQ(got[0], verdict) << "program " << n << " (meant valid: " << meant_valid << ")";
    if (verdict != 0) {
      ++refused;
      ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
      continue;
    }
    ++installed;
    std::vector<int64_t> want;
    bool dies = false;
    for (auto& a : args) {
      seccomp_data d{};
      d.nr = SYS_getppid;
      d.arch = kArchX86_64;
      for (int i = 0; i < 6; ++i) d.args[i] = a[i];
      const int64_t o = outcome_of(run_program(prog, d));
      if (o == kKilled) {
        dies = true;
        break;
      }
      want.push_back(o);
    }
    ASSERT_EQ(std::vector<int64_t>(got.begin() + 1, got.end()), want) << "program " << n;
    if (dies) {
      ++killed;
      ASSERT_TRUE(WIFSIGNALED(status)) << "program " << n;
      ASSERT_EQ(WTERMSIG(status), SIGSYS) << "program " << n;
    } else {
      ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "program " << n;
    }
    for (int64_t o : want) (o < 0 ? errnos : ran)++;
  }
  // The corpus reaches every kind of outcome.
  EXPECT_GT(refused, kPrograms / 20);
  EXPECT_GT(installed, kPrograms / 2);
  EXPECT_GT(killed, 0);
  EXPECT_GT(errnos, kPrograms / 2);
  EXPECT_GT(ran, 0);
}

}  // namespace
}  // namespace syscalls::seccomp

// This file writes the argument fuzzer's seed corpus: one well-formed input per decoder (selector byte, then
// the guest's bytes): a control-message chain with fds and credentials, iovecs near MAX_RW_COUNT, a fault
// siginfo, open flags, the bounded values, and one struct per conversion.
#include <sys/socket.h>

#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "syscalls/abi/siginfo.h"
#include "syscalls/abi/types.h"
#include "tests/fuzz/seed_writer.h"

namespace {

using Bytes = std::vector<uint8_t>;

template <typename T>
void append(Bytes& b, const T& v) {
  const auto* p = reinterpret_cast<const uint8_t*>(&v);
  b.insert(b.end(), p, p + sizeof v);
}

void cmsg(Bytes& b, int level, int type, const void* data, size_t len) {
  const ::cmsghdr h{CMSG_LEN(len), level, type};
  append(b, h);
  const auto* p = static_cast<const uint8_t*>(data);
  b.insert(b.end(), p, p + len);
  b.resize(b.size() + CMSG_SPACE(len) - CMSG_LEN(len), 0);
}

std::vector<std::pair<std::string, Bytes>> seeds() {
  std::vector<std::pair<std::string, Bytes>> out;
  Bytes chain{0};
  const int32_t fds[3] = {4, 5, 10};
  cmsg(chain, SOL_SOCKET, SCM_RIGHTS, fds, sizeof fds);
  const ::ucred cred{100, 1000, 1000};
  cmsg(chain, SOL_SOCKET, SCM_CREDENTIALS, &cred, sizeof cred);
  out.emplace_back("seed-cmsg-out", chain);
  Bytes in{1};
  append(in, uint16_t{64});
  in.insert(in.end(), chain.begin() + 1, chain.end());
  out.emplace_back("seed-cmsg-in", in);
  Bytes iov{2};
  append(iov, guest::iovec{0x1000, 0x7fff0000});
  append(iov, guest::iovec{0x2000, 0x10000});
  append(iov, guest::iovec{0x3000, 5});
  out.emplace_back("seed-iovec", iov);
  Bytes si{3};
  guest::siginfo fault{};
  fault.si_signo = guest::kSIGSEGV;
  fault.si_code = guest::kSEGV_ACCERR;
  fault.fields.sigfault.addr = 0xdead000;
  append(si, fault);
  out.emplace_back("seed-siginfo", si);
  Bytes flags{4};
  append(flags, uint32_t{0x28042});  // O_RDWR | O_CREAT | O_DIRECTORY-ish bits
  append(flags, int32_t{0x10242});
  out.emplace_back("seed-open-flags", flags);
  Bytes bounds{5};
  append(bounds, uint32_t{56});
  append(bounds, guest::timespec{1, 999999999});
  append(bounds, int32_t{1});
  append(bounds, uint32_t{1});
  out.emplace_back("seed-bounds", bounds);
  for (uint8_t s = 0; s < 12; ++s) {
    Bytes st{static_cast<uint8_t>(6 + 8 * s)};
    for (int i = 0; i < 128; ++i) st.push_back(static_cast<uint8_t>(i * 37 + s));
    out.emplace_back("seed-struct-" + std::to_string(s), st);
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  return fuzz_seeds::write_seeds(argc, argv, seeds());
}

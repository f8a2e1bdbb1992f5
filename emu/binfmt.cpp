// This file implements `a64run --binfmt`: registering a64run with binfmt_misc (and with systemd-binfmt's
// /etc/binfmt.d for boots to come), removing it, and reporting what the kernel holds for arm64 programs.
#include "emu/binfmt.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "emu/task.h"

namespace emu {
namespace {

constexpr const char* kMiscDir = "/proc/sys/fs/binfmt_misc";
constexpr const char* kDefaultBinfmtD = "/etc/binfmt.d";
// As qemu-binfmt-conf.sh has them for aarch64: the ELF identification with EI_OSABI and EI_ABIVERSION
// free, e_type EXEC or DYN (the mask's 0xfe), e_machine EM_AARCH64 (183).
constexpr const char* kMagic = R"(\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\xb7\x00)";
constexpr const char* kMask =
    R"(\xff\xff\xff\xff\xff\xff\xff\x00\xff\xff\xff\xff\xff\xff\xff\xff\xfe\xff\xff\xff)";
constexpr unsigned long kAtFlagsPreserveArgv0 = 1;  // linux/binfmts.h: AT_FLAGS_PRESERVE_ARGV0

std::string entry_path() {
  return fmt::format("{}/{}", kMiscDir, kBinfmtName);
}

std::string persistent_path() {
  const char* dir = getenv("A64RUN_BINFMT_D");
  return fmt::format("{}/{}.conf", dir != nullptr ? dir : kDefaultBinfmtD, kBinfmtName);
}

bool exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

// binfmt_misc takes each command in one write.
bool write_once(const std::string& path, const std::string& data, std::string* error) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  const ssize_t n = fd < 0 ? -1 : ::write(fd, data.data(), data.size());
  const int err = errno;
  if (fd >= 0) ::close(fd);
  if (n == static_cast<ssize_t>(data.size())) return true;
  *error = fmt::format("{}: {}{}", path, strerror(err),
                       err == EACCES || err == EPERM ? " (registering needs root, or a user namespace's own "
                                                       "binfmt_misc)"
                                                     : "");
  return false;
}

bool check_mounted(std::string* error) {
  if (exists(fmt::format("{}/register", kMiscDir))) return true;
  *error = fmt::format("binfmt_misc is not mounted on {} (mount -t binfmt_misc binfmt_misc {}, as root)",
                       kMiscDir, kMiscDir);
  return false;
}

std::string read_all(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::string field(const std::string& entry, const std::string& key) {
  std::istringstream in(entry);
  std::string line;
  while (std::getline(in, line)) {
    if (line.starts_with(key)) return line.substr(key.size());
  }
  return {};
}

// True when the entry (binfmt_misc's text for it) matches an arm64 ELF executable's first bytes.
bool handles_arm64(const std::string& entry) {
  static const uint8_t kSample[20] = {0x7f, 'E', 'L', 'F', 2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0xb7, 0};
  if (field(entry, "offset ") != "0") return false;
  const std::string magic = field(entry, "magic "), mask = field(entry, "mask ");
  if (magic.empty() || magic.size() > 2 * sizeof kSample) return false;
  for (size_t i = 0; i < magic.size() / 2; ++i) {
    const auto m = static_cast<uint8_t>(std::stoul(magic.substr(2 * i, 2), nullptr, 16));
    const auto k = mask.size() >= 2 * i + 2
                       ? static_cast<uint8_t>(std::stoul(mask.substr(2 * i, 2), nullptr, 16))
                       : uint8_t{0xff};
    if ((kSample[i] & k) != (m & k)) return false;
  }
  return true;
}

// Other handlers of arm64 programs: the most recently registered matching entry is the one the kernel uses.
void report_others() {
  std::error_code ec;
  for (const auto& d : std::filesystem::directory_iterator(kMiscDir, ec)) {
    const std::string name = d.path().filename();
    if (name == kBinfmtName || name == "register" || name == "status") continue;
    const std::string entry = read_all(d.path());
    if (!handles_arm64(entry)) continue;
    fmt::print(
        "  also registered for arm64 programs: {} ({}, interpreter{}); the last one registered runs them\n",
        name, entry.substr(0, entry.find('\n')), field(entry, "interpreter"));
  }
}

int install(bool persistent) {
  std::string error;
  if (!check_mounted(&error)) {
    fmt::print(stderr, "a64run: {}\n", error);
    return 2;
  }
  const std::string& exe = self_exe_path();
  if (exe.empty() || exe[0] != '/' || exe.find_first_of(":\n") != std::string::npos) {
    fmt::print(stderr, "a64run: cannot register {}: binfmt_misc needs an absolute path without ':'\n", exe);
    return 2;
  }
  const std::string line = binfmt_register_line(exe);
  if (exists(entry_path()) && !write_once(entry_path(), "-1", &error)) {
    fmt::print(stderr, "a64run: {}\n", error);
    return 2;
  }
  if (!write_once(fmt::format("{}/register", kMiscDir), line, &error)) {
    fmt::print(stderr, "a64run: {}\n", error);
    return 2;
  }
  fmt::print("a64run: registered {} with binfmt_misc for arm64 ELF programs (flags {})\n", exe, kBinfmtFlags);
  if (persistent) {
    const std::string path = persistent_path();
    std::error_code ec;
    std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
    std::ofstream f(path);
    f << "# arm64 (aarch64) ELF programs run by a64run (a64run --binfmt install --persistent)\n"
      << line << "\n";
    if (!f.flush()) {
      fmt::print(stderr, "a64run: cannot write {}\n", path);
      return 2;
    }
    fmt::print("a64run: {} registers it at boot (systemd-binfmt)\n", path);
  }
  report_others();
  return 0;
}

int uninstall() {
  std::string error;
  const bool registered = exists(entry_path());
  if (registered && !write_once(entry_path(), "-1", &error)) {
    fmt::print(stderr, "a64run: {}\n", error);
    return 2;
  }
  const std::string path = persistent_path();
  const bool persistent = exists(path);
  if (persistent && ::unlink(path.c_str()) != 0) {
    fmt::print(stderr, "a64run: {}: {}\n", path, strerror(errno));
    return 2;
  }
  fmt::print("a64run: {}{}\n",
             registered ? "removed from binfmt_misc" : "was not registered with binfmt_misc",
             persistent ? fmt::format(", {} removed", path) : "");
  return 0;
}

int status() {
  std::string error;
  if (!check_mounted(&error)) {
    fmt::print("a64run: {}\n", error);
    return 2;
  }
  const std::string path = persistent_path();
  const std::string persistent = exists(path) ? fmt::format("{} present", path) : fmt::format("no {}", path);
  if (!exists(entry_path())) {
    fmt::print("a64run: not registered with binfmt_misc ({})\n", persistent);
    report_others();
    return 1;
  }
  const std::string entry = read_all(entry_path());
  fmt::print("a64run: registered with binfmt_misc as {}: {}\n", entry_path(),
             entry.substr(0, entry.find('\n')));
  fmt::print("  interpreter{}\n  flags: {}\n  magic {}\n  mask {}\n  {}\n", field(entry, "interpreter"),
             field(entry, "flags: "), field(entry, "magic "), field(entry, "mask "), persistent);
  report_others();
  return entry.starts_with("enabled") ? 0 : 1;
}

}  // namespace

std::string binfmt_register_line(const std::string& interpreter) {
  return fmt::format(":{}:M::{}:{}:{}:{}", kBinfmtName, kMagic, kMask, interpreter, kBinfmtFlags);
}

int binfmt_command(const std::vector<std::string>& args) {
  const std::string what = args.empty() ? "" : args[0];
  if (what == "install" && (args.size() == 1 || (args.size() == 2 && args[1] == "--persistent")))
    return install(args.size() == 2);
  if (what == "uninstall" && args.size() == 1) return uninstall();
  if (what == "status" && args.size() == 1) return status();
  fmt::print(stderr, "usage: a64run --binfmt install [--persistent] | uninstall | status\n");
  return 2;
}

KernelStart kernel_start() {
  KernelStart k;
  k.preserve_argv0 = (getauxval(AT_FLAGS) & kAtFlagsPreserveArgv0) != 0;
  errno = 0;
  const unsigned long fd = getauxval(AT_EXECFD);
  if (errno == 0) k.exec_fd = static_cast<int>(fd);
  return k;
}

}  // namespace emu

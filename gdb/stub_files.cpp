// This file implements the stub's host I/O packets (vFile): gdb reads the program's files as the program
// sees them, the sysroot's loader and libraries included (Process::host_path), so a dynamic program's
// libraries load in gdb with its default sysroot ("target:"). Read-only: an open for writing is refused.
// A gdb "descriptor" names a path, not a host descriptor: each read opens the file for its length, so the
// stub holds no descriptor the program could see, close or have numbered over (gdb keeps libraries open
// for as long as it debugs).
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>

#include "emu/task.h"
#include "gdb/stub.h"

namespace gdb {
namespace {

constexpr size_t kMaxOpenFiles = 64;

// gdb's File-I/O errno values (gdb's fileio.h): Linux's, except ENAMETOOLONG; others are EUNKNOWN.
int fileio_errno(int e) {
  switch (e) {
    case EPERM:
    case ENOENT:
    case EINTR:
    case EBADF:
    case EACCES:
    case EFAULT:
    case EBUSY:
    case EEXIST:
    case ENODEV:
    case ENOTDIR:
    case EISDIR:
    case EINVAL:
    case ENFILE:
    case EMFILE:
    case EFBIG:
    case ENOSPC:
    case ESPIPE:
    case EROFS:
      return e;
    case ENAMETOOLONG:
      return 91;
    default:
      return 9999;
  }
}

std::string error_reply(int e) {
  return fmt::format("F-1,{:x}", fileio_errno(e));
}

// gdb's File-I/O struct stat: big-endian fields, 32-bit but for size, blksize and blocks.
void put_be(std::string* out, uint64_t v, int bytes) {
  for (int i = bytes - 1; i >= 0; --i) out->push_back(static_cast<char>(v >> (8 * i)));
}

std::string fileio_stat(const struct stat& st) {
  std::string s;
  for (const uint64_t v :
       {uint64_t(st.st_dev), uint64_t(st.st_ino), uint64_t(st.st_mode), uint64_t(st.st_nlink),
        uint64_t(st.st_uid), uint64_t(st.st_gid), uint64_t(st.st_rdev)})
    put_be(&s, v, 4);
  for (const uint64_t v : {uint64_t(st.st_size), uint64_t(st.st_blksize), uint64_t(st.st_blocks)})
    put_be(&s, v, 8);
  for (const uint64_t v : {uint64_t(st.st_atime), uint64_t(st.st_mtime), uint64_t(st.st_ctime)})
    put_be(&s, v, 4);
  return s;
}

// Splits "a,b,c" into its hexadecimal numbers.
bool parse_numbers(std::string_view s, uint64_t* out, int n) {
  for (int i = 0; i < n; ++i) {
    const size_t comma = i + 1 < n ? s.find(',') : s.size();
    if (comma == std::string_view::npos) return false;
    const auto v = parse_hex(s.substr(0, comma));
    if (!v) return false;
    out[i] = *v;
    s = s.substr(std::min(comma + 1, s.size()));
  }
  return true;
}

}  // namespace

std::string Stub::on_vfile(std::string_view pkt) {
  if (pkt.starts_with("vFile:setfs:")) return "F0";  // one file system: the program's
  if (pkt.starts_with("vFile:open:")) {
    const std::string_view args = pkt.substr(11);
    const size_t comma = args.find(',');
    std::string path;
    uint64_t fm[2] = {0, 0};
    if (comma == std::string_view::npos || !from_hex(args.substr(0, comma), &path) ||
        !parse_numbers(args.substr(comma + 1), fm, 2) || path.find('\0') != std::string::npos)
      return error_reply(EINVAL);
    if (fm[0] != 0) return error_reply(EACCES);  // gdb's O_RDONLY is 0: only reading
    if (files_.size() >= kMaxOpenFiles) return error_reply(EMFILE);
    std::string host = dbg_.proc().host_path(path);
    const int fd = ::open(host.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return error_reply(errno);
    ::close(fd);
    const int handle = next_file_++;
    files_[handle] = std::move(host);
    return fmt::format("F{:x}", handle);
  }
  uint64_t n[3] = {0, 0, 0};
  const auto file = [&](std::string_view args, int count) -> const std::string* {
    if (!parse_numbers(args, n, count)) return nullptr;
    const auto it = files_.find(static_cast<int>(std::min<uint64_t>(n[0], INT32_MAX)));
    return it == files_.end() ? nullptr : &it->second;
  };
  if (pkt.starts_with("vFile:pread:")) {
    const std::string* path = file(pkt.substr(12), 3);
    if (path == nullptr) return error_reply(EBADF);
    const int fd = ::open(path->c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return error_reply(errno);
    std::string data(std::min<uint64_t>(n[1], (kMaxPacket - 16) / 2), '\0');
    const ssize_t got =
        ::pread(fd, data.data(), data.size(), static_cast<off_t>(std::min<uint64_t>(n[2], INT64_MAX)));
    const int err = errno;
    ::close(fd);
    if (got < 0) return error_reply(err);
    data.resize(static_cast<size_t>(got));
    return fmt::format("F{:x};", got) + data;
  }
  if (pkt.starts_with("vFile:fstat:")) {
    const std::string* path = file(pkt.substr(12), 1);
    struct stat st {};
    if (path == nullptr) return error_reply(EBADF);
    if (::stat(path->c_str(), &st) != 0) return error_reply(errno);
    const std::string s = fileio_stat(st);
    return fmt::format("F{:x};", s.size()) + s;
  }
  if (pkt.starts_with("vFile:close:")) {
    if (file(pkt.substr(12), 1) == nullptr) return error_reply(EBADF);
    files_.erase(static_cast<int>(n[0]));
    return "F0";
  }
  return "";  // pwrite, unlink, readlink: not offered
}

}  // namespace gdb

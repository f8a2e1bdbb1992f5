// This file implements the -L sysroot rule (emu/sysroot.h): a walk of each absolute guest path inside
// the sysroot, one component at a time, with the sysroot's symlinks followed by a64run.
#include "emu/sysroot.h"

#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdlib>
#include <vector>

namespace emu {
namespace {

// The components of a path, without empty ones (repeated slashes) and ".".
std::vector<std::string_view> split_components(std::string_view path) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < path.size()) {
    const size_t end = std::min(path.find('/', i), path.size());
    const std::string_view c = path.substr(i, end - i);
    if (!c.empty() && c != ".") out.push_back(c);
    i = end + 1;
  }
  return out;
}

// "/"-joined components from `from` on, each with a leading slash ("" when there are none).
std::string join_from(const std::vector<std::string_view>& comps, size_t from) {
  std::string out;
  for (size_t i = from; i < comps.size(); ++i) {
    out += '/';
    out += comps[i];
  }
  return out;
}

bool read_link(const std::string& path, std::string* out) {
  std::array<char, PATH_MAX> buf{};
  const ssize_t n = ::readlink(path.c_str(), buf.data(), buf.size());
  if (n <= 0) return false;
  out->assign(buf.data(), static_cast<size_t>(n));
  return true;
}

}  // namespace

// One walk of an absolute guest path: either its host path (done), or the guest path to walk instead
// (a symlink of the sysroot, or a ".." to take on the walked prefix).
struct Sysroot::Step {
  enum Kind { kDone, kRestart } kind = kDone;
  std::string host;         // kDone: the host path
  std::string next;         // kRestart, or kDone with final_link: the guest path to walk next
  bool link = false;        // kRestart: the restart follows a symlink (counts toward kMaxLinks)
  bool final_link = false;  // kDone: `host` is a symlink of the sysroot that was not followed
  bool hosts = false;  // kDone: `host` is the host's own path, which the rule did not map into the sysroot
};

Sysroot::Sysroot(const std::string& root) {
  if (root.empty()) return;
  char resolved[PATH_MAX];
  if (::realpath(root.c_str(), resolved) != nullptr) {
    root_ = resolved;
  } else {
    root_ = root;
    while (root_.size() > 1 && root_.back() == '/') root_.pop_back();
  }
  if (root_ == "/") root_.clear();
}

bool Sysroot::is_host_only(std::string_view first_component) {
  return first_component == "proc" || first_component == "sys" || first_component == "dev" ||
         first_component == "run" || first_component == "tmp";
}

Sysroot::Step Sysroot::walk(const std::string& path, bool follow_final) const {
  Step s;
  const std::vector<std::string_view> comps = split_components(path);
  // A trailing slash asks for a directory: a final symlink is followed even by lstat.
  const bool dir_slash = path.size() > 1 && path.back() == '/';
  const char* slash = dir_slash ? "/" : "";
  size_t first = 0;
  while (first < comps.size() && comps[first] == "..") ++first;  // "/.." is "/"
  if (first == comps.size() || is_host_only(comps[first])) {
    s.host = path;
    s.hosts = true;
    return s;
  }
  std::string cur = root_;  // the walked prefix inside the sysroot: a directory, never a symlink
  for (size_t i = first; i < comps.size(); ++i) {
    const std::string_view c = comps[i];
    const std::string rest = join_from(comps, i + 1) + slash;
    if (c == "..") {  // lexical on a symlink-free prefix, so exact
      const std::string prefix = cur.substr(root_.size());
      s.kind = Step::kRestart;
      s.next = prefix.substr(0, prefix.rfind('/')) + (rest.empty() ? "/" : rest);
      return s;
    }
    const bool last = i + 1 == comps.size();
    std::string next = cur + "/" + std::string(c);
    struct stat st {};
    if (::lstat(next.c_str(), &st) != 0) {
      if (errno != ENOENT) {  // EACCES and the like: the sysroot's answer
        s.host = next + rest;
        return s;
      }
      // Missing in the sysroot. A new entry of one of its directories (not "/") stays in it, unless the
      // host has the path.
      struct stat hs {};
      const bool host_has = ::lstat(path.c_str(), &hs) == 0;
      s.hosts = !(last && i > first && !host_has);
      s.host = s.hosts ? path : next + slash;
      return s;
    }
    if (S_ISLNK(st.st_mode)) {
      std::string target;
      if (!read_link(next, &target)) {
        s.host = next + rest;
        return s;
      }
      const std::string base = target[0] == '/' ? target : cur.substr(root_.size()) + "/" + target;
      if (!last || follow_final || dir_slash) {
        s.kind = Step::kRestart;
        s.link = true;
        s.next = base + rest;
        return s;
      }
      s.host = std::move(next);
      s.final_link = true;
      s.next = base;
      return s;
    }
    if (!last && !S_ISDIR(st.st_mode)) {  // ENOTDIR in the sysroot: the host's path may exist
      s.host = path;
      s.hosts = true;
      return s;
    }
    cur = std::move(next);
  }
  s.host = cur + slash;
  return s;
}

Sysroot::Step Sysroot::walk_all(std::string path, bool follow_final, int* links) const {
  for (;;) {
    Step s = walk(path, follow_final);
    if (s.kind == Step::kDone || (s.link && ++*links > kMaxLinks)) return s;
    path = std::move(s.next);
  }
}

Sysroot::Resolved Sysroot::resolve(std::string_view guest_path) const {
  Resolved out;
  if (root_.empty() || guest_path.empty() || guest_path[0] != '/') {
    out.follow = out.nofollow = std::string(guest_path);
    return out;
  }
  // The path with its final symlink unfollowed, then, when that is a symlink of the sysroot, its target.
  int links = 0;
  Step s = walk_all(std::string(guest_path), false, &links);
  if (s.kind != Step::kDone) {
    out.follow = out.nofollow = std::string(guest_path);
    out.error = out.follow_error = ELOOP;
    return out;
  }
  out.nofollow = std::move(s.host);
  out.follow_hosts = s.hosts;
  if (!s.final_link) {
    out.follow = out.nofollow;
    return out;
  }
  Step f;
  f.kind = Step::kRestart;
  if (++links <= kMaxLinks) f = walk_all(std::move(s.next), true, &links);
  if (f.kind != Step::kDone) {
    out.follow = out.nofollow;
    out.follow_error = ELOOP;
    return out;
  }
  out.follow = f.host;
  out.follow_hosts = f.hosts;
  return out;
}

std::string Sysroot::host_path(std::string_view guest_path) const {
  return resolve(guest_path).follow;
}

std::string Sysroot::to_guest(std::string_view host_path) const {
  if (root_.empty() || !host_path.starts_with(root_)) return std::string(host_path);
  if (host_path.size() == root_.size()) return "/";
  if (host_path[root_.size()] != '/') return std::string(host_path);
  return std::string(host_path.substr(root_.size()));
}

}  // namespace emu

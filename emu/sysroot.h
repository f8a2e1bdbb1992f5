// This file owns the -L sysroot rule: which host file an absolute guest path names, and how a host path
// inside the sysroot reads back to the guest (docs/sysroot.md).
#pragma once

#include <string>
#include <string_view>

namespace emu {

// The rule, for an absolute guest path P and a sysroot ROOT:
// - "/" itself, and P under /proc, /sys, /dev, /run or /tmp, are the host's (kHostOnly).
// - Otherwise P is walked one component at a time inside ROOT. When every component exists there (file,
//   directory, symlink or anything else), P is ROOT+P.
// - A symlink met inside ROOT is followed by a64run, not by the host kernel, so an absolute target is a
//   guest path again (the rule applies to it from the start) and a relative one is taken against the
//   link's directory; at most kMaxLinks links, then ELOOP. The final component's symlink is followed only
//   for calls that follow one (Resolved::follow); Resolved::nofollow names the link itself.
// - When a component is missing in ROOT, P is the host's P, except for a missing final component whose
//   parent is a directory of ROOT (not "/") and which the host does not have either: then ROOT+P, so a
//   file created in a directory of ROOT is created there.
// - ".." is taken lexically on the walked, symlink-free prefix (never above "/").
// Relative paths are the host's, relative to the host's working directory (which is inside ROOT after a
// chdir to a directory of ROOT).
class Sysroot {
 public:
  static constexpr int kMaxLinks = 40;  // the kernel's MAXSYMLINKS

  Sysroot() = default;
  // `root` empty or "/" means no sysroot. The root is made absolute and canonical (realpath) when it
  // exists, so that to_guest recognizes the host's getcwd() inside it.
  explicit Sysroot(const std::string& root);

  bool empty() const { return root_.empty(); }
  const std::string& root() const { return root_; }

  struct Resolved {
    std::string follow;    // for calls that follow a final symlink (open, stat, execve, chdir...)
    std::string nofollow;  // for calls that act on a final symlink itself (lstat, readlink, unlink...)
    int error = 0;         // ELOOP for both (a loop before the final component), else 0
    int follow_error = 0;  // ELOOP when following the final symlink loops; `follow` is `nofollow` then
    // `follow` is the host's own path: the rule did not map it into ROOT (a path the tree lacks, or under
    // /proc, /tmp...), so a guest that names ROOT's directories by their host paths gets this.
    bool follow_hosts = false;
  };
  // Resolves a guest path (relative ones come back unchanged).
  Resolved resolve(std::string_view guest_path) const;
  // resolve(guest_path).follow.
  std::string host_path(std::string_view guest_path) const;
  // A host path as the guest sees it: ROOT itself is "/", ROOT/x is /x; any other path is unchanged.
  std::string to_guest(std::string_view host_path) const;
  // True for the first components whose paths are always the host's ("proc", "sys", "dev", "run", "tmp").
  static bool is_host_only(std::string_view first_component);

 private:
  struct Step;
  // One pass over `path`; walk_all repeats it until done or past kMaxLinks links (counted in *links).
  Step walk(const std::string& path, bool follow_final) const;
  Step walk_all(std::string path, bool follow_final, int* links) const;
  std::string root_;
};

}  // namespace emu

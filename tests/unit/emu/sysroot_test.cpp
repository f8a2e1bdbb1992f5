// This file tests the -L sysroot rule (emu/sysroot.h) against a sysroot made in a temporary directory:
// files, directories, relative and absolute symlinks, the host-only prefixes, missing paths and new
// entries, "..", trailing slashes, symlink loops and the way back from host paths to guest paths.
#include "emu/sysroot.h"

#include <gtest/gtest.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <string>

namespace emu {
namespace {

namespace fs = std::filesystem;

class SysrootTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/a64run-sysroot-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    char real[PATH_MAX];
    ASSERT_NE(::realpath(tmpl, real), nullptr);
    root_ = real;
    dir("usr/bin");
    dir("usr/lib/python3.13/encodings");
    dir("etc/alternatives");
    dir("var");
    dir("tmp");
    dir("proc");
    file("usr/bin/python3.13");
    file("usr/lib/python3.13/encodings/__init__.py");
    link("python3.13", "usr/bin/python3");
    link("usr/lib", "lib");
    link("/usr/bin/python3", "etc/alternatives/py");
    link("/run", "var/run");
    link("/a64run-missing-top/file", "etc/dangling");
    link("/etc/loop2", "etc/loop1");
    link("/etc/loop1", "etc/loop2");
    sysroot_ = Sysroot(root_);
  }
  void TearDown() override { fs::remove_all(root_); }

  void dir(const std::string& rel) { fs::create_directories(root_ + "/" + rel); }
  void file(const std::string& rel) { std::ofstream(root_ + "/" + rel) << "x"; }
  void link(const std::string& target, const std::string& rel) {
    ASSERT_EQ(::symlink(target.c_str(), (root_ + "/" + rel).c_str()), 0) << rel;
  }
  std::string in_root(const std::string& p) const { return root_ + p; }
  std::string follow(const std::string& p) const { return sysroot_.resolve(p).follow; }
  std::string nofollow(const std::string& p) const { return sysroot_.resolve(p).nofollow; }

  std::string root_;
  Sysroot sysroot_;
};

TEST_F(SysrootTest, PathsOfTheSysrootGoThere) {
  EXPECT_EQ(follow("/usr/bin/python3.13"), in_root("/usr/bin/python3.13"));
  EXPECT_EQ(follow("/usr/lib/python3.13"), in_root("/usr/lib/python3.13"));  // a directory too
  EXPECT_EQ(follow("/usr"), in_root("/usr"));
  EXPECT_EQ(follow("//usr/./lib//python3.13"), in_root("/usr/lib/python3.13"));
  EXPECT_EQ(sysroot_.host_path("/usr/bin/python3.13"), in_root("/usr/bin/python3.13"));
}

TEST_F(SysrootTest, RelativeSymlinksAreFollowedInsideTheSysroot) {
  EXPECT_EQ(follow("/usr/bin/python3"), in_root("/usr/bin/python3.13"));
  EXPECT_EQ(nofollow("/usr/bin/python3"), in_root("/usr/bin/python3"));
  // A directory symlink in the middle of the path (Debian's merged /usr).
  EXPECT_EQ(follow("/lib/python3.13/encodings/__init__.py"),
            in_root("/usr/lib/python3.13/encodings/__init__.py"));
  EXPECT_EQ(nofollow("/lib/python3.13"), in_root("/usr/lib/python3.13"));
  EXPECT_EQ(nofollow("/lib"), in_root("/lib"));
  EXPECT_EQ(nofollow("/lib/"), in_root("/usr/lib/"));  // a trailing slash follows the link
}

TEST_F(SysrootTest, AbsoluteSymlinksAreGuestPathsAgain) {
  // /etc/alternatives/py -> /usr/bin/python3 -> python3.13: both links are the sysroot's.
  EXPECT_EQ(follow("/etc/alternatives/py"), in_root("/usr/bin/python3.13"));
  EXPECT_EQ(nofollow("/etc/alternatives/py"), in_root("/etc/alternatives/py"));
  // In the middle of a path, and to a host-only place: /var/run -> /run is the host's /run.
  EXPECT_EQ(follow("/var/run/a64run-x"), "/run/a64run-x");
  EXPECT_EQ(nofollow("/var/run"), in_root("/var/run"));
  EXPECT_EQ(follow("/var/run"), "/run");
  // A target that exists nowhere is the host's path (where a create through the link lands).
  EXPECT_EQ(follow("/etc/dangling"), "/a64run-missing-top/file");
}

TEST_F(SysrootTest, HostOnlyPrefixesAndRootStayTheHosts) {
  EXPECT_EQ(follow("/"), "/");
  EXPECT_EQ(follow("/tmp/a64run-x"), "/tmp/a64run-x");  // the sysroot has a /tmp, unused
  EXPECT_EQ(follow("/tmp"), "/tmp");
  EXPECT_EQ(follow("/proc/self/status"), "/proc/self/status");
  EXPECT_EQ(follow("/dev/null"), "/dev/null");
  EXPECT_EQ(follow("/sys/kernel"), "/sys/kernel");
  EXPECT_EQ(follow("/run/x"), "/run/x");
  EXPECT_EQ(follow("/../tmp/x"), "/../tmp/x");
  for (const char* c : {"proc", "sys", "dev", "run", "tmp"}) EXPECT_TRUE(Sysroot::is_host_only(c)) << c;
  EXPECT_FALSE(Sysroot::is_host_only("usr"));
  EXPECT_FALSE(Sysroot::is_host_only("tmpx"));
}

TEST_F(SysrootTest, MissingPathsGoWhereTheirParentIs) {
  // The host has /etc/passwd, the sysroot's /etc does not: the host's.
  ASSERT_EQ(::access("/etc/passwd", F_OK), 0);
  EXPECT_EQ(follow("/etc/passwd"), "/etc/passwd");
  // Neither has it: a new entry of the sysroot's /etc.
  EXPECT_EQ(follow("/etc/a64run-new-file"), in_root("/etc/a64run-new-file"));
  EXPECT_EQ(follow("/etc/a64run-new-dir/"), in_root("/etc/a64run-new-dir/"));
  // A top-level name the sysroot lacks: its parent is "/", the host's.
  EXPECT_EQ(follow("/a64run-missing-top"), "/a64run-missing-top");
  // A missing directory in the middle: the host's path (ENOENT there when it lacks it too).
  EXPECT_EQ(follow("/etc/a64run-no-dir/file"), "/etc/a64run-no-dir/file");
  // A file in the middle: the host's path.
  EXPECT_EQ(follow("/usr/bin/python3.13/x"), "/usr/bin/python3.13/x");
}

TEST_F(SysrootTest, DotDotIsTakenAfterSymlinks) {
  EXPECT_EQ(follow("/usr/bin/../lib/python3.13"), in_root("/usr/lib/python3.13"));
  // /lib is usr/lib, so /lib/.. is /usr (the kernel's answer), not "/".
  EXPECT_EQ(follow("/lib/../bin/python3.13"), in_root("/usr/bin/python3.13"));
  EXPECT_EQ(follow("/../usr/bin"), in_root("/usr/bin"));
  EXPECT_EQ(follow("/usr/.."), "/");
  EXPECT_EQ(follow("/usr/../tmp/x"), "/tmp/x");
}

TEST_F(SysrootTest, SymlinkLoopsAreEloop) {
  const Sysroot::Resolved last = sysroot_.resolve("/etc/loop1");
  EXPECT_EQ(last.error, 0);  // lstat, readlink and unlink of the link itself work
  EXPECT_EQ(last.nofollow, in_root("/etc/loop1"));
  EXPECT_EQ(last.follow_error, ELOOP);
  const Sysroot::Resolved middle = sysroot_.resolve("/etc/loop1/x");
  EXPECT_EQ(middle.error, ELOOP);
}

TEST_F(SysrootTest, AtMostFortyLinks) {
  // /c0 -> /c1 -> ... -> /cN -> /usr/bin/python3.13: N + 1 links.
  const auto chain = [&](int n) {
    for (int i = 0; i < n; ++i) link("/c" + std::to_string(i + 1), "c" + std::to_string(i));
    link("/usr/bin/python3.13", "c" + std::to_string(n));
  };
  chain(39);
  EXPECT_EQ(follow("/c0"), in_root("/usr/bin/python3.13"));  // 40 links
  fs::remove(root_ + "/c39");
  link("/c40", "c39");
  link("/usr/bin/python3.13", "c40");
  EXPECT_EQ(sysroot_.resolve("/c0").follow_error, ELOOP);  // 41 links
}

TEST_F(SysrootTest, RelativePathsAreUntouched) {
  EXPECT_EQ(follow("usr/bin"), "usr/bin");
  EXPECT_EQ(follow("../x"), "../x");
  EXPECT_EQ(follow(""), "");
}

// follow_hosts tells the two names of a directory of the sysroot apart (Process::cwd_by_host_path): the guest
// path is mapped into the sysroot, the host path (ROOT/usr/lib, which the tree lacks inside itself) is the
// host's.
TEST_F(SysrootTest, HostsSaysWhetherTheRuleLeftThePathTheHosts) {
  const auto hosts = [&](const std::string& p) { return sysroot_.resolve(p).follow_hosts; };
  EXPECT_FALSE(hosts("/usr/lib"));
  EXPECT_FALSE(hosts("/lib/python3.13"));       // through a relative symlink of the sysroot
  EXPECT_FALSE(hosts("/etc/alternatives/py"));  // through an absolute one, to the sysroot's file
  EXPECT_FALSE(hosts("/etc/a64run-new-file"));  // a new entry of the sysroot's /etc
  EXPECT_EQ(follow(in_root("/usr/lib")), in_root("/usr/lib"));
  EXPECT_TRUE(hosts(in_root("/usr/lib")));  // the same directory by its host path
  EXPECT_TRUE(hosts(root_));
  EXPECT_TRUE(hosts("/etc/passwd"));  // the tree lacks it
  EXPECT_TRUE(hosts("/tmp"));         // host-only prefixes and "/"
  EXPECT_TRUE(hosts("/"));
  EXPECT_TRUE(hosts("/var/run"));                        // a symlink of the sysroot to a host-only path
  EXPECT_TRUE(hosts("/usr/bin/python3.13/x"));           // a file in the middle: the host's path
  EXPECT_FALSE(Sysroot().resolve("/usr").follow_hosts);  // no sysroot: nothing to tell apart
}

TEST_F(SysrootTest, HostPathsReadBackAsGuestPaths) {
  EXPECT_EQ(sysroot_.to_guest(root_), "/");
  EXPECT_EQ(sysroot_.to_guest(root_ + "/usr/lib"), "/usr/lib");
  EXPECT_EQ(sysroot_.to_guest(root_ + "-other/usr"), root_ + "-other/usr");
  EXPECT_EQ(sysroot_.to_guest("/etc/passwd"), "/etc/passwd");
}

TEST(SysrootRootTest, RootIsCanonical) {
  EXPECT_TRUE(Sysroot("").empty());
  EXPECT_TRUE(Sysroot("/").empty());
  EXPECT_TRUE(Sysroot("//").empty());
  EXPECT_EQ(Sysroot("/usr/").root(), "/usr");
  EXPECT_EQ(Sysroot("/a64run-missing-root/").root(), "/a64run-missing-root");
  // Without a sysroot every path is its own.
  EXPECT_EQ(Sysroot().resolve("/usr/bin").follow, "/usr/bin");
  EXPECT_EQ(Sysroot().to_guest("/usr/bin"), "/usr/bin");
}

}  // namespace
}  // namespace emu

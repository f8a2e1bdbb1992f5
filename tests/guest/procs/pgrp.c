// Tests process groups and sessions, and pipes between parent and child: a forked child starts in the
// parent's group and session; setpgid by the child and by the parent; getpgid/getsid of other processes;
// setsid makes a new session and group (and fails with EPERM for a group leader); setpgid into another
// session is EPERM; kill(-pgid) reaches every member of a group; waitpid(-pgid) waits for that group only.
// Pipes: 1 MiB each way between parent and child (more than a pipe holds, so both block and wake), EOF when
// the writer closes, and a write to a pipe without readers kills the writer with SIGPIPE.
#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

static int wait_status(pid_t pid) {
  int status = 0;
  CHECK_EQ(waitpid(pid, &status, 0), pid);
  return status;
}

// waitpid with a deadline of 10 s, after which the child is killed with SIGKILL (the status then says so).
static int wait_status_within_10s(pid_t pid) {
  int status = 0;
  for (int i = 0; i < 10000; i++) {
    pid_t got = waitpid(pid, &status, WNOHANG);
    if (got == pid) return status;
    if (got != 0) {
      CHECK_EQ(got, 0);
      return -1;
    }
    usleep(1000);
  }
  NOTE("child %d still alive after 10 s: killing it", (int)pid);
  kill(pid, SIGKILL);
  return wait_status(pid);
}

#define CHECK_CHILD_OK(status, what)                                              \
  do {                                                                            \
    int s_ = (status);                                                            \
    if (!CHECK(WIFEXITED(s_) && WEXITSTATUS(s_) == 0))                            \
      NOTE("%s: child status 0x%x (its failed step is the exit code)", what, s_); \
  } while (0)

// The child's checks, numbered: it exits with the number of the first that fails.
static void test_child_groups_and_session(void) {
  pid_t parent = getpid(), parent_pgrp = getpgrp(), parent_sid = getsid(0);
  pid_t pid = REQUIRE_SYS(fork());
  if (pid == 0) {
    pid_t me = getpid();
    if (getpgrp() != parent_pgrp || getpgid(0) != parent_pgrp) _exit(1);  // inherited group
    if (getsid(0) != parent_sid || getsid(parent) != parent_sid) _exit(2);
    if (getpgid(parent) != parent_pgrp) _exit(3);
    if (setpgid(0, 0) != 0 || getpgrp() != me || getpgid(me) != me) _exit(4);  // own group
    if (setpgid(0, parent_pgrp) != 0 || getpgrp() != parent_pgrp) _exit(5);    // back
    pid_t sid = setsid();
    if (sid != me || getsid(0) != me || getpgrp() != me) _exit(6);  // new session, new group
    if (setsid() != -1 || errno != EPERM) _exit(7);                 // a group leader cannot
    if (setpgid(0, parent_pgrp) != -1 || errno != EPERM) _exit(8);  // a group in another session
    if (getsid(parent) != parent_sid) _exit(9);
    _exit(0);
  }
  CHECK_CHILD_OK(wait_status(pid), "child's own group and session");
}

// The parent moves the child into a new group (the usual shell race is avoided by the child waiting).
static void test_parent_sets_group(void) {
  int go[2];
  REQUIRE_SYS(pipe(go));
  pid_t pid = REQUIRE_SYS(fork());
  if (pid == 0) {
    close(go[1]);
    char c;
    if (read(go[0], &c, 1) != 0) _exit(1);  // EOF once the parent is done
    _exit(getpgrp() == getpid() ? 0 : 2);
  }
  close(go[0]);
  CHECK_SYS(setpgid(pid, pid));
  CHECK_EQ(getpgid(pid), pid);
  CHECK_EQ(getsid(pid), getsid(0));
  close(go[1]);
  CHECK_CHILD_OK(wait_status(pid), "group set by the parent");
  CHECK_ERRNO(getpgid(pid), ESRCH);  // reaped
  CHECK_ERRNO(setpgid(pid, pid), ESRCH);
}

static pid_t blocked_child(int read_fd, int close_fd) {
  pid_t pid = REQUIRE_SYS(fork());
  if (pid == 0) {
    close(close_fd);
    char c;
    read(read_fd, &c, 1);  // until killed (or EOF, which would be a failure)
    _exit(1);
  }
  return pid;
}

static void test_kill_group(void) {
  int p[2];
  REQUIRE_SYS(pipe(p));
  pid_t first = blocked_child(p[0], p[1]);
  pid_t second = blocked_child(p[0], p[1]);
  pid_t outsider = blocked_child(p[0], p[1]);
  CHECK_SYS(setpgid(first, first));
  CHECK_SYS(setpgid(second, first));  // joins the first's group
  CHECK_SYS(setpgid(outsider, outsider));
  CHECK_EQ(getpgid(second), first);
  int status;
  CHECK_EQ(waitpid(-first, &status, WNOHANG), 0);  // members, none done
  CHECK_SYS(kill(-first, SIGKILL));                // the whole group
  for (int n = 0; n < 2; n++) {
    pid_t got = waitpid(-first, &status, 0);  // only members of that group
    CHECK(got == first || got == second);
    CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
  }
  CHECK_ERRNO(waitpid(-first, &status, WNOHANG), ECHILD);
  CHECK_EQ(waitpid(outsider, &status, WNOHANG), 0);  // not in the group: alive
  CHECK_SYS(kill(outsider, SIGTERM));                // default disposition: ends the child blocked in read
  status = wait_status_within_10s(outsider);
  if (!CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM))
    NOTE("SIGTERM'd child: status 0x%x", status);
  close(p[0]);
  close(p[1]);
}

enum { kBytes = 1 << 20 };

static uint8_t pattern(size_t i, int salt) {
  return (uint8_t)(i * 131 + (i >> 11) + salt);
}

// Writes kBytes of pattern(salt) in uneven chunks.
static int write_pattern(int fd, int salt) {
  static uint8_t buf[8191];
  size_t done = 0;
  while (done < kBytes) {
    size_t n = kBytes - done < sizeof buf ? kBytes - done : sizeof buf;
    for (size_t i = 0; i < n; i++) buf[i] = pattern(done + i, salt);
    ssize_t w = write(fd, buf, n);
    if (w <= 0) return 0;
    done += (size_t)w;
  }
  return 1;
}

// Reads until EOF; true if exactly kBytes of pattern(salt) arrived.
static int read_pattern(int fd, int salt) {
  static uint8_t buf[5000];
  size_t done = 0;
  for (;;) {
    ssize_t r = read(fd, buf, sizeof buf);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return 0;
    if (r == 0) return done == kBytes;
    for (ssize_t i = 0; i < r; i++)
      if (done + i >= kBytes || buf[i] != pattern(done + i, salt)) return 0;
    done += (size_t)r;
  }
}

static void test_pipes(void) {
  int down[2], up[2];
  REQUIRE_SYS(pipe(down));
  REQUIRE_SYS(pipe(up));
  pid_t pid = REQUIRE_SYS(fork());
  if (pid == 0) {
    close(down[1]);
    close(up[0]);
    if (!read_pattern(down[0], 1)) _exit(1);  // everything the parent sent, then EOF
    if (!write_pattern(up[1], 2)) _exit(2);   // and back
    _exit(0);
  }
  close(down[0]);
  close(up[1]);
  CHECK(write_pattern(down[1], 1));
  close(down[1]);  // the child sees EOF
  CHECK(read_pattern(up[0], 2));
  close(up[0]);
  CHECK_CHILD_OK(wait_status(pid), "1 MiB each way");

  // A writer whose pipe has no reader dies of SIGPIPE (default disposition).
  int p[2];
  REQUIRE_SYS(pipe(p));
  close(p[0]);  // before the fork, so that no process holds a read end
  pid = REQUIRE_SYS(fork());
  if (pid == 0) {
    write(p[1], "x", 1);
    _exit(3);  // not reached
  }
  close(p[1]);
  int status = wait_status(pid);
  if (!CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGPIPE)) NOTE("writer status 0x%x", status);
}

int main(void) {
  NOTE("child's group and session");
  test_child_groups_and_session();
  NOTE("parent sets the child's group");
  test_parent_sets_group();
  NOTE("kill a group");
  test_kill_group();
  NOTE("pipes");
  test_pipes();
  return check_done();
}

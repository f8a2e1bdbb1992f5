// This file implements the stub's connection: the listening socket, accepting a debugger before the first
// instruction, the thread that serves it, acknowledgements and retransmission, stop replies, and the exit
// report.
#include "gdb/stub.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>

#include "emu/task.h"
#include "gdb/arm64_target.h"
#include "syscalls/fd_util.h"

namespace gdb {
namespace {

Stub* g_stub = nullptr;
constexpr size_t kMaxEarlyPackets = 64;

// Listens on `where`: "PORT" (the loopback interface), "HOST:PORT", or a Unix socket path (with a '/').
int open_listener(const std::string& where, std::string* error) {
  if (where.find('/') != std::string::npos) {
    sockaddr_un sun{};
    sun.sun_family = AF_UNIX;
    if (where.size() >= sizeof sun.sun_path) {
      *error = fmt::format("debugger socket path too long: {}", where);
      return -1;
    }
    memcpy(sun.sun_path, where.data(), where.size());
    const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    ::unlink(where.c_str());
    if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&sun), sizeof sun) != 0 || ::listen(fd, 1) != 0) {
      *error = fmt::format("cannot listen on {}: {}", where, strerror(errno));
      if (fd >= 0) ::close(fd);
      return -1;
    }
    return fd;
  }
  // HOST is a numeric address (a64run is linked statically: no name service), [v6] in brackets, or
  // "localhost".
  const size_t colon = where.rfind(':');
  std::string host = colon == std::string::npos ? "127.0.0.1" : where.substr(0, colon);
  const std::string port = colon == std::string::npos ? where : where.substr(colon + 1);
  if (host.empty() || host == "localhost") host = "127.0.0.1";
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  sockaddr_storage ss{};
  socklen_t len = 0;
  const unsigned long port_no = port.empty() ? 0 : std::strtoul(port.c_str(), nullptr, 10);
  auto* v4 = reinterpret_cast<sockaddr_in*>(&ss);
  auto* v6 = reinterpret_cast<sockaddr_in6*>(&ss);
  if (::inet_pton(AF_INET, host.c_str(), &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    v4->sin_port = htons(static_cast<uint16_t>(port_no));
    len = sizeof *v4;
  } else if (::inet_pton(AF_INET6, host.c_str(), &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons(static_cast<uint16_t>(port_no));
    len = sizeof *v6;
  }
  if (len == 0 || port.empty() || port.find_first_not_of("0123456789") != std::string::npos ||
      port.size() > 5 || port_no > 65535) {
    *error =
        fmt::format("bad debugger address {}: want PORT, HOST:PORT (numeric HOST) or a socket path", where);
    return -1;
  }
  const int fd = ::socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  const int one = 1;
  if (fd >= 0) ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&ss), len) != 0 || ::listen(fd, 1) != 0) {
    *error = fmt::format("cannot listen on {}: {}", where, strerror(errno));
    if (fd >= 0) ::close(fd);
    return -1;
  }
  return fd;
}

int accept_one(int listen_fd) {
  const int fd = ::accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC);
  if (fd < 0) return -1;
  const int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);  // fails harmlessly on a Unix socket
  return fd;
}

void* stub_main(void* arg) {
  // No host signal is this thread's: the intake thread takes them, the wake signal is for guest threads.
  sigset_t all;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, nullptr);
  static_cast<Stub*>(arg)->serve();
}

bool write_all(int fd, std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

}  // namespace

Stub* Stub::instance() {
  return g_stub;
}

void Stub::install(Stub* s) {
  g_stub = s;
}

// The connection always takes the same reserved number (the program cannot see, close or reuse it; the
// reserved table never forgets an entry, so new numbers would fill it).
void Stub::adopt(int conn_fd) {
  {
    std::lock_guard lk(send_mu_);
    ::dup3(conn_fd, conn_slot_, O_CLOEXEC);
    ::close(conn_fd);
    final_sent_ = false;
    final_acked_ = false;
  }
  conn_.store(conn_slot_, std::memory_order_release);
  files_.clear();
  decoder_ = Decoder();
  no_ack_ = false;
  g_tid_ = c_tid_ = 0;
  early_.clear();
  enter_stop();
}

// A new client finds every thread stopped: the program's start for the first one, an interrupt after.
void Stub::enter_stop() {
  running_ = true;
  StopEvent ev;
  if (dbg_.wait_stopped(&ev)) {
    running_ = false;
    last_event_ = ev;
  }
}

void Stub::serve() {
  if (first_conn_ >= 0) adopt(first_conn_);
  while (true) {
    if (conn_.load(std::memory_order_acquire) < 0) {
      accept_client();
      continue;
    }
    if (!running_ && !early_.empty()) {
      const std::string pkt = std::move(early_.front());
      early_.pop_front();
      handle(pkt);
      continue;
    }
    poll_once();
  }
}

void Stub::accept_client() {
  const int fd = accept_one(listen_fd_);
  if (fd < 0) return;
  dbg_.attach(StopEvent::Kind::kInterrupt);
  adopt(fd);
}

void Stub::poll_once() {
  pollfd fds[3] = {{conn_.load(std::memory_order_acquire), POLLIN, 0},
                   {listen_fd_, POLLIN, 0},
                   {running_ ? dbg_.event_fd() : -1, POLLIN, 0}};
  if (::poll(fds, 3, -1) < 0) return;
  if (fds[1].revents & POLLIN) {
    const int second = accept_one(listen_fd_);  // one debugger at a time: the second is turned away
    if (second >= 0) ::close(second);
  }
  if (fds[2].revents & POLLIN) {
    uint64_t n;
    (void)!::read(dbg_.event_fd(), &n, sizeof n);
    StopEvent ev;
    if (running_ && dbg_.wait_stopped(&ev)) {
      running_ = false;
      last_event_ = ev;
      g_tid_ = ev.tid;
      send(stop_reply(ev));
    }
  }
  if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) read_input();
}

void Stub::read_input() {
  char buf[4096];
  const ssize_t n = ::recv(conn_.load(std::memory_order_acquire), buf, sizeof buf, 0);
  if (n < 0 && errno == EINTR) return;
  if (n <= 0) {
    drop_connection();
    return;
  }
  decoder_.feed(buf, static_cast<size_t>(n));
  while (auto item = decoder_.next()) {
    on_item(*item);
    if (conn_.load(std::memory_order_acquire) < 0) return;
  }
}

void Stub::on_item(const Decoder::Item& item) {
  const int fd = conn_.load(std::memory_order_acquire);
  switch (item.kind) {
    case Decoder::Kind::kAck: {
      std::lock_guard lk(send_mu_);
      if (final_sent_) {
        final_acked_ = true;
        final_cv_.notify_all();
      }
      return;
    }
    case Decoder::Kind::kNak:
      if (!last_sent_.empty()) (void)write_all(fd, last_sent_);
      return;
    case Decoder::Kind::kInterrupt:
      if (running_) dbg_.interrupt();
      return;
    case Decoder::Kind::kBadPacket:
      if (!no_ack_) (void)write_all(fd, "-");
      return;
    case Decoder::Kind::kPacket:
      if (!no_ack_) (void)write_all(fd, "+");
      if (!running_) {
        handle(item.data);
      } else if (early_.size() < kMaxEarlyPackets) {
        early_.push_back(item.data);
      }
      return;
  }
}

// The client left (closed, reset, or a read error): the program runs on without a debugger, and the
// listening socket takes the next one.
void Stub::drop_connection() {
  if (conn_.exchange(-1, std::memory_order_acq_rel) >= 0) {
    std::lock_guard lk(send_mu_);
    const int null = ::open("/dev/null", O_RDWR | O_CLOEXEC);  // closes the socket, keeps the number
    ::dup3(null, conn_slot_, O_CLOEXEC);
    ::close(null);
    final_acked_ = true;
    final_cv_.notify_all();
  }
  files_.clear();
  dbg_.detach();
  running_ = false;
  early_.clear();
}

void Stub::send(std::string_view payload) {
  std::lock_guard lk(send_mu_);
  const int fd = conn_.load(std::memory_order_acquire);
  if (fd < 0 || final_sent_) return;
  last_sent_ = frame(payload);
  (void)write_all(fd, last_sent_);
}

void Stub::send_final(const std::string& packet) {
  std::unique_lock lk(send_mu_);
  const int fd = conn_.load(std::memory_order_acquire);
  if (fd < 0 || final_sent_) return;
  final_sent_ = true;
  (void)write_all(fd, frame(packet));
  // As gdbserver and qemu's stub: the process ends once the client has acknowledged its end ('+', read by
  // the stub thread), so the client's acknowledgement never meets a closed socket (EPIPE on a Unix socket).
  // Bounded, for a client that stopped reading.
  if (!no_ack_.load(std::memory_order_relaxed))
    final_cv_.wait_for(lk, std::chrono::seconds(2), [this] { return final_acked_; });
  ::shutdown(fd, SHUT_WR);
}

void Stub::forget_after_fork() {
  conn_.store(-1, std::memory_order_relaxed);
  for (const int fd : {conn_slot_, listen_fd_, mem_fd_, dbg_.event_fd()}) ::close(fd);
  new (&send_mu_) std::mutex();
  final_sent_ = true;
}

std::string Stub::stop_reply(const StopEvent& ev) const {
  const std::string thread = fmt::format("thread:{:x};", ev.tid);
  switch (ev.kind) {
    case StopEvent::Kind::kSignal:
      return fmt::format("T{:02x}{}", to_gdb_signal(ev.sig), thread);
    case StopEvent::Kind::kBreakpoint:
      return "T05" + thread + "swbreak:;";
    case StopEvent::Kind::kWatch: {
      const char* kind = ev.watch == 'r' ? "rwatch" : ev.watch == 'a' ? "awatch" : "watch";
      return fmt::format("T05{}{}:{:x};", thread, kind, ev.addr);
    }
    case StopEvent::Kind::kInterrupt:
      return "T02" + thread;
    default:
      return "T05" + thread;
  }
}

[[noreturn]] void Stub::kill_program() {
  {
    std::lock_guard lk(send_mu_);
    final_sent_ = true;
  }
  ::kill(::getpid(), SIGKILL);
  _exit(128 + SIGKILL);
}

// --- hooks.h: starting, and the ends of the process ---

// The stub's descriptors are reserved (syscalls/fd_util.h): high numbers the program's system calls cannot
// touch, and which close_range skips.
bool start(emu::Process& proc, const std::string& where, std::string* error) {
  int listen_fd = open_listener(where, error);
  if (listen_fd < 0) return false;
  const int mem_fd = ::open("/proc/self/mem", O_RDWR | O_CLOEXEC);
  const int event_fd = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  const int slot = ::open("/dev/null", O_RDWR | O_CLOEXEC);
  if (mem_fd < 0 || event_fd < 0 || slot < 0) {
    *error = fmt::format("debugger: {}", strerror(errno));
    return false;
  }
  listen_fd = syscalls::make_reserved_fd(listen_fd);
  const int conn = accept_one(listen_fd);  // qemu-user's -g: nothing runs until the debugger is there
  if (conn < 0) {
    *error = fmt::format("debugger: accept: {}", strerror(errno));
    return false;
  }
  auto* dbg = new Debugger(proc);
  dbg->set_event_fd(syscalls::make_reserved_fd(event_fd));
  Debugger::install(dbg);
  auto* stub =
      new Stub(*dbg, listen_fd, syscalls::make_reserved_fd(mem_fd), syscalls::make_reserved_fd(slot));
  Stub::install(stub);
  dbg->attach(StopEvent::Kind::kStart);
  stub->set_first_connection(conn);
  pthread_t th;
  if (pthread_create(&th, nullptr, &stub_main, stub) != 0) {
    *error = "debugger: cannot start its thread";
    return false;
  }
  pthread_detach(th);
  return true;
}

void checkpoint(emu::Task& t) {
  if (Debugger* d = Debugger::instance()) d->checkpoint(t);
}

bool on_stop(emu::Task& t, const emu::StopInfo& stop) {
  Debugger* d = Debugger::instance();
  return d != nullptr && d->on_stop(t, stop);
}

int on_signal(emu::Task& t, const guest::siginfo& info) {
  Debugger* d = Debugger::instance();
  return d == nullptr ? info.si_signo : d->on_signal(t, info);
}

// Only the debugged process reports its end: a CLONE_VM child process shares this memory, stub included.
void on_exit(int status) {
  Debugger* d = Debugger::instance();
  Stub* s = Stub::instance();
  if (d != nullptr && s != nullptr && emu::Process::current() == &d->proc())
    s->send_final(fmt::format("W{:02x}", status & 0xff));
}

void on_killed(int sig) {
  Debugger* d = Debugger::instance();
  Stub* s = Stub::instance();
  if (d != nullptr && s != nullptr && emu::Process::current() == &d->proc())
    s->send_final(fmt::format("X{:02x}", to_gdb_signal(sig)));
}

void after_fork_child() {
  if (Stub* s = Stub::instance()) s->forget_after_fork();
  if (Debugger* d = Debugger::instance()) d->forget_after_fork();
}

}  // namespace gdb

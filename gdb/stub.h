// Stub: GDB's remote serial protocol on one connection at a time, in a thread of its own (qemu-user's -g).
// It answers the debugger while every guest thread is stopped (gdb/debugger.h), waits for the next stop
// while they run, and takes the interrupt byte. A second client is turned away (its connection closed); a
// client that goes away detaches, and the program runs on. Nothing a client sends can crash a64run or
// reach memory outside the guest's mappings: packets are bounded and parsed strictly, and guest memory is
// read and written through /proc/self/mem after a check against the VMAs, so a bad address is an error
// reply.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <string_view>

#include "gdb/debugger.h"
#include "gdb/rsp.h"

namespace gdb {

class Stub {
 public:
  // conn_slot: a reserved descriptor number each connection is moved to.
  Stub(Debugger& dbg, int listen_fd, int mem_fd, int conn_slot)
      : dbg_(dbg), listen_fd_(listen_fd), mem_fd_(mem_fd), conn_slot_(conn_slot) {}
  static Stub* instance();
  static void install(Stub* s);

  // The client accepted before the program starts, for serve() to take.
  void set_first_connection(int fd) { first_conn_ = fd; }
  // The stub thread's loop; never returns.
  [[noreturn]] void serve();
  // From the guest thread that ends the process: the exit packet (W or X), then the connection closes.
  void send_final(const std::string& packet);
  // A fork child's copy: closes the connection and the listening socket without a word.
  void forget_after_fork();

 private:
  enum class Reply { kSend, kNone };

  void adopt(int conn_fd);
  void accept_client();
  void poll_once();
  void read_input();
  void on_item(const Decoder::Item& item);
  void handle(const std::string& pkt);
  void send(std::string_view payload);
  void drop_connection();
  void enter_stop();
  std::string stop_reply(const StopEvent& ev) const;

  // Packet handlers (gdb/stub_packets.cpp); each returns the reply payload.
  std::string on_query(std::string_view pkt);
  std::string on_xfer(std::string_view pkt);
  std::string on_set(std::string_view pkt);
  std::string on_v(std::string_view pkt);
  std::string on_vfile(std::string_view pkt);  // gdb/stub_files.cpp
  std::string on_registers(std::string_view pkt);
  std::string on_memory(std::string_view pkt);
  std::string on_break(std::string_view pkt);
  std::string on_resume(std::string_view pkt);
  std::string on_thread_select(std::string_view pkt);
  bool resume_with(const Resume& r);
  std::string threads_xml();
  int current_tid() const;
  size_t read_memory(uint64_t addr, size_t len, std::string* out);
  bool write_memory(uint64_t addr, const std::string& data);
  [[noreturn]] void kill_program();

  Debugger& dbg_;
  const int listen_fd_;
  const int mem_fd_;
  const int conn_slot_;
  int first_conn_ = -1;
  std::atomic<int> conn_{-1};
  std::mutex send_mu_;        // one writer at a time: the stub, or the exiting guest thread
  bool final_sent_ = false;   // GUARDED_BY(send_mu_)
  bool final_acked_ = false;  // GUARDED_BY(send_mu_): the client acknowledged the final packet, or left
  std::condition_variable final_cv_;
  std::string last_sent_;  // the last packet, framed, for a '-' from the client
  Decoder decoder_;
  std::deque<std::string> early_;    // packets that came while the program ran, answered at the next stop
  std::atomic<bool> no_ack_{false};  // read by the exiting guest thread too
  bool running_ = false;
  bool resumed_ = false;  // the packet being handled resumed the program: no reply now
  StopEvent last_event_;
  int g_tid_ = 0;                     // Hg: the thread whose registers g/p/G/P touch (0: the last stop's)
  int c_tid_ = 0;                     // Hc: the thread legacy c/s resume
  std::string xfer_cache_;            // qXfer:threads document, built at offset 0
  std::map<int, std::string> files_;  // vFile handles: the host path each names
  int next_file_ = 1;
};

}  // namespace gdb

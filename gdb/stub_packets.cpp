// This file implements the stub's packets: queries and qXfer objects, registers, memory, breakpoints and
// watchpoints, thread selection, resumption (vCont and the legacy forms), detach and kill. Every handler
// parses its packet completely and answers a malformed one with an error ("E01") or, for a packet it does
// not know, the empty reply the protocol asks for.
#include <fmt/format.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <shared_mutex>

#include "emu/task.h"
#include "gdb/arm64_target.h"
#include "gdb/stub.h"

namespace gdb {
namespace {

constexpr const char* kBad = "E01";       // a malformed packet
constexpr const char* kFault = "E0e";     // EFAULT: no such memory
constexpr const char* kNoThread = "E03";  // ESRCH: no such thread, or its registers are not available
// The largest memory read: its hex reply must fit a packet.
constexpr size_t kMaxRead = (kMaxPacket - 8) / 2;

std::string xfer_chunk(std::string_view doc, uint64_t off, uint64_t len) {
  if (off > doc.size()) return kBad;
  const std::string_view part = doc.substr(off, std::min<uint64_t>(len, kMaxRead));
  return (off + part.size() >= doc.size() ? "l" : "m") + std::string(part);
}

// "c", "C13", "s", "S0b", "t" (with an optional ":tid" after it, parsed by the caller).
bool parse_action(std::string_view a, Action* action, int* sig) {
  *sig = 0;
  if (a.empty()) return false;
  const char c = a[0];
  if ((c == 'c' || c == 's' || c == 't') && a.size() == 1) {
    *action = c == 's' ? Action::kStep : c == 't' ? Action::kStop : Action::kContinue;
    return true;
  }
  if (c != 'C' && c != 'S') return false;
  const auto g = parse_hex(a.substr(1));
  if (!g || *g > 0xff) return false;
  *action = c == 'S' ? Action::kStep : Action::kContinue;
  *sig = from_gdb_signal(static_cast<int>(*g));
  return true;
}

// A thread id: hex, or -1 for every thread (0 here).
bool parse_tid(std::string_view s, int* tid) {
  if (s == "-1" || s == "0") {
    *tid = 0;
    return true;
  }
  const auto v = parse_hex(s);
  if (!v || *v > 0x7fffffff) return false;
  *tid = static_cast<int>(*v);
  return true;
}

}  // namespace

void Stub::handle(const std::string& pkt) {
  if (pkt.empty()) {
    send("");
    return;
  }
  std::string reply;
  resumed_ = false;
  switch (pkt[0]) {
    case '?':
      reply = stop_reply(last_event_);
      break;
    case 'q':
      reply = pkt.starts_with("qXfer:") ? on_xfer(pkt) : on_query(pkt);
      break;
    case 'Q':
      if (pkt == "QStartNoAckMode") {  // acknowledged the old way; neither side acknowledges after it
        send("OK");
        no_ack_ = true;
        return;
      }
      reply = on_set(pkt);
      break;
    case 'v':
      reply = on_v(pkt);
      break;
    case 'g':
    case 'G':
    case 'p':
    case 'P':
      reply = on_registers(pkt);
      break;
    case 'm':
    case 'M':
    case 'X':
      reply = on_memory(pkt);
      break;
    case 'Z':
    case 'z':
      reply = on_break(pkt);
      break;
    case 'H':
      reply = on_thread_select(pkt);
      break;
    case 'T': {
      int tid = 0;
      reply = parse_tid(std::string_view(pkt).substr(1), &tid) && tid != 0 && dbg_.thread_alive(tid)
                  ? "OK"
                  : kNoThread;
      break;
    }
    case 'c':
    case 'C':
    case 's':
    case 'S':
      reply = on_resume(pkt);
      break;
    case 'D':
      send("OK");
      drop_connection();
      return;
    case 'k':
      kill_program();
    default:
      break;  // unknown: the empty reply
  }
  if (!resumed_) send(reply);  // a resumption's answer is the next stop reply
}

std::string Stub::on_query(std::string_view pkt) {
  if (pkt.starts_with("qSupported"))
    return fmt::format(
        "PacketSize={:x};qXfer:features:read+;qXfer:auxv:read+;qXfer:exec-file:read+;qXfer:threads:read+;"
        "qXfer:siginfo:read+;QStartNoAckMode+;QPassSignals+;QProgramSignals+;vContSupported+;swbreak+",
        kMaxPacket);
  if (pkt == "qC") return fmt::format("QC{:x}", current_tid());
  if (pkt == "qAttached" || pkt.starts_with("qAttached:")) return "0";  // we started it: quit kills it
  if (pkt == "qfThreadInfo") {
    std::string out = "m";
    for (const int tid : dbg_.thread_ids()) out += fmt::format("{}{:x}", out.size() > 1 ? "," : "", tid);
    return out;
  }
  if (pkt == "qsThreadInfo") return "l";
  if (pkt.starts_with("qSymbol:")) return "OK";
  if (pkt.starts_with("qThreadExtraInfo,")) {
    int tid = 0;
    if (!parse_tid(pkt.substr(17), &tid) || tid == 0) return kBad;
    return to_hex(dbg_.thread_name(tid));
  }
  return "";
}

// qXfer:OBJECT:read:ANNEX:OFFSET,LENGTH
std::string Stub::on_xfer(std::string_view pkt) {
  const size_t read_at = pkt.find(":read:");
  if (read_at == std::string_view::npos) return "";
  const std::string_view object = pkt.substr(6, read_at - 6);
  const std::string_view rest = pkt.substr(read_at + 6);
  const size_t colon = rest.find(':');
  uint64_t off = 0, len = 0;
  if (colon == std::string_view::npos || !parse_pair(rest.substr(colon + 1), ',', &off, &len)) return kBad;
  const std::string_view annex = rest.substr(0, colon);
  emu::Process& proc = dbg_.proc();
  if (object == "features") return annex == "target.xml" ? xfer_chunk(target_xml(), off, len) : "E00";
  if (object == "auxv") {
    return xfer_chunk(std::string_view(reinterpret_cast<const char*>(proc.auxv.data()), proc.auxv.size()),
                      off, len);
  }
  if (object == "exec-file") return xfer_chunk(proc.exe_path, off, len);
  if (object == "threads") {
    if (off == 0) xfer_cache_ = threads_xml();
    return xfer_chunk(xfer_cache_, off, len);
  }
  if (object == "siginfo") {
    if (last_event_.kind != StopEvent::Kind::kSignal || current_tid() != last_event_.tid) return kNoThread;
    return xfer_chunk(
        std::string_view(reinterpret_cast<const char*>(&last_event_.info), sizeof last_event_.info), off,
        len);
  }
  return "";
}

std::string Stub::threads_xml() {
  std::string x = "<?xml version=\"1.0\"?>\n<threads>\n";
  for (const int tid : dbg_.thread_ids()) {
    std::string name;
    for (const char c : dbg_.thread_name(tid)) {
      if (c == '<' || c == '>' || c == '&' || c == '"' || static_cast<unsigned char>(c) < 0x20) continue;
      name.push_back(c);
    }
    x += fmt::format("<thread id=\"{:x}\" name=\"{}\"/>\n", tid, name);
  }
  return x + "</threads>\n";
}

std::string Stub::on_set(std::string_view pkt) {
  if (pkt.starts_with("QPassSignals:")) {
    uint64_t mask = 0;
    std::string_view list = pkt.substr(13);
    while (!list.empty()) {
      const size_t semi = list.find(';');
      const auto g = parse_hex(list.substr(0, semi));
      if (!g || *g > 0xff) return kBad;
      const int sig = from_gdb_signal(static_cast<int>(*g));
      if (sig > 0 && sig < 64) mask |= uint64_t{1} << sig;
      list = semi == std::string_view::npos ? std::string_view() : list.substr(semi + 1);
    }
    dbg_.set_pass_signals(mask);
    return "OK";
  }
  if (pkt.starts_with("QProgramSignals:")) return "OK";  // gdb's resume says which signal to deliver
  return "";
}

std::string Stub::on_v(std::string_view pkt) {
  if (pkt.starts_with("vFile:")) return on_vfile(pkt);
  if (pkt == "vCont?") return "vCont;c;C;s;S;t";
  if (pkt.starts_with("vCont;")) {
    Resume r;
    std::string_view list = pkt.substr(6);
    while (!list.empty()) {
      const size_t semi = list.find(';');
      const std::string_view one = list.substr(0, semi);
      list = semi == std::string_view::npos ? std::string_view() : list.substr(semi + 1);
      const size_t colon = one.find(':');
      Resume::One o{0, Action::kContinue, 0};
      if (!parse_action(one.substr(0, colon), &o.action, &o.sig)) return kBad;
      if (colon != std::string_view::npos && !parse_tid(one.substr(colon + 1), &o.tid)) return kBad;
      // The first action that names a thread wins (vCont's rule); a later default does not override it.
      const bool seen = std::any_of(r.actions.begin(), r.actions.end(),
                                    [&](const Resume::One& x) { return x.tid == o.tid; });
      if (!seen) r.actions.push_back(o);
    }
    return resume_with(r) ? "" : kBad;
  }
  if (pkt.starts_with("vKill")) {
    send("OK");
    kill_program();
  }
  return "";
}

bool Stub::resume_with(const Resume& r) {
  if (r.actions.empty()) return false;
  running_ = true;
  resumed_ = true;
  dbg_.resume(r);
  return true;
}

// Legacy resumption: c/C/s/S [;]addr. s and S step the Hc thread (or the last stop's) and leave the others
// stopped; c and C resume every thread.
std::string Stub::on_resume(std::string_view pkt) {
  const char c = pkt[0];
  std::string_view rest = pkt.substr(1);
  int sig = 0;
  if (c == 'C' || c == 'S') {
    const size_t semi = rest.find(';');
    const auto g = parse_hex(rest.substr(0, semi));
    if (!g || *g > 0xff) return kBad;
    sig = from_gdb_signal(static_cast<int>(*g));
    rest = semi == std::string_view::npos ? std::string_view() : rest.substr(semi + 1);
  }
  const int tid = c_tid_ != 0 ? c_tid_ : last_event_.tid;
  if (!rest.empty()) {
    const auto addr = parse_hex(rest);
    emu::CpuState s;
    if (!addr || !dbg_.read_registers(tid, &s)) return kBad;
    s.pc = *addr;
    if (!dbg_.write_registers(tid, s)) return kNoThread;
  }
  Resume r;
  if (c == 's' || c == 'S') {
    r.actions.push_back({tid, Action::kStep, sig});
  } else {
    r.actions.push_back({tid, Action::kContinue, sig});
    r.actions.push_back({0, Action::kContinue, 0});
  }
  return resume_with(r) ? "" : kBad;
}

std::string Stub::on_thread_select(std::string_view pkt) {
  if (pkt.size() < 3 || (pkt[1] != 'g' && pkt[1] != 'c')) return "";
  int tid = 0;
  if (!parse_tid(pkt.substr(2), &tid)) return kBad;
  if (tid != 0 && !dbg_.thread_alive(tid)) return kNoThread;
  (pkt[1] == 'g' ? g_tid_ : c_tid_) = tid;
  return "OK";
}

int Stub::current_tid() const {
  return g_tid_ != 0 ? g_tid_ : last_event_.tid;
}

std::string Stub::on_registers(std::string_view pkt) {
  emu::CpuState s;
  const int tid = current_tid();
  if (!dbg_.read_registers(tid, &s)) return kNoThread;
  switch (pkt[0]) {
    case 'g':
      return pkt.size() == 1 ? encode_registers(s) : kBad;
    case 'G':
      if (!decode_registers(pkt.substr(1), &s)) return kBad;
      return dbg_.write_registers(tid, s) ? "OK" : kNoThread;
    case 'p': {
      const auto n = parse_hex(pkt.substr(1));
      std::string hex;
      if (!n || *n > 0xffff || !encode_register(s, static_cast<int>(*n), &hex)) return kBad;
      return hex;
    }
    default: {  // P n=value
      const size_t eq = pkt.find('=');
      const auto n = parse_hex(pkt.substr(1, eq == std::string_view::npos ? 0 : eq - 1));
      if (!n || *n > 0xffff || !decode_register(static_cast<int>(*n), pkt.substr(eq + 1), &s)) return kBad;
      return dbg_.write_registers(tid, s) ? "OK" : kNoThread;
    }
  }
}

std::string Stub::on_memory(std::string_view pkt) {
  const size_t colon = pkt.find(':');
  uint64_t addr = 0, len = 0;
  if (!parse_pair(pkt.substr(1, colon == std::string_view::npos ? std::string_view::npos : colon - 1), ',',
                  &addr, &len))
    return kBad;
  if (pkt[0] == 'm') {
    if (colon != std::string_view::npos) return kBad;
    std::string bytes;
    if (read_memory(addr, std::min<uint64_t>(len, kMaxRead), &bytes) == 0 && len != 0) return kFault;
    return to_hex(bytes);
  }
  if (colon == std::string_view::npos) return kBad;
  std::string data;
  const std::string_view body = pkt.substr(colon + 1);
  if (pkt[0] == 'M') {
    if (!from_hex(body, &data)) return kBad;
  } else {
    data = std::string(body);  // X: binary, already unescaped by the decoder
  }
  if (data.size() != len) return kBad;
  if (len == 0) return "OK";
  return write_memory(addr, data) ? "OK" : kFault;
}

// Z0/Z1 breakpoints (both are Unicorn exits, kind 4), Z2/Z3/Z4 watchpoints.
std::string Stub::on_break(std::string_view pkt) {
  if (pkt.size() < 4 || pkt[2] != ',' || pkt[1] < '0' || pkt[1] > '4') return "";
  const int type = pkt[1] - '0';
  uint64_t addr = 0, kind = 0;
  std::string_view args = pkt.substr(3);
  args = args.substr(0, args.find(';'));  // conditions and commands (";X...") are not evaluated here
  if (!parse_pair(args, ',', &addr, &kind)) return kBad;
  const bool insert = pkt[0] == 'Z';
  if (type <= 1) {
    if (kind != 4) return kBad;
    return (insert ? dbg_.add_breakpoint(addr) : dbg_.remove_breakpoint(addr)) ? "OK" : kBad;
  }
  const Watchpoint w{addr, kind, type};
  return (insert ? dbg_.add_watchpoint(w) : dbg_.remove_watchpoint(w)) ? "OK" : kBad;
}

size_t Stub::read_memory(uint64_t addr, size_t len, std::string* out) {
  emu::AddressSpace& as = dbg_.proc().as();
  out->resize(len);
  size_t done = 0;
  std::shared_lock lk(as.lock());
  while (done < len) {
    const uint64_t a = addr + done;
    const size_t chunk = std::min<uint64_t>(len - done, emu::kPageSize - (a & emu::kPageMask));
    if (a < addr || !as.accessible_locked(a, chunk, 0)) break;
    const ssize_t n = ::pread(mem_fd_, out->data() + done, chunk, reinterpret_cast<off_t>(as.host(a)));
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  out->resize(done);
  return done;
}

// Writes go through /proc/self/mem, as ptrace's do: they reach read-only private pages (code) too. Code
// written this way is new code: every vCPU drops its translations before it runs again.
bool Stub::write_memory(uint64_t addr, const std::string& data) {
  emu::AddressSpace& as = dbg_.proc().as();
  bool code = false;
  {
    std::shared_lock lk(as.lock());
    if (!as.accessible_locked(addr, data.size(), 0)) return false;
    if (::pwrite(mem_fd_, data.data(), data.size(), reinterpret_cast<off_t>(as.host(addr))) !=
        static_cast<ssize_t>(data.size()))
      return false;
    for (uint64_t p = emu::page_down(addr); p < addr + data.size(); p += emu::kPageSize)
      code = code || as.accessible_locked(p, 1, PROT_EXEC);
  }
  if (code) as.invalidate_code();
  return true;
}

}  // namespace gdb

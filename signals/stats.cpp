// This file implements --signal-stats.
#include "signals/stats.h"

#include <fmt/format.h>
#include <time.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <mutex>
#include <vector>

#include "emu/task.h"
#include "signals/park.h"

namespace signals {
namespace {

struct Samples {
  std::vector<uint64_t> queue_to_entry;
  std::vector<uint64_t> entry_to_return;
};

std::atomic<bool> g_enabled{false};
std::atomic<uint64_t> g_sent[kNumSignals + 1];
std::atomic<uint64_t> g_merged[kNumSignals + 1];
std::mutex g_mu;
Samples g_samples[kNumSignals + 1];  // GUARDED_BY(g_mu)
std::string g_json_path;

struct Summary {
  size_t count = 0;
  double p50 = 0, p99 = 0, max = 0;  // microseconds
};

Summary summarize(std::vector<uint64_t> v) {
  Summary s;
  s.count = v.size();
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  auto at = [&](double q) {
    return static_cast<double>(v[std::min(v.size() - 1, static_cast<size_t>(q * v.size()))]) / 1e3;
  };
  s.p50 = at(0.5);
  s.p99 = at(0.99);
  s.max = static_cast<double>(v.back()) / 1e3;
  return s;
}

}  // namespace

void enable_stats(const std::string& json_path) {
  g_json_path = json_path;
  g_enabled = true;
}

bool stats_enabled() {
  return g_enabled.load(std::memory_order_relaxed);
}

void record_send(int sig, bool merged) {
  if (!stats_enabled() || sig < 1 || sig > kNumSignals) return;
  g_sent[sig].fetch_add(1, std::memory_order_relaxed);
  if (merged) g_merged[sig].fetch_add(1, std::memory_order_relaxed);
}

void record_handler_entry(emu::Task& t, const PendingSignal& p) {
  if (!stats_enabled()) return;
  const uint64_t now = now_ns();
  if (t.handler_entries.size() >= 64) t.handler_entries.erase(t.handler_entries.begin());  // siglongjmp'd out
  t.handler_entries.emplace_back(p.info.si_signo, now);
  if (p.queued_ns == 0) return;  // synchronous faults are not queued
  std::lock_guard lk(g_mu);
  g_samples[p.info.si_signo].queue_to_entry.push_back(now - p.queued_ns);
}

void record_sigreturn(emu::Task& t) {
  if (!stats_enabled() || t.handler_entries.empty()) return;
  const auto [sig, entry] = t.handler_entries.back();
  t.handler_entries.pop_back();
  std::lock_guard lk(g_mu);
  g_samples[sig].entry_to_return.push_back(now_ns() - entry);
}

void print_stats_at_exit() {
  if (!stats_enabled()) return;
  std::lock_guard lk(g_mu);
  std::string table = "a64run signal stats (microseconds)\n";
  table += fmt::format("{:>4} {:>8} {:>8} {:>8} {:>10} {:>10} {:>10} {:>8} {:>10} {:>10} {:>10}\n", "sig",
                       "sent", "merged", "count", "queue.p50", "queue.p99", "queue.max", "returns",
                       "hand.p50", "hand.p99", "hand.max");
  std::string json = "{\"signals\": [";
  bool first = true;
  for (int sig = 1; sig <= kNumSignals; ++sig) {
    const Summary q = summarize(g_samples[sig].queue_to_entry);
    const Summary h = summarize(g_samples[sig].entry_to_return);
    const uint64_t sent = g_sent[sig].load(), merged = g_merged[sig].load();
    if (q.count == 0 && h.count == 0 && sent == 0) continue;
    table += fmt::format(
        "{:>4} {:>8} {:>8} {:>8} {:>10.1f} {:>10.1f} {:>10.1f} {:>8} {:>10.1f} {:>10.1f} {:>10.1f}\n", sig,
        sent, merged, q.count, q.p50, q.p99, q.max, h.count, h.p50, h.p99, h.max);
    json += fmt::format(
        "{}{{\"signal\": {}, \"sent\": {}, \"merged\": {}, \"delivered\": {}, \"queue_to_entry_us\": "
        "{{\"p50\": {:.3f}, \"p99\": {:.3f}, "
        "\"max\": {:.3f}}}, \"returns\": {}, \"entry_to_return_us\": {{\"p50\": {:.3f}, \"p99\": {:.3f}, "
        "\"max\": {:.3f}}}}}",
        first ? "" : ", ", sig, sent, merged, q.count, q.p50, q.p99, q.max, h.count, h.p50, h.p99, h.max);
    first = false;
  }
  json += "]}\n";
  if (g_json_path.empty()) {
    fputs(table.c_str(), stderr);
    return;
  }
  if (FILE* f = fopen(g_json_path.c_str(), "w")) {
    fputs(json.c_str(), f);
    fclose(f);
  }
}

}  // namespace signals

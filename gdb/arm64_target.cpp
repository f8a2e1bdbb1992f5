// This file describes an arm64 thread to gdb: the target description, the register file's encoding, and
// the translation between Linux's and gdb's signal numbers.
#include "gdb/arm64_target.h"

#include <fmt/format.h>

#include <cstring>

#include "gdb/rsp.h"

namespace gdb {
namespace {

// The register file in gdb's order: where each register lives in a CpuState, and its size in the packets.
struct RegSlot {
  size_t offset;
  size_t size;
};

RegSlot slot(int regno) {
  if (regno <= 30) return {offsetof(emu::CpuState, x) + 8 * static_cast<size_t>(regno), 8};
  if (regno == 31) return {offsetof(emu::CpuState, sp), 8};
  if (regno == 32) return {offsetof(emu::CpuState, pc), 8};
  if (regno == 33) return {offsetof(emu::CpuState, nzcv), 4};  // cpsr: a user thread reads NZCV, EL0t
  if (regno <= 65) return {offsetof(emu::CpuState, v) + 16 * static_cast<size_t>(regno - 34), 16};
  if (regno == 66) return {offsetof(emu::CpuState, fpsr), 4};
  if (regno == 67) return {offsetof(emu::CpuState, fpcr), 4};
  return {offsetof(emu::CpuState, tpidr), 8};
}

constexpr uint64_t kNzcvMask = 0xf0000000u;

std::string build_xml() {
  std::string x =
      "<?xml version=\"1.0\"?>\n<!DOCTYPE target SYSTEM \"gdb-target.dtd\">\n<target version=\"1.0\">\n"
      "<architecture>aarch64</architecture>\n<osabi>GNU/Linux</osabi>\n"
      "<feature name=\"org.gnu.gdb.aarch64.core\">\n";
  for (int i = 0; i <= 30; ++i) x += fmt::format("<reg name=\"x{}\" bitsize=\"64\"/>\n", i);
  x += "<reg name=\"sp\" bitsize=\"64\" type=\"data_ptr\"/>\n<reg name=\"pc\" bitsize=\"64\" "
       "type=\"code_ptr\"/>\n"
       "<flags id=\"cpsr_flags\" size=\"4\">\n"
       "<field name=\"SP\" start=\"0\" end=\"0\"/><field name=\"EL\" start=\"2\" end=\"3\"/>\n"
       "<field name=\"nRW\" start=\"4\" end=\"4\"/><field name=\"F\" start=\"6\" end=\"6\"/>\n"
       "<field name=\"I\" start=\"7\" end=\"7\"/><field name=\"A\" start=\"8\" end=\"8\"/>\n"
       "<field name=\"D\" start=\"9\" end=\"9\"/><field name=\"IL\" start=\"20\" end=\"20\"/>\n"
       "<field name=\"SS\" start=\"21\" end=\"21\"/><field name=\"V\" start=\"28\" end=\"28\"/>\n"
       "<field name=\"C\" start=\"29\" end=\"29\"/><field name=\"Z\" start=\"30\" end=\"30\"/>\n"
       "<field name=\"N\" start=\"31\" end=\"31\"/>\n</flags>\n"
       "<reg name=\"cpsr\" bitsize=\"32\" type=\"cpsr_flags\"/>\n</feature>\n"
       "<feature name=\"org.gnu.gdb.aarch64.fpu\">\n";
  // The vector views gdb's own aarch64-fpu.xml gives v0-v31 ($v0.d.u[1], $v0.s.f[0], ...).
  const char* vectors[][3] = {{"v2d", "ieee_double", "2"}, {"v2u", "uint64", "2"}, {"v2i", "int64", "2"},
                              {"v4f", "ieee_single", "4"}, {"v4u", "uint32", "4"}, {"v4i", "int32", "4"},
                              {"v8f", "ieee_half", "8"},   {"v8u", "uint16", "8"}, {"v8i", "int16", "8"},
                              {"v16u", "uint8", "16"},     {"v16i", "int8", "16"}, {"v1u", "uint128", "1"},
                              {"v1i", "int128", "1"}};
  for (const auto& v : vectors)
    x += fmt::format("<vector id=\"{}\" type=\"{}\" count=\"{}\"/>\n", v[0], v[1], v[2]);
  x += "<union id=\"vnd\"><field name=\"f\" type=\"v2d\"/><field name=\"u\" type=\"v2u\"/>"
       "<field name=\"s\" type=\"v2i\"/></union>\n"
       "<union id=\"vns\"><field name=\"f\" type=\"v4f\"/><field name=\"u\" type=\"v4u\"/>"
       "<field name=\"s\" type=\"v4i\"/></union>\n"
       "<union id=\"vnh\"><field name=\"f\" type=\"v8f\"/><field name=\"u\" type=\"v8u\"/>"
       "<field name=\"s\" type=\"v8i\"/></union>\n"
       "<union id=\"vnb\"><field name=\"u\" type=\"v16u\"/><field name=\"s\" type=\"v16i\"/></union>\n"
       "<union id=\"vnq\"><field name=\"u\" type=\"v1u\"/><field name=\"s\" type=\"v1i\"/></union>\n"
       "<union id=\"aarch64v\"><field name=\"d\" type=\"vnd\"/><field name=\"s\" type=\"vns\"/>"
       "<field name=\"h\" type=\"vnh\"/><field name=\"b\" type=\"vnb\"/><field name=\"q\" type=\"vnq\"/>"
       "</union>\n";
  for (int i = 0; i < 32; ++i)
    x += fmt::format("<reg name=\"v{}\" bitsize=\"128\" type=\"aarch64v\" regnum=\"{}\"/>\n", i, 34 + i);
  x += "<reg name=\"fpsr\" bitsize=\"32\"/>\n<reg name=\"fpcr\" bitsize=\"32\"/>\n</feature>\n"
       "<feature name=\"org.gnu.gdb.aarch64.tls\">\n"
       "<reg name=\"tpidr\" bitsize=\"64\" type=\"data_ptr\" regnum=\"68\"/>\n</feature>\n</target>\n";
  return x;
}

}  // namespace

std::string_view target_xml() {
  static const std::string xml = build_xml();
  return xml;
}

std::string encode_registers(const emu::CpuState& s) {
  std::string out;
  out.reserve(size_t{2} * 800);
  for (int r = 0; r < kNumRegs; ++r) {
    std::string one;
    encode_register(s, r, &one);
    out += one;
  }
  return out;
}

bool decode_registers(std::string_view hex, emu::CpuState* s) {
  size_t total = 0;
  for (int r = 0; r < kNumRegs; ++r) total += slot(r).size * 2;
  std::string bytes;
  if (hex.size() != total || !from_hex(hex, &bytes)) return false;
  emu::CpuState next = *s;
  size_t at = 0;
  for (int r = 0; r < kNumRegs; ++r) {
    const size_t n = slot(r).size * 2;
    decode_register(r, hex.substr(at, n), &next);
    at += n;
  }
  *s = next;
  return true;
}

bool encode_register(const emu::CpuState& s, int regno, std::string* hex) {
  if (regno < 0 || regno >= kNumRegs) return false;
  const RegSlot sl = slot(regno);
  const auto* base = reinterpret_cast<const char*>(&s) + sl.offset;
  if (regno == 33) {
    const auto cpsr = static_cast<uint32_t>(s.nzcv & kNzcvMask);
    *hex = to_hex(&cpsr, 4);
  } else {
    *hex = to_hex(base, sl.size);  // little-endian host: the first bytes of a uint64_t are the low ones
  }
  return true;
}

bool decode_register(int regno, std::string_view hex, emu::CpuState* s) {
  if (regno < 0 || regno >= kNumRegs) return false;
  const RegSlot sl = slot(regno);
  std::string bytes;
  if (hex.size() != sl.size * 2 || !from_hex(hex, &bytes)) return false;
  auto* base = reinterpret_cast<char*>(s) + sl.offset;
  if (sl.size == 4) {
    uint32_t v = 0;
    memcpy(&v, bytes.data(), 4);
    const uint64_t wide = regno == 33 ? (v & kNzcvMask) : v;  // cpsr: only NZCV is the thread's to set
    memcpy(base, &wide, 8);
  } else {
    memcpy(base, bytes.data(), sl.size);
  }
  return true;
}

namespace {

// Linux's signals 1-31 in gdb's numbering (signals.def). 0 has no Linux signal.
constexpr int kToGdb[32] = {0,   1,  2,  3,  4,  5,  6,  10, 8,  9,  30, 11, 31, 13, 14, 15,
                            143, 20, 19, 17, 18, 21, 22, 16, 24, 25, 26, 27, 28, 23, 32, 12};
constexpr int kGdbRealtime32 = 77, kGdbRealtime33 = 45, kGdbRealtime63 = 75, kGdbRealtime64 = 78;

}  // namespace

int to_gdb_signal(int sig) {
  if (sig >= 0 && sig < 32) return kToGdb[sig];
  if (sig == 32) return kGdbRealtime32;
  if (sig >= 33 && sig <= 63) return kGdbRealtime33 + (sig - 33);
  if (sig == 64) return kGdbRealtime64;
  return 143;
}

int from_gdb_signal(int g) {
  for (int sig = 1; sig < 32; ++sig) {
    if (kToGdb[sig] == g && g != 143) return sig;
  }
  if (g == kGdbRealtime32) return 32;
  if (g >= kGdbRealtime33 && g <= kGdbRealtime63) return 33 + (g - kGdbRealtime33);
  if (g == kGdbRealtime64) return 64;
  return 0;
}

}  // namespace gdb

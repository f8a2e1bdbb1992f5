// This file implements the remote protocol's framing: packet decoding with checksums and escapes, and the
// hexadecimal encodings.
#include "gdb/rsp.h"

#include <fmt/format.h>

namespace gdb {
namespace {

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Unescapes a packet body: '}' makes the next byte (c ^ 0x20) literal. False for a trailing '}'.
bool unescape(std::string_view in, std::string* out) {
  out->clear();
  for (size_t i = 0; i < in.size(); ++i) {
    if (in[i] != '}') {
      out->push_back(in[i]);
      continue;
    }
    if (++i == in.size()) return false;
    out->push_back(static_cast<char>(in[i] ^ 0x20));
  }
  return true;
}

}  // namespace

void Decoder::feed(const char* bytes, size_t n) {
  buf_.append(bytes, n);
}

// Bytes outside a packet other than '+', '-' and 0x03 are line noise and are dropped, as gdbserver does. A
// packet runs from '$' to '#' and two checksum digits; one that grows past kMaxPacket is dropped whole (and
// answered as bad) without waiting for its end, so no input makes the buffer grow without bound.
std::optional<Decoder::Item> Decoder::next() {
  while (!buf_.empty()) {
    const char c = buf_[0];
    if (c == '+' || c == '-' || c == '\x03') {
      buf_.erase(0, 1);
      return Item{c == '+' ? Kind::kAck : c == '-' ? Kind::kNak : Kind::kInterrupt, {}};
    }
    if (c != '$') {
      const size_t skip = buf_.find_first_of("$+-\x03");
      buf_.erase(0, skip == std::string::npos ? buf_.size() : skip);
      continue;
    }
    const size_t hash = buf_.find('#');
    if (hash == std::string::npos) {
      if (buf_.size() <= kMaxPacket + 4) return std::nullopt;
      buf_.clear();
      return Item{Kind::kBadPacket, {}};
    }
    if (buf_.size() < hash + 3) return std::nullopt;
    const std::string_view body(buf_.data() + 1, hash - 1);
    const int hi = hex_digit(buf_[hash + 1]), lo = hex_digit(buf_[hash + 2]);
    unsigned sum = 0;
    for (const char b : body) sum += static_cast<unsigned char>(b);
    Item item{Kind::kBadPacket, {}};
    if (hi >= 0 && lo >= 0 && (sum & 0xff) == static_cast<unsigned>(hi * 16 + lo) &&
        body.size() <= kMaxPacket && unescape(body, &item.data))
      item.kind = Kind::kPacket;
    if (item.kind != Kind::kPacket) item.data.clear();
    buf_.erase(0, hash + 3);
    return item;
  }
  return std::nullopt;
}

std::string frame(std::string_view data) {
  std::string out = "$";
  out.reserve(data.size() + 4);
  unsigned sum = 0;
  for (const char c : data) {
    if (c == '$' || c == '#' || c == '}' || c == '*') {
      out.push_back('}');
      sum += '}';
      const char e = static_cast<char>(c ^ 0x20);
      out.push_back(e);
      sum += static_cast<unsigned char>(e);
    } else {
      out.push_back(c);
      sum += static_cast<unsigned char>(c);
    }
  }
  out += fmt::format("#{:02x}", sum & 0xff);
  return out;
}

std::string to_hex(const void* bytes, size_t n) {
  static constexpr char kDigits[] = "0123456789abcdef";
  const auto* p = static_cast<const unsigned char*>(bytes);
  std::string out(n * 2, '0');
  for (size_t i = 0; i < n; ++i) {
    out[2 * i] = kDigits[p[i] >> 4];
    out[2 * i + 1] = kDigits[p[i] & 15];
  }
  return out;
}

std::string to_hex(std::string_view bytes) {
  return to_hex(bytes.data(), bytes.size());
}

bool from_hex(std::string_view hex, std::string* out) {
  if (hex.size() % 2 != 0) return false;
  out->resize(hex.size() / 2);
  for (size_t i = 0; i < out->size(); ++i) {
    const int hi = hex_digit(hex[2 * i]), lo = hex_digit(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) return false;
    (*out)[i] = static_cast<char>(hi * 16 + lo);
  }
  return true;
}

std::optional<uint64_t> parse_hex(std::string_view s) {
  if (s.empty() || s.size() > 16) return std::nullopt;
  uint64_t v = 0;
  for (const char c : s) {
    const int d = hex_digit(c);
    if (d < 0) return std::nullopt;
    v = v << 4 | static_cast<uint64_t>(d);
  }
  return v;
}

bool parse_pair(std::string_view s, char sep, uint64_t* a, uint64_t* b) {
  const size_t at = s.find(sep);
  if (at == std::string_view::npos) return false;
  const auto x = parse_hex(s.substr(0, at)), y = parse_hex(s.substr(at + 1));
  if (!x || !y) return false;
  *a = *x;
  *b = *y;
  return true;
}

}  // namespace gdb

// The framing of GDB's remote serial protocol: packets ($data#checksum), acknowledgements, the interrupt
// byte, escapes, and the hexadecimal encodings the packets use. No sockets here: the stub feeds bytes in.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace gdb {

// Longest packet accepted, escapes included; qSupported announces PacketSize as the decoded limit.
inline constexpr size_t kMaxPacket = 0x4000;

// Splits a byte stream from the debugger into protocol items.
class Decoder {
 public:
  enum class Kind {
    kPacket,     // a packet with a good checksum; `data` holds it unescaped
    kBadPacket,  // a wrong checksum, or longer than kMaxPacket: to be answered with '-'
    kInterrupt,  // the interrupt byte (0x03, sent while the program runs)
    kAck,        // '+'
    kNak,        // '-': the last packet sent should go again
  };
  struct Item {
    Kind kind;
    std::string data;
  };

  void feed(const char* bytes, size_t n);
  // The next complete item, in arrival order.
  std::optional<Item> next();

 private:
  std::string buf_;
};

// "$data#cs", with '$', '#', '}' and '*' escaped (binary replies may hold any byte).
std::string frame(std::string_view data);

// Hexadecimal helpers. parse_hex accepts 1-16 hex digits and nothing else.
std::string to_hex(std::string_view bytes);
std::string to_hex(const void* bytes, size_t n);
bool from_hex(std::string_view hex, std::string* out);
std::optional<uint64_t> parse_hex(std::string_view s);

// Splits "a,b" (or "a,b:rest"): the numbers before and after the first `sep`, both hexadecimal.
bool parse_pair(std::string_view s, char sep, uint64_t* a, uint64_t* b);

}  // namespace gdb

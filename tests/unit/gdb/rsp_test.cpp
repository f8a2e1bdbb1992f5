// Unit tests for the remote protocol's framing (gdb/rsp.h).
#include "gdb/rsp.h"

#include <gtest/gtest.h>

#include <string>

namespace gdb {
namespace {

std::string feed_one(Decoder& d, const std::string& bytes, Decoder::Kind want) {
  d.feed(bytes.data(), bytes.size());
  auto item = d.next();
  EXPECT_TRUE(item.has_value());
  if (!item) return {};
  EXPECT_EQ(item->kind, want);
  return item->data;
}

TEST(RspTest, DecodesAPacketWithItsChecksum) {
  Decoder d;
  EXPECT_EQ(feed_one(d, "$qSupported#37", Decoder::Kind::kPacket), "qSupported");
  EXPECT_FALSE(d.next().has_value());
}

TEST(RspTest, WrongChecksumIsABadPacket) {
  Decoder d;
  feed_one(d, "$g#00", Decoder::Kind::kBadPacket);
  EXPECT_EQ(feed_one(d, "$g#67", Decoder::Kind::kPacket), "g");
}

TEST(RspTest, WaitsForTheWholePacket) {
  Decoder d;
  d.feed("$m10,", 5);
  EXPECT_FALSE(d.next().has_value());
  d.feed("4#", 2);
  EXPECT_FALSE(d.next().has_value());
  EXPECT_EQ(feed_one(d, "2e", Decoder::Kind::kPacket), "m10,4");
}

TEST(RspTest, AcksInterruptsAndNoise) {
  Decoder d;
  d.feed("+-\x03xyz", 6);
  EXPECT_EQ(d.next()->kind, Decoder::Kind::kAck);
  EXPECT_EQ(d.next()->kind, Decoder::Kind::kNak);
  EXPECT_EQ(d.next()->kind, Decoder::Kind::kInterrupt);
  EXPECT_FALSE(d.next().has_value());  // noise dropped
  EXPECT_EQ(feed_one(d, "$?#3f", Decoder::Kind::kPacket), "?");
}

TEST(RspTest, UnescapesBinaryData) {
  // X packets carry '}' followed by the byte xor 0x20: "}]" is '}' itself, "}\x03" is '#'.
  const std::string body = std::string("X0,2:") + "}]" + "}\x03";
  unsigned sum = 0;
  for (const char c : body) sum += static_cast<unsigned char>(c);
  char cs[4];
  snprintf(cs, sizeof cs, "%02x", sum & 0xff);
  Decoder d;
  EXPECT_EQ(feed_one(d, "$" + body + "#" + cs, Decoder::Kind::kPacket), "X0,2:}#");
}

TEST(RspTest, OversizedPacketIsDroppedWithoutGrowing) {
  Decoder d;
  const std::string big = "$" + std::string(kMaxPacket + 100, 'A');
  feed_one(d, big, Decoder::Kind::kBadPacket);
  EXPECT_EQ(feed_one(d, "$g#67", Decoder::Kind::kPacket), "g");
}

TEST(RspTest, FrameEscapesAndChecksums) {
  EXPECT_EQ(frame("OK"), "$OK#9a");
  EXPECT_EQ(frame("a$b"),
            "$a}\x04"
            "b#44");
  Decoder d;
  const std::string f = frame(std::string("l#$}*\x00", 6));
  d.feed(f.data(), f.size());
  auto item = d.next();
  ASSERT_TRUE(item.has_value());
  EXPECT_EQ(item->kind, Decoder::Kind::kPacket);
  EXPECT_EQ(item->data, std::string("l#$}*\x00", 6));
}

TEST(RspTest, HexHelpers) {
  EXPECT_EQ(to_hex("\x01\xab", 2), "01ab");
  std::string out;
  EXPECT_TRUE(from_hex("01AB", &out));
  EXPECT_EQ(out, "\x01\xab");
  EXPECT_FALSE(from_hex("0", &out));
  EXPECT_FALSE(from_hex("zz", &out));
  EXPECT_EQ(parse_hex("ffffffffffffffff").value(), ~uint64_t{0});
  EXPECT_FALSE(parse_hex("10000000000000000").has_value());
  EXPECT_FALSE(parse_hex("").has_value());
  EXPECT_FALSE(parse_hex("-1").has_value());
  uint64_t a = 0, b = 0;
  EXPECT_TRUE(parse_pair("10,4", ',', &a, &b));
  EXPECT_EQ(a, 0x10u);
  EXPECT_EQ(b, 4u);
  EXPECT_FALSE(parse_pair("10", ',', &a, &b));
  EXPECT_FALSE(parse_pair("10,", ',', &a, &b));
}

}  // namespace
}  // namespace gdb

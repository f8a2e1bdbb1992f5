// Unit tests for sizing loads and stores (gdb/watch.h), by their encodings.
#include "gdb/watch.h"

#include <gtest/gtest.h>

namespace gdb {
namespace {

TEST(WatchTest, GeneralRegisterLoadsAndStores) {
  EXPECT_EQ(access_size(0xf9000064), 8u);   // str x4, [x3]
  EXPECT_EQ(access_size(0xb9000020), 4u);   // str w0, [x1]
  EXPECT_EQ(access_size(0x39000020), 1u);   // strb w0, [x1]
  EXPECT_EQ(access_size(0x79000020), 2u);   // strh w0, [x1]
  EXPECT_EQ(access_size(0xb9800020), 4u);   // ldrsw x0, [x1]
  EXPECT_EQ(access_size(0x39c00020), 1u);   // ldrsb w0, [x1]
  EXPECT_EQ(access_size(0xa9000820), 16u);  // stp x0, x2, [x1]
  EXPECT_EQ(access_size(0x29000820), 8u);   // stp w0, w2, [x1]
  EXPECT_EQ(access_size(0x69400820), 8u);   // ldpsw x0, x2, [x1]
  EXPECT_EQ(access_size(0xf8408420), 8u);   // ldr x0, [x1], #8 (post-index)
}

TEST(WatchTest, FloatingPointAndVector) {
  EXPECT_EQ(access_size(0x3d800020), 16u);  // str q0, [x1]
  EXPECT_EQ(access_size(0xfd000020), 8u);   // str d0, [x1]
  EXPECT_EQ(access_size(0xbd000020), 4u);   // str s0, [x1]
  EXPECT_EQ(access_size(0x4c407020), 16u);  // ld1 {v0.16b}, [x1]
  EXPECT_EQ(access_size(0x4c40a020), 32u);  // ld1 {v0.16b, v1.16b}, [x1]
  EXPECT_EQ(access_size(0x0c407020), 8u);   // ld1 {v0.8b}, [x1]
  EXPECT_EQ(access_size(0x4d409020), 4u);   // ld1 {v0.s}[3], [x1]
  EXPECT_EQ(access_size(0x4d40c820), 4u);   // ld1r {v0.4s}, [x1]
}

TEST(WatchTest, ExclusivesAndAtomics) {
  EXPECT_EQ(access_size(0xc85f7c20), 8u);   // ldxr x0, [x1]
  EXPECT_EQ(access_size(0xc8027c20), 8u);   // stxr w2, x0, [x1]: the status register is no data
  EXPECT_EQ(access_size(0x88027c20), 4u);   // stxr w2, w0, [x1]
  EXPECT_EQ(access_size(0x08027c20), 1u);   // stxrb w2, w0, [x1]
  EXPECT_EQ(access_size(0xc8220820), 16u);  // stxp w2, x0, x2, [x1]
  EXPECT_EQ(access_size(0xf8200020), 8u);   // ldadd x0, x0, [x1]
  EXPECT_EQ(access_size(0xb8200020), 4u);   // ldadd w0, w0, [x1]
  EXPECT_EQ(access_size(0x38200020), 1u);   // ldaddb w0, w0, [x1]
  EXPECT_EQ(access_size(0xf8208020), 8u);   // swp x0, x0, [x1]
  EXPECT_EQ(access_size(0xc8a07c22), 8u);   // cas x0, x2, [x1]
  EXPECT_EQ(access_size(0x48207c22), 16u);  // casp x0, x1, x2, x3, [x1]
}

TEST(WatchTest, UnknownIsZero) {
  EXPECT_EQ(access_size(0xd503201f), 0u);  // nop: no memory operand
  EXPECT_EQ(access_size(0x00000000), 0u);  // udf
}

}  // namespace
}  // namespace gdb

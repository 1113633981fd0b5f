// StoredArray reads a stored vector's elements in place: little-endian at
// any alignment, compared element by element through their bytes; and a
// tensor read from a program keeps its sizes and dim order so.
#include "rewriter/program/stored_array.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "tests/program_fixture.h"
#include "tools/synth/fixed_layout.h"

namespace pteshare {
namespace {

TEST(StoredArray, ReadsLittleEndianElementsAtAnyAlignment) {
  // Two int32s (-2, 70000) starting at an odd offset.
  const std::vector<uint8_t> bytes = {0xaa, 0xfe, 0xff, 0xff, 0xff, 0x70, 0x11, 0x01, 0x00};
  const StoredArray<int32_t> ints(bytes.data() + 1, 2);
  ASSERT_EQ(ints.size(), 2u);
  EXPECT_FALSE(ints.empty());
  EXPECT_EQ(ints[0], -2);
  EXPECT_EQ(ints[1], 70000);
  const StoredArray<uint8_t> small(bytes.data(), 3);
  EXPECT_EQ(small[0], 0xaa);
  EXPECT_EQ(small[2], 0xff);
}

TEST(StoredArray, EqualWhenTheElementsAreWhereverTheyAre) {
  const std::vector<uint8_t> a = {1, 0, 0, 0, 2, 0, 0, 0};
  const std::vector<uint8_t> b = {9, 1, 0, 0, 0, 2, 0, 0, 0};
  EXPECT_EQ(StoredArray<int32_t>(a.data(), 2), StoredArray<int32_t>(b.data() + 1, 2));
  EXPECT_FALSE(StoredArray<int32_t>(a.data(), 2) == StoredArray<int32_t>(b.data(), 2));
  EXPECT_FALSE(StoredArray<int32_t>(a.data(), 1) == StoredArray<int32_t>(a.data(), 2));
  // Empty ones are equal whatever they point at (a default one at nothing).
  EXPECT_EQ(StoredArray<uint8_t>(), StoredArray<uint8_t>(a.data(), 0));
  EXPECT_TRUE(StoredArray<uint8_t>().empty());
}

TEST(StoredArray, ATensorsSizesAndDimOrderAsTheProgramStoresThem) {
  synth::FixedTensor square{64, 1, 0, "k", true}, transposed{64, 1, 0, "k", true};
  square.sizes = transposed.sizes = {4, 4};
  transposed.dim_order = {1, 0};
  auto p = test_support::Load({{"prefill", {square}}, {"decode", {transposed}}});
  ASSERT_TRUE(p);
  const TensorValue& a = p->view.methods[0].tensors[0];
  const TensorValue& b = p->view.methods[1].tensors[0];
  ASSERT_EQ(a.sizes.size(), 2u);
  EXPECT_EQ(a.sizes[0], 4);
  EXPECT_EQ(a.sizes[1], 4);
  EXPECT_EQ(a.sizes, b.sizes);
  ASSERT_EQ(b.dim_order.size(), 2u);
  EXPECT_EQ(b.dim_order[0], 1);
  EXPECT_EQ(b.dim_order[1], 0);
  EXPECT_FALSE(a.dim_order == b.dim_order);
  EXPECT_FALSE(a.SameShape(b));
  EXPECT_EQ(b.Shape(), "FLOAT[4,4] dim order 1,0");
}

}  // namespace
}  // namespace pteshare

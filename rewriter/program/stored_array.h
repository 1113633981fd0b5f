// StoredArray<T>: the elements of a FlatBuffers vector of scalars, read
// where the file stores them (little-endian, at any alignment), not
// copied. TensorValue keeps a tensor's sizes and dim order so: copied into
// vectors they were two heap allocations per tensor on every read of a
// program, which a rewrite does three times (open, the patched copy, the
// written file), about 4% of its instructions. Like TensorValue::name it
// points into the file's bytes and must not outlive them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "wire.h"

namespace pteshare {

template <typename T>
class StoredArray {
  static_assert(std::is_integral_v<T>, "a vector of integers as stored");

 public:
  StoredArray() = default;
  /// `count` elements of T from `data`, as the file stores them.
  StoredArray(const uint8_t* data, size_t count) : data_(data), size_(count) {}

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T operator[](size_t i) const { return wire::Load<T>(data_ + i * sizeof(T)); }

  /// The same elements: equal bytes, as each value has one encoding.
  bool operator==(const StoredArray& other) const {
    return size_ == other.size_ &&
           (size_ == 0 || std::memcmp(data_, other.data_, size_ * sizeof(T)) == 0);
  }

 private:
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace pteshare

// ByteOverwrite: the unit every part of a patch is made of (patcher.h
// collects them; name_patch.h and arena_vectors.h make some), in a header
// of its own so that those parts need not include the patcher that uses them.
#pragma once

#include <cstdint>
#include <vector>

namespace pteshare {

/// `bytes` replace the file's bytes at `offset`.
struct ByteOverwrite {
  uint64_t offset = 0;
  std::vector<uint8_t> bytes;

  uint64_t end() const { return offset + bytes.size(); }
  bool operator==(const ByteOverwrite&) const = default;
};

}  // namespace pteshare

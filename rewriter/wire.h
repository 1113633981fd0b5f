// Little-endian loads and stores of the fixed-width integers in a .pte's
// header and tables. FlatBuffers and the extended header are little-endian
// whatever the host; memcpy keeps unaligned access defined.
#pragma once

#include <cstdint>
#include <cstring>

namespace pteshare::wire {

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "pteshare assumes a little-endian host");

inline uint16_t LoadU16(const uint8_t* p) {
  uint16_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
inline uint32_t LoadU32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
inline uint64_t LoadU64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
inline void StoreU32(uint8_t* p, uint32_t v) { std::memcpy(p, &v, sizeof v); }
inline void StoreU64(uint8_t* p, uint64_t v) { std::memcpy(p, &v, sizeof v); }

}  // namespace pteshare::wire

// Little-endian loads and stores of the fixed-width integers in a .pte's
// header and tables (docs/format.md). FlatBuffers and the extended header
// are little-endian whatever the host; memcpy keeps unaligned access
// defined. C++17, header-only, no dependency, not even the C++ standard
// library's headers: runtime_check uses it on microcontrollers too.
#pragma once

#include <stdint.h>

namespace pteshare::wire {

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "pteshare assumes a little-endian host");

template <typename T>
inline T Load(const uint8_t* p) {
  T v;
  __builtin_memcpy(&v, p, sizeof v);
  return v;
}
inline uint16_t LoadU16(const uint8_t* p) { return Load<uint16_t>(p); }
inline uint32_t LoadU32(const uint8_t* p) { return Load<uint32_t>(p); }
inline uint64_t LoadU64(const uint8_t* p) { return Load<uint64_t>(p); }
inline void StoreU32(uint8_t* p, uint32_t v) { __builtin_memcpy(p, &v, sizeof v); }
inline void StoreU64(uint8_t* p, uint64_t v) { __builtin_memcpy(p, &v, sizeof v); }

}  // namespace pteshare::wire

// The FlatBuffers verifier as every reader in rewriter/ runs it: refused
// beyond the library's 2 GiB limit (it asserts on such buffers), and with a
// table budget of one per 4 bytes, which a real file (each table at least 4
// bytes, each reference a 4-byte slot) never reaches and which keeps a
// hostile one from making the verifier run for long. Needs FlatBuffers:
// runtime_check/ does not use it (it has schema/flat_reader.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "flatbuffers/flatbuffers.h"

namespace pteshare::verify_bounded {

inline constexpr uint64_t kMaxBufferSize = FLATBUFFERS_MAX_BUFFER_SIZE;

/// "the FlatBuffers limit of N bytes", for messages.
inline std::string LimitText() {
  return "the FlatBuffers limit of " + std::to_string(kMaxBufferSize) + " bytes";
}

/// Runs `verify_buffer` (a generated VerifyXBuffer) over [data, data + size),
/// size < kMaxBufferSize.
template <typename VerifyBuffer>
bool Verify(const uint8_t* data, size_t size, VerifyBuffer verify_buffer) {
  const auto max_tables = static_cast<flatbuffers::uoffset_t>(size / 4 + 64);
  flatbuffers::Verifier verifier(data, size, /*max_depth=*/64, max_tables);
  return verify_buffer(verifier);
}

}  // namespace pteshare::verify_bounded

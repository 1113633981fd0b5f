// The one-line message of each finding (host report only): the words every
// message uses for a tensor and a placement, so all messages read alike:
//   "method decode, value 42 (layers.0.attention.kv_cache.k_cache): ..."
#ifndef PTESHARE_RUNTIME_CHECK_FINDING_TEXT_H_
#define PTESHARE_RUNTIME_CHECK_FINDING_TEXT_H_

#include <string>
#include <vector>

#include "runtime_check/alias_check.h"
#include "runtime_check/check.h"

namespace pteshare::runtime_check::internal {

inline std::string ToString(const core::Text& text) {
  return text.size == 0 ? std::string() : std::string(text.data, text.size);
}

/// The message of `finding`; `shared` (the report's shared buffers) gives
/// the methods a warning about a shared buffer lists.
std::string FindingMessage(const core::Finding& finding, const std::vector<SharedBuffer>& shared);

/// "0x7f12345678" (addresses in binding findings).
std::string Hex(uint64_t value);

}  // namespace pteshare::runtime_check::internal

#endif  // PTESHARE_RUNTIME_CHECK_FINDING_TEXT_H_

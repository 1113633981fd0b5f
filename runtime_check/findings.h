// Building findings: the severity of each kind, and the words every
// message uses for a tensor and a placement, so all messages read alike:
//   "method decode, value 42 (layers.0.attention.kv_cache.k_cache): ..."
#ifndef PTESHARE_RUNTIME_CHECK_FINDINGS_H_
#define PTESHARE_RUNTIME_CHECK_FINDINGS_H_

#include <cstdint>
#include <string>

#include "runtime_check/alias_check.h"

namespace pteshare::runtime_check::internal {

Severity SeverityOf(FindingKind kind);

/// A finding of `kind` with its severity set; the caller fills the rest.
Finding NewFinding(FindingKind kind);

/// "method decode, value 42 (name)"; the name part only when non-empty.
std::string TensorLabel(const std::string& method, uint32_t value_index, const std::string& name);

/// "offset 491520 + 32768 bytes".
std::string Extent(uint64_t offset, uint64_t nbytes);

/// "0x7f12345678" (addresses in binding findings).
std::string Hex(uint64_t value);

}  // namespace pteshare::runtime_check::internal

#endif  // PTESHARE_RUNTIME_CHECK_FINDINGS_H_

// Reading the options' values from text, the checks both front ends share,
// and the one-line messages they give. A message about one value quotes it
// and says why ("'fastest': expected relocate, replan or best"); the front
// end puts its own spelling of the option in front: the CLI its flag
// ("--strategy: ..."), the Python module its keyword ("strategy ...").
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "rewriter/base/result.h"
#include "tools/options/option_table.h"

namespace pteshare::options {

/// A kWord row's word as its enum value; else "'TEXT': expected A, B or C"
/// (a bare number too: the words are what the option takes).
Result<int> ReadWord(const OptionRow& row, std::string_view text);

/// A decimal integer in [0, max], digits only, no sign, no wrap-around;
/// else "'TEXT' is not a non-negative integer" or "'TEXT' is more than MAX".
Result<uint64_t> ReadUnsigned(std::string_view text, uint64_t max = UINT64_MAX);

/// "ID=BYTES" as (id, bytes); else "expected ID=BYTES, e.g. 1=1048576".
/// The id is checked by AddArenaLimit.
Result<std::pair<uint32_t, uint64_t>> ReadArenaLimit(std::string_view text);

/// "arena ids start at 1" for arena 0.
Status CheckArenaId(uint32_t id);

/// Adds one limit: CheckArenaId, and "arena ID is given two limits, A and
/// B" when the arena has another already.
Status AddArenaLimit(std::map<uint32_t, uint64_t>& limits, uint32_t id, uint64_t bytes);

/// The two forms a naming takes (--name, a names file), as messages
/// spell them.
inline constexpr const char* kNamingForms = "METHOD:VALUE_INDEX=NAME or paired_state.K=NAME";

/// "METHOD:VALUE_INDEX=NAME" or "paired_state.K=NAME" as a naming; else
/// "expected METHOD:VALUE_INDEX=NAME or paired_state.K=NAME", or "VALUE_INDEX
/// 'X' is not a non-negative integer" (K likewise).
Result<ValueNaming> ReadValueNaming(std::string_view text);

/// A row's value from the texts given after its flag, one per time it was
/// given (none: the row's default); a switch is on when given at all.
/// Errors are the CLI's lines: "FLAG 'TEXT': why" about one text, "FLAG:
/// why" about them together.
Result<OptionValue> ReadTexts(const OptionRow& row, const std::vector<std::string>& texts);

}  // namespace pteshare::options

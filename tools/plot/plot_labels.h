// What `pteshare plot` writes in words and where it puts ticks: short byte
// sizes for axes, the hover text of a tensor, live ranges, and tick steps
// a reader can add up in their head.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "rewriter/plan/lifetimes.h"
#include "tools/plot/layout_picture.h"

namespace pteshare::plot {

/// "0", "512 B", "32 KiB", "1.5 MiB": short axis labels (HumanBytes keeps
/// two decimals, too wide for a tick).
std::string ShortBytes(uint64_t bytes);

/// A byte tick label exact for ticks `step` apart (a power of two): in the
/// unit ShortBytes would pick with up to two decimals ("58 MiB", "58.25
/// MiB"), or whole in the unit below ("2,112 KiB").
std::string TickBytes(uint64_t bytes, uint64_t step);

/// "live [3, 9]", with " (whole method)" when it spans every instruction.
std::string LiveRangeText(const LiveRange& live, int64_t instructions);

/// The hover text of a tensor: value index and name, what kind of buffer,
/// bytes, offset (and the offset it had before, in an after panel), live
/// range, and its alias group's size when it has company.
std::string TensorTooltip(const TensorBox& box, bool after_plan, int64_t instructions,
                          size_t group_members);

/// 1, 2 or 5 x 10^k: at most `max_ticks` steps over `span` instructions.
int64_t InstructionTickStep(int64_t span, int64_t max_ticks);

/// A power of two: at most `max_ticks` steps over `span` bytes (bytes read
/// best in KiB and MiB multiples).
uint64_t ByteTickStep(uint64_t span, uint64_t max_ticks);

}  // namespace pteshare::plot

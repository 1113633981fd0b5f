// What `pteshare plot` writes in words and where it puts ticks: short byte
// sizes for axes, the hover text of a tensor, live ranges, and tick steps
// a reader can add up in their head.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

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

/// "written first by aten::mm.out (instruction 12)", "... by the caller (a
/// method input)": what puts a tensor's bytes in place first.
std::string FirstWriteText(const FirstWrite& write);

/// The hover text of a tensor: value index and name, dtype and shape, what
/// writes it first, what kind of buffer, bytes, offset (and the offset it
/// had before, in an after panel), live range, and its alias group's size
/// when it has company.
std::string TensorTooltip(const TensorBox& box, bool after_plan, int64_t instructions,
                          size_t group_members);

/// The picture's caption of the plan: "after = the replanned layout: one
/// set of arenas 1,204,224 -> 1,003,520 bytes (-200,704, -16.7%), 2
/// tensors move"; with state shared, one set after against a set per
/// method before ("... with the state shared: one set of arenas for every
/// method, 573,952 bytes, where the input needs a set per method, 890,128
/// bytes (-316,176, -35.5%); ..."); "the plan changes nothing: ...", "not
/// replanned: WHY; ..."; empty when there is no plan and no reason (an
/// --arena-limit miss says its own).
std::string PlanCaption(const PlanSummary& summary);

/// "mutable buffers (as pteshare inspect lists them): prefill 4, 65,536
/// bytes; decode 4, 65,536 bytes" (methods without one left out), or
/// "...: none".
std::string MutableBufferText(const std::vector<MethodBuffers>& methods);

/// 1, 2 or 5 x 10^k: at most `max_ticks` steps over `span` instructions.
int64_t InstructionTickStep(int64_t span, int64_t max_ticks);

/// A power of two: at most `max_ticks` steps over `span` bytes (bytes read
/// best in KiB and MiB multiples).
uint64_t ByteTickStep(uint64_t span, uint64_t max_ticks);

}  // namespace pteshare::plot

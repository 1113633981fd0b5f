#include "tools/plot/plot_labels.h"

#include <cstdio>

#include "tools/report/numbers.h"

namespace pteshare::plot {

std::string ShortBytes(uint64_t bytes) {
  if (bytes < 1024) return std::to_string(bytes) + (bytes == 0 ? "" : " B");
  const char* units[] = {"KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes) / 1024;
  int unit = 0;
  while (value >= 1024 && unit < 3) {
    value /= 1024;
    ++unit;
  }
  char buf[32];
  // One decimal only where it says something: "1.5 MiB", "32 KiB".
  if (value >= 100 || value == static_cast<double>(static_cast<uint64_t>(value))) {
    std::snprintf(buf, sizeof buf, "%.0f %s", value, units[unit]);
  } else {
    std::snprintf(buf, sizeof buf, "%.1f %s", value, units[unit]);
  }
  return buf;
}

std::string TickBytes(uint64_t bytes, uint64_t step) {
  if (bytes < 1024 || step == 0) return ShortBytes(bytes);
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  uint64_t unit_bytes = 1024;
  int unit = 1;
  while (bytes / unit_bytes >= 1024 && unit < 4) {
    unit_bytes *= 1024;
    ++unit;
  }
  // Steps are powers of two: each halving below the unit needs a decimal
  // (0.5, 0.25). Finer steps read better in the smaller unit, whole:
  // "2,112 KiB" rather than "2.0625 MiB".
  int decimals = 0;
  for (uint64_t part = unit_bytes; part > step && decimals < 3; part /= 2) ++decimals;
  if (decimals > 2) {
    unit_bytes /= 1024;
    --unit;
    decimals = 0;
  }
  if (bytes % unit_bytes == 0) {
    return cli::Grouped(bytes / unit_bytes) + " " + units[unit];
  }
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.*f %s", decimals,
                static_cast<double>(bytes) / static_cast<double>(unit_bytes), units[unit]);
  return buf;
}

std::string LiveRangeText(const LiveRange& live, int64_t instructions) {
  std::string text = "live [" + std::to_string(live.first) + ", " + std::to_string(live.last) + "]";
  if (live.first == 0 && live.last >= instructions - 1) text += " (whole method)";
  return text;
}

std::string FirstWriteText(const FirstWrite& write) {
  switch (write.kind) {
    case WriterKind::kInput:
      return "written first by the caller (a method input)";
    case WriterKind::kInitialState:
      return "written first by the loader (initial state, copied in when the method loads)";
    case WriterKind::kInstruction:
      return "written first by " + write.Text();
    case WriterKind::kNone:
      break;
  }
  return "no instruction writes it (a view of another tensor's bytes, or unused)";
}

std::string TensorTooltip(const TensorBox& box, bool after_plan, int64_t instructions,
                          size_t group_members) {
  std::string text = "value " + std::to_string(box.value_index);
  if (!box.name.empty()) text += " " + box.name;
  text += "\n" + box.shape + "\n" + FirstWriteText(box.first_write);
  if (box.kind == BoxKind::kSharedBuffer) text += "\nshared buffer";
  if (box.kind == BoxKind::kMutableBuffer) text += "\nmutable buffer (not shared)";
  text += "\n" + cli::Grouped(box.placement.nbytes) + " bytes (" +
          ShortBytes(box.placement.nbytes) + ")\noffset " + cli::Grouped(box.placement.offset);
  if (after_plan && box.input_placement.offset != box.placement.offset) {
    text += " (was " + cli::Grouped(box.input_placement.offset) + ")";
  }
  text += "\n" + LiveRangeText(box.live, instructions);
  if (group_members >= 2) {
    text += "\nalias group of " + std::to_string(group_members) + " tensors";
  }
  return text;
}

namespace {

/// "-200,704, -16.7%": a change of `before` bytes to `after`.
std::string SignedChange(uint64_t before, uint64_t after) {
  const bool less = after < before;
  const uint64_t by = less ? before - after : after - before;
  char percent[32];
  std::snprintf(percent, sizeof percent, "%.1f%%",
                before == 0 ? 0.0 : 100.0 * static_cast<double>(by) / static_cast<double>(before));
  const char* sign = less ? "-" : "+";
  return sign + cli::Grouped(by) + ", " + sign + percent;
}

}  // namespace

std::string PlanCaption(const PlanSummary& summary) {
  if (!summary.planned) {
    return summary.not_planned.empty()
               ? ""
               : "not replanned: " + summary.not_planned + "; only the input is drawn";
  }
  const std::string moved = cli::Grouped(summary.moved_tensors) +
                            (summary.moved_tensors == 1 ? " tensor moves" : " tensors move");
  if (!summary.changes) {
    return "the plan changes nothing: every placement and arena size stays (one set of arenas " +
           cli::Grouped(summary.arena_bytes_before) + " bytes), so only the input is drawn";
  }
  const uint64_t after = summary.arena_bytes_after;
  if (summary.shares_state) {
    // Unshared, each method's state needs arenas of its own.
    const uint64_t before = summary.separate_bytes_before;
    return "after = the replanned layout with the state shared: one set of arenas for every "
           "method, " +
           cli::Grouped(after) + " bytes, where the input needs a set per method, " +
           cli::Grouped(before) + " bytes (" + SignedChange(before, after) + "); " + moved;
  }
  const uint64_t before = summary.arena_bytes_before;
  if (before == after) {
    return "after = the replanned layout: " + moved + ", one set of arenas stays " +
           cli::Grouped(before) + " bytes";
  }
  return "after = the replanned layout: one set of arenas " + cli::Grouped(before) + " -> " +
         cli::Grouped(after) + " bytes (" + SignedChange(before, after) + "), " + moved;
}

std::string MutableBufferText(const std::vector<MethodBuffers>& methods) {
  std::string text;
  for (const MethodBuffers& m : methods) {
    if (m.count == 0) continue;
    text += (text.empty() ? "" : "; ") + m.method + " " + std::to_string(m.count) + ", " +
            cli::Grouped(m.bytes) + " bytes";
  }
  return "mutable buffers (as pteshare inspect lists them): " + (text.empty() ? "none" : text);
}

int64_t InstructionTickStep(int64_t span, int64_t max_ticks) {
  for (int64_t magnitude = 1;; magnitude *= 10) {
    for (int64_t m : {1, 2, 5}) {
      if (span / (m * magnitude) <= max_ticks) return m * magnitude;
    }
  }
}

uint64_t ByteTickStep(uint64_t span, uint64_t max_ticks) {
  uint64_t step = 1;
  while (span / step > max_ticks) step *= 2;
  return step;
}

}  // namespace pteshare::plot

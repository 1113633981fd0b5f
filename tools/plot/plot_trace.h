// The memory plan as a trace a Chrome / Perfetto viewer opens
// (chrome://tracing, ui.perfetto.dev): the Trace Event Format's JSON object
// form, {"traceEvents": [...], "otherData": {...}}, in the vocabulary of
// ExecuTorch's own memory trace (util/activation_memory_profiler.py,
// generate_memory_trace): complete events ("ph": "X") of category
// "memory_allocation" whose args carry "op_name", "Memory ID", "fqn" and
// "bytes", plus the offset, dtype and shape, value index, live range and
// whether the plan moved it.
//
// One event per planned tensor, its live range as the time span (1 us = one
// instruction, ts = its first instruction, dur = how many it is live), on
// one track (tid) per offset it starts at, the tracks in offset order: the
// picture's layout, rows of bytes across time. ExecuTorch's trace turns the
// axes round (one track per time step, the offset as the time, one event
// per tensor and step): that grows with tensors x instructions (a 128-layer
// LLM's 256 caches over 4,617 instructions are a million events), this one
// with the tensors. Each (layout, method, arena) is a process: before, and
// after where the picture draws it, side by side (pid 2k+1, 2k+2).
#pragma once

#include <cstddef>
#include <string>

#include "tools/plot/layout_picture.h"

namespace pteshare::plot {

struct TraceStats {
  /// Processes (one per panel: layout x method x arena) and tensor events.
  size_t processes = 0;
  size_t events = 0;
};

/// The trace of `picture` (every tensor of every drawn panel; none is
/// aggregated). `caption` (the plan's, PlanCaption) goes into otherData.
std::string RenderTrace(const LayoutPicture& picture, const std::string& caption,
                        TraceStats* stats = nullptr);

}  // namespace pteshare::plot

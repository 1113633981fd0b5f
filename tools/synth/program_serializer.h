// Writes a ProgramSpec as a plain ET12 flatbuffer (no extended header yet),
// with the placements, data indices and segment table the builder decided.
// Value and instruction indices are written as given, unchecked, so tests
// can build broken programs on purpose.
#pragma once

#include <cstdint>
#include <vector>

#include "tools/synth/method_planner.h"
#include "tools/synth/program_spec.h"
#include "tools/synth/segment_data.h"

namespace pteshare::synth {

/// One entry of Program.segments; offset relative to segment_base_offset.
struct SegmentEntry {
  uint64_t offset = 0;
  uint64_t size = 0;
};

struct SerializeInputs {
  const ProgramSpec* spec = nullptr;
  const std::vector<MethodPlacements>* placements = nullptr;  // per method
  const SegmentData* data = nullptr;
  /// Program.segments. Empty means the legacy layout: constants inline.
  std::vector<SegmentEntry> segments;
  /// Which entry of `segments` holds the constants / the initial states.
  uint32_t constant_segment_index = 0;
  bool has_mutable_segment = false;
  uint32_t mutable_segment_index = 0;
  bool force_defaults = false;
  bool newer_exporter_fields = false;  // BuildOptions
};

/// The finished flatbuffer: root offset, "ET12", tables.
std::vector<uint8_t> SerializeProgram(const SerializeInputs& inputs);

}  // namespace pteshare::synth

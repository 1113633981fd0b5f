// The data the exporter moves out of the flatbuffer: constants (one
// constant segment) and initial states of mutable buffers (one mutable
// data segment). Both are lists of blobs whose entry 0 is a reserved empty
// blob, so that data_buffer_idx 0 can mean "no data"; identical blobs are
// stored once (the exporter deduplicates by content hash).
#pragma once

#include <cstdint>
#include <vector>

#include "tools/synth/program_spec.h"

namespace pteshare::synth {

/// Blobs packed into one segment: blob i starts at offsets[i].
struct PackedBlobs {
  std::vector<uint8_t> bytes;
  std::vector<uint64_t> offsets;  // offsets[0] is the reserved empty blob
  size_t blob_count() const { return offsets.size(); }
};

struct SegmentData {
  /// Constants, each padded to the constant alignment (exporter: 16).
  PackedBlobs constants;
  /// Constants as separate blobs, for the legacy layout without segments
  /// (Program.constant_buffer); entry 0 is the empty placeholder.
  std::vector<std::vector<uint8_t>> inline_constants;
  /// Initial states, packed without padding (the runtime copies them).
  PackedBlobs mutable_states;
  /// data_buffer_idx[method][value]: index into constants or
  /// mutable_states (which one follows from the tensor), 0 when neither.
  std::vector<std::vector<uint32_t>> data_buffer_idx;
};

/// Collects constants and initial states in method, then value order.
SegmentData CollectSegmentData(const ProgramSpec& spec, uint64_t constant_alignment);

}  // namespace pteshare::synth

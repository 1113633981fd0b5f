// BuildProgram: turns a ProgramSpec (program_spec.h) into .pte bytes laid
// out the way ExecuTorch's exporter writes them:
//
//   [root offset][ET12][eh00 extended header, 32 bytes][flatbuffer tables]
//   [zero padding to segment_alignment]
//   segment 0: constants (SubsegmentOffsets, entry 0 reserved and empty)
//   segment 1: mutable data / initial state (only when some tensor has it)
//   [optional trailing segment of N zero bytes, see WritePteFile]
//
// Tensors the spec asks to plan are placed by the exporter-like greedy
// planner (exporter_greedy.h); fixed placements and aliases are kept as the
// spec says. Constants and initial states are deduplicated by content, as
// the exporter does.
//
// Usage:
//   synth::ProgramSpec spec;
//   auto& m = spec.methods.emplace_back();
//   m.name = "forward";
//   ValueIndex x = m.Add(synth::Tensor{.sizes = {4}});
//   ...
//   Result<std::vector<uint8_t>> bytes = synth::BuildProgram(spec);
#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

#include "rewriter/base/result.h"
#include "tools/synth/method_planner.h"
#include "tools/synth/program_spec.h"

namespace pteshare::synth {

struct BuildOptions {
  /// Write every scalar field even when it equals its default (FlatBuffers
  /// ForceDefaults). The exporter omits them, so the default is false.
  bool force_defaults = false;
  /// Insert the 32-byte `eh00` header and write constants/state to
  /// segments. Off: the legacy layout, the whole file is the flatbuffer,
  /// constants go inline to Program.constant_buffer and initial state is
  /// refused (it can only live in a segment).
  bool extended_header = true;
  /// Alignment of segment_base_offset and of every segment (exporter: 128).
  uint64_t segment_alignment = 128;
  /// Alignment of planned tensor offsets and sizes (exporter: 16).
  uint64_t plan_alignment = 16;
  /// Alignment of each constant inside the constant segment (exporter: 16).
  uint64_t constant_alignment = 16;
  /// Size of an extra segment appended after all others (listed in
  /// Program.segments, referenced by nothing), all zero bytes. WritePteFile
  /// writes it sparsely, so 1 GiB costs no memory; BuildProgram
  /// materialises it, so keep it small there.
  uint64_t trailing_segment_bytes = 0;
  /// Every AllocationDetails, Tensor and ExtraTensorInfo table also stores
  /// a field one past the schema's last (value 1), as a newer exporter's
  /// tables might: for the refusal to drop fields pteshare does not know.
  bool newer_exporter_fields = false;
};

/// Facts about a built file that tests check against what they parse.
struct PteLayout {
  uint64_t program_size = 0;         // flatbuffer bytes, header included
  uint64_t segment_base_offset = 0;  // 0 without extended header
  uint64_t segment_data_size = 0;
  uint64_t file_size = 0;
  /// Placements the builder wrote, per method in spec order.
  std::vector<MethodPlacements> placements;
};

/// Everything but the trailing zero segment, plus where things landed.
/// bytes.size() <= layout.file_size; the rest of the file is zeros.
struct BuiltPte {
  std::vector<uint8_t> bytes;
  PteLayout layout;
};

/// Builds the file's bytes except the trailing zero segment (WritePteFile
/// and BuildProgram both use it).
Result<BuiltPte> BuildPte(const ProgramSpec& spec, const BuildOptions& options = {});

/// The whole .pte file as bytes (trailing segment included as zeros).
Result<std::vector<uint8_t>> BuildProgram(const ProgramSpec& spec,
                                          const BuildOptions& options = {});

/// Writes the .pte to `path`; the trailing segment is made by extending the
/// file (sparse zeros), never held in memory. Returns where things landed.
Result<PteLayout> WritePteFile(const ProgramSpec& spec, const BuildOptions& options,
                               const std::filesystem::path& path);

}  // namespace pteshare::synth

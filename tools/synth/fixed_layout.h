// FixedLayout: a program whose every placement a test writes by hand, for
// planner and checker tests that assert exact offsets ("the cache sits at
// 256 in prefill and at 0 in decode"). No instructions: relocation and the
// checks it feeds need none.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "rewriter/base/result.h"
#include "tools/synth/program_spec.h"

namespace pteshare::synth {

struct FixedTensor {
  uint64_t nbytes = 16;  // a multiple of 4 (float32 elements), or 0
  MemoryId memory_id = 1;
  ByteOffset offset = 0;
  std::string name{};  // fully_qualified_name; empty: unnamed
  /// A mutable buffer loaded with zeros at method load.
  bool initial_state = false;
  /// Another type or shape of the same nbytes (empty sizes: FLOAT[nbytes / 4]).
  ScalarType scalar_type = ScalarType::FLOAT;
  std::vector<int32_t> sizes{};
  std::vector<uint8_t> dim_order{};
};

struct FixedMethod {
  std::string name{};
  std::vector<FixedTensor> tensors{};
  /// non_const_buffer_sizes without the reserved entry 0: arena_sizes[0] is
  /// the size of memory_id 1. Empty: derived (highest end per arena).
  std::vector<int64_t> arena_sizes{};
  std::vector<ArenaDevice> devices{};
};

/// The spec: method by method, one Tensor value per FixedTensor in order
/// (value index = position in `tensors`).
ProgramSpec FixedLayoutSpec(const std::vector<FixedMethod>& methods);

/// Built .pte bytes (exporter layout, extended header).
Result<std::vector<uint8_t>> BuildFixedLayout(const std::vector<FixedMethod>& methods);

}  // namespace pteshare::synth

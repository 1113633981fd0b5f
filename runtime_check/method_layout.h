// MethodLayout: one method's planned tensors and arenas, taken from the
// program's tables (program_reader.h) exactly as the ExecuTorch loader
// reads them, with every number checked (findings for the ones the loader
// would refuse).
#ifndef PTESHARE_RUNTIME_CHECK_METHOD_LAYOUT_H_
#define PTESHARE_RUNTIME_CHECK_METHOD_LAYOUT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "runtime_check/alias_check.h"
#include "runtime_check/program_tables.h"

namespace pteshare::runtime_check::internal {

/// A Tensor value with allocation_info (DYNAMIC_UNBOUND ones excluded: the
/// runtime allocates those itself).
struct PlannedTensor {
  uint32_t value_index = 0;
  /// Only meaningful when `valid`.
  Placement placement;
  /// False when the loader would refuse the tensor (unknown scalar type,
  /// negative dimension, nbytes overflow, memory_id not an arena); such a
  /// tensor already has a finding and takes no part in the sharing checks.
  bool valid = false;
  /// extra_tensor_info.fully_qualified_name, or a name assigned by the
  /// caller; empty when unnamed.
  std::string name;
  /// data_buffer_idx > 0: the loader copies an initial state into it.
  bool has_initial_state = false;
  /// Listed in the method's inputs: the caller writes it.
  bool is_input = false;
  /// Set when the name was made by pairing unnamed state (state_pairing.h).
  bool paired = false;
  int8_t scalar_type = 0;
  std::vector<int32_t> sizes;
  std::vector<uint8_t> dim_order;

  uint64_t end() const { return placement.offset + placement.nbytes; }
  /// State that lives across calls: an initial state or a name.
  bool is_state() const { return has_initial_state || !name.empty(); }
};

struct MethodLayout {
  std::string name;
  /// The method's tables (its values and instructions, for the alias
  /// evidence); never null in a layout ReadMethodLayouts made.
  const MethodTables* tables = nullptr;
  uint32_t value_count = 0;
  /// arena_sizes[i]: size of memory_id i + 1; nullopt when the stored size
  /// is negative (a finding).
  std::vector<std::optional<uint64_t>> arena_sizes;
  /// arena_devices[i]: (device type, index) of memory_id i + 1; (0, 0) is
  /// the CPU, what an arena without a non_const_buffer_device entry is.
  std::vector<std::pair<int8_t, int8_t>> arena_devices;
  /// In value-index order.
  std::vector<PlannedTensor> tensors;

  /// Bytes needed for memory_id `id` (0 for an unknown or invalid arena).
  uint64_t ArenaSize(uint32_t memory_id) const;
  /// The planned tensor with this value index, or nullptr.
  const PlannedTensor* Find(uint32_t value_index) const;
};

/// Reads every method of `program` in order; appends a finding for each
/// number the loader would refuse and for each tensor past its arena. The
/// layouts point into `program`, which must outlive them.
std::vector<MethodLayout> ReadMethodLayouts(const ProgramTables& program,
                                            std::vector<Finding>* findings);

/// Names unnamed (or renames) planned tensors as the caller asked; a
/// finding for an assignment that names no planned tensor.
void ApplyValueNamings(const std::vector<ValueNaming>& assignments,
                       std::vector<MethodLayout>* methods, std::vector<Finding>* findings);

}  // namespace pteshare::runtime_check::internal

#endif  // PTESHARE_RUNTIME_CHECK_METHOD_LAYOUT_H_

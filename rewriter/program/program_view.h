// ProgramView: the facts pteshare needs from a verified program, in plain
// types: per method, every Tensor value with its placement, shape, name and
// whether its AllocationDetails table stores each field; the arenas; the
// inputs and outputs; what each instruction reads and writes. Built once
// from a PteFile; its names point into the file's bytes, so it must not
// outlive them.
//
// No FlatBuffers-generated type appears here: every stage after the reader
// works on these plain types, and only the reader (program/) and the
// patcher (patch/), which read or write the wire format itself, include
// the generated code (program_tables.h finds a value's table again).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "rewriter/base/result.h"
#include "rewriter/program/instruction_effects.h"
#include "rewriter/program/pte_layout.h"
#include "rewriter/program/stored_array.h"

namespace pteshare {

/// Where a planned tensor lives: [offset, offset + nbytes) of arena
/// memory_id (1-based).
struct Placement {
  uint32_t memory_id = 0;
  uint64_t offset = 0;
  uint64_t nbytes = 0;

  uint64_t end() const { return offset + nbytes; }
  bool operator==(const Placement&) const = default;
};

/// Which fields an AllocationDetails table stores on the wire. Writers omit
/// fields equal to their default (0), and only a stored field can be
/// overwritten in place.
struct StoredFields {
  bool memory_id = false;
  bool offset_low = false;
  bool offset_high = false;

  bool all() const { return memory_id && offset_low && offset_high; }
};

/// The schema's TensorShapeDynamism, as stored.
enum class TensorDynamism : int8_t { kStatic = 0, kDynamicBound = 1, kDynamicUnbound = 2 };

/// The schema's DeviceType, as stored (a value this build does not know
/// keeps its number: DeviceText shows it).
enum class DeviceType : int8_t { kCpu = 0, kCuda = 1 };

/// One Tensor value of a method.
struct TensorValue {
  uint32_t value_index = 0;
  int8_t scalar_type = 0;
  TensorDynamism dynamism = TensorDynamism::kStatic;
  /// As stored: sizes and dim order (empty where the table has none), in
  /// the file's bytes (stored_array.h), like `name`.
  StoredArray<int32_t> sizes;
  StoredArray<uint8_t> dim_order;
  /// product(sizes) x element size (the upper bound for DYNAMIC_BOUND).
  uint64_t nbytes = 0;
  /// Memory-planned: has allocation_info and is not DYNAMIC_UNBOUND.
  bool planned = false;
  /// Valid when planned.
  Placement placement;
  StoredFields stored;
  /// extra_tensor_info.fully_qualified_name, or empty.
  std::string_view name;
  /// data_buffer_idx > 0 together with allocation_info: the loader copies an
  /// initial state from the mutable data segment into the planned memory.
  bool has_initial_state = false;

  /// State that must survive between executions: a planned tensor with an
  /// initial state or a name.
  bool is_mutable_buffer() const { return planned && (has_initial_state || !name.empty()); }
  /// "FLOAT[1,8,128,64]": scalar type and sizes, as messages show a tensor
  /// (and " dim order 0,2,1,3" where it is not the plain one).
  std::string Shape() const;
  /// Same scalar type, sizes and dim order: one buffer's bytes mean the
  /// same to both (equal byte sizes alone do not).
  bool SameShape(const TensorValue& other) const;
};

/// One planned memory arena of a method.
struct Arena {
  uint32_t memory_id = 0;  // 1-based, index into non_const_buffer_sizes
  uint64_t size = 0;
  DeviceType device = DeviceType::kCpu;
  int8_t device_index = 0;

  bool SameDevice(const Arena& other) const {
    return device == other.device && device_index == other.device_index;
  }
};

/// "aten::add.out": an operator as ExecuTorch registers its kernel (the
/// name, then "." and the overload when it has one).
std::string KernelName(std::string_view name, std::string_view overload);

/// "CUDA:0", as messages name a device.
std::string DeviceText(DeviceType device, int8_t index);

struct MethodView {
  std::string name;
  uint32_t index = 0;  // position in Program.execution_plan
  uint32_t value_count = 0;
  uint32_t instruction_count = 0;  // over all chains
  /// Every Tensor value, in value-index order.
  std::vector<TensorValue> tensors;
  /// Per value index, the position of its tensor in `tensors`, or kNoTensor
  /// (tensor() is asked for every instruction argument).
  std::vector<uint32_t> tensor_at;
  static constexpr uint32_t kNoTensor = UINT32_MAX;
  /// memory_id 1..n from non_const_buffer_sizes (entry 0 is reserved).
  std::vector<Arena> arenas;
  /// The plan's inputs and outputs, as listed (an index may be out of
  /// range: the FlatBuffers verifier does not check it).
  std::vector<int32_t> inputs;
  std::vector<int32_t> outputs;
  /// Every delegate's backend id, in order (nullopt where it has none).
  std::vector<std::optional<std::string_view>> delegate_ids;
  /// Every entry of the plan's operator table, in order, as a kernel is
  /// registered: "aten::add.out" (name, then "." and the overload when it
  /// has one). A KernelCall names its entry by op_index
  /// (InstructionEffect::callee).
  std::vector<std::string> operators;
  /// What each instruction references and writes (instruction_effects.h).
  MethodEffects effects;

  size_t planned_count() const;
  /// The arena with this memory_id, or nullptr.
  const Arena* arena(uint32_t memory_id) const;
  /// The tensor with this value index, or nullptr.
  const TensorValue* tensor(uint32_t value_index) const;
};

struct ProgramView {
  PteLayout layout;
  std::vector<MethodView> methods;

  const MethodView* method(std::string_view name) const;
};

/// "method decode, value 22 (layers.0.k_cache)": how every message names a
/// value; the name only where the program gives the tensor one.
std::string ValueLabel(const MethodView& method, uint32_t value_index);
/// "method decode, value 22", for a method known only by name.
std::string ValueLabel(std::string_view method_name, uint32_t value_index);

/// Whether ReadProgramView reads what each instruction references and
/// writes (MethodView::effects, about a third of the read). A check that
/// compares only tensors and arenas (the patched copy, the written file)
/// skips them; every stage that plans or verifies a plan reads them.
enum class ViewEffects { kRead, kSkip };

/// Reads every method of a verified program. Errors (an unknown scalar type,
/// a negative dimension, sizes whose product overflows) name the method and
/// value. Placements outside their arena are recorded, not refused: the
/// checks that care report them.
Result<ProgramView> ReadProgramView(const fb::Program& program, const PteLayout& layout,
                                    ViewEffects effects = ViewEffects::kRead);

/// flags[v]: value v is listed in `values` (a plan's inputs or outputs);
/// indices outside [0, count) are ignored.
std::vector<bool> ValueFlags(std::span<const int32_t> values, size_t count);

}  // namespace pteshare

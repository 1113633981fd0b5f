// ProgramSpec: a compiled ExecuTorch program described as plain data, the
// input of BuildProgram (program_builder.h). Tests write one by hand (or let
// synth_llm / synth_cnn write one) and get a .pte laid out the way
// ExecuTorch's exporter lays it out.
//
// The spec talks in the program's own terms: values by index, instructions
// in one chain, arenas by memory_id. What the builder derives (operator table,
// segment offsets, data_buffer_idx, placements of planned tensors, arena
// sizes) is not in the spec unless a test wants to force it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "program_generated.h"

namespace pteshare::synth {

/// Index of a value in its method's value table (ExecutionPlan.values).
using ValueIndex = int32_t;
/// 1-based arena id, as in AllocationDetails.memory_id.
using MemoryId = uint32_t;
/// Byte offset inside an arena; 64-bit because tests need offsets > 4 GiB.
using ByteOffset = uint64_t;

using fb::DeviceType;
using fb::ScalarType;
using fb::TensorShapeDynamism;

// ---- Where a tensor's memory comes from --------------------------------

/// Let the exporter-like planner (exporter_greedy.h) place the tensor in
/// arena `memory_id`, using the lifetime the builder derives from the
/// instructions. The default for every non-constant tensor.
struct PlanInArena {
  MemoryId memory_id = 1;
};

/// A hand-made placement that the planner must not touch: tests build
/// defects (overlaps, out-of-arena offsets) and > 4 GiB offsets with it.
/// The planner still keeps its own tensors clear of it only if lifetimes
/// say so; it does not avoid fixed placements (ET never sees such tensors).
struct FixedPlacement {
  MemoryId memory_id = 1;
  ByteOffset offset = 0;
};

/// The tensor shares memory with tensor `base` (in-place result, view,
/// MoveCall destination): same arena, offset = base's offset +
/// `relative_offset`. `base` may itself be an alias.
struct AliasOf {
  ValueIndex base = 0;
  ByteOffset relative_offset = 0;
};

/// No allocation_info: a constant (its data lives in the constant segment)
/// or a tensor the runtime allocates itself (DYNAMIC_UNBOUND).
struct NotPlanned {};

using TensorMemory = std::variant<PlanInArena, FixedPlacement, AliasOf, NotPlanned>;

// ---- Values --------------------------------------------------------------

/// A Tensor value. Exactly one of these holds:
///  - `constant_data` set: a constant weight; written to the constant segment,
///    data_buffer_idx > 0, no allocation_info. `memory` must be NotPlanned
///    or left at its default.
///  - `initial_state` set: a mutable buffer (state such as a KV cache); its
///    bytes go to mutable_data_segments[0], data_buffer_idx > 0, and it is
///    planned (allocation_info) as `memory` says. Lives for the whole method.
///  - neither: an activation (or an unnamed/named buffer without initial
///    state), planned as `memory` says.
/// A tensor with `fully_qualified_name` is a mutable buffer too (lives for
/// the whole method), with or without initial state.
struct Tensor {
  ScalarType scalar_type = ScalarType::FLOAT;
  std::vector<int32_t> sizes{};
  /// Empty: the plain order 0, 1, ..., n-1.
  std::vector<uint8_t> dim_order{};
  TensorShapeDynamism shape_dynamism = TensorShapeDynamism::STATIC;
  /// Written to extra_tensor_info.fully_qualified_name.
  std::optional<std::string> fully_qualified_name{};
  /// Initial state, product(sizes) x element size bytes.
  std::optional<std::vector<uint8_t>> initial_state{};
  /// Constant data, product(sizes) x element size bytes.
  std::optional<std::vector<uint8_t>> constant_data{};
  /// extra_tensor_info.location = EXTERNAL: the loader takes the data from
  /// a named data map (a .ptd file) by fully_qualified_name. NotPlanned: an
  /// external constant; planned: loaded into its planned memory.
  bool external = false;
  TensorMemory memory = PlanInArena{};
};

struct Null {};
struct Int {
  int64_t value = 0;
};
struct Bool {
  bool value = false;
};
struct Double {
  double value = 0;
};
struct String {
  std::string value{};
};
/// Items are indices of Int values (as on the wire), not integers.
struct IntList {
  std::vector<ValueIndex> items{};
};
struct DoubleList {
  std::vector<double> items{};
};
struct BoolList {
  std::vector<bool> items{};
};
/// Items are indices of Tensor values.
struct TensorList {
  std::vector<ValueIndex> items{};
};
/// Items are indices of Tensor or Null values.
struct OptionalTensorList {
  std::vector<ValueIndex> items{};
};

using Value = std::variant<Null, Int, Bool, Double, String, Tensor, IntList, DoubleList, BoolList,
                           TensorList, OptionalTensorList>;

// ---- Instructions --------------------------------------------------------

/// An operator by name, e.g. {"aten::add", "out"}. See operators.h.
struct OperatorName {
  std::string name{};
  std::string overload{};
  bool operator==(const OperatorName&) const = default;
};

/// Calls an operator. Exporter convention: `args` are the schema arguments
/// (out arguments included) followed by the return values again. The
/// builder interns `op` into ExecutionPlan.operators in first-use order.
struct KernelCall {
  OperatorName op{};
  std::vector<ValueIndex> args{};
};

/// Calls delegate `delegate_index` of the method (MethodSpec.delegates).
struct DelegateCall {
  int32_t delegate_index = 0;
  std::vector<ValueIndex> args{};
};

/// Afterwards `to` refers to `from`'s memory (give `to` AliasOf{from}).
struct MoveCall {
  ValueIndex from = 0;
  ValueIndex to = 0;
};

/// If Bool value `condition` is false, continue at instruction
/// `destination`; a destination before the jump makes a loop.
struct JumpFalseCall {
  ValueIndex condition = 0;
  int32_t destination = 0;
};

struct FreeCall {
  ValueIndex value = 0;
};

using Instruction = std::variant<KernelCall, DelegateCall, MoveCall, JumpFalseCall, FreeCall>;

// ---- Methods and the program ----------------------------------------------

struct CompileSpec {
  std::string key{};
  std::vector<uint8_t> value{};
};

/// A backend delegate; its processed blob is stored inline in
/// Program.backend_delegate_data.
struct Delegate {
  std::string id{};
  std::vector<uint8_t> processed{};
  std::vector<CompileSpec> compile_specs{};
};

/// non_const_buffer_device entry: arena `memory_id` lives on `device`.
struct ArenaDevice {
  MemoryId memory_id = 1;
  DeviceType device = DeviceType::CUDA;
  int8_t device_index = 0;
};

/// One method (ExecutionPlan) with a single chain.
struct MethodSpec {
  std::string name{};
  std::vector<Value> values{};
  std::vector<ValueIndex> inputs{};
  std::vector<ValueIndex> outputs{};
  std::vector<Instruction> instructions{};
  /// Operators listed up front (in this order) before those interned from
  /// KernelCalls; rarely needed.
  std::vector<OperatorName> operators{};
  std::vector<Delegate> delegates{};
  std::vector<ArenaDevice> arena_devices{};
  /// Overrides the derived non_const_buffer_sizes (entry 0 included), for
  /// tests that need a wrong or oversized arena.
  std::optional<std::vector<int64_t>> non_const_buffer_sizes{};
  /// ContainerMetadata.encoded_out_str, the outputs' pytree spec ("$": one
  /// leaf). Loaders ignore it; the exporter writes it.
  std::string encoded_out_spec{};

  /// Appends a value and returns its index.
  ValueIndex Add(Value value);
  /// Appends an instruction. Prefer it to instructions.push_back: GCC 12
  /// warns falsely (-Wmaybe-uninitialized) when a variant is moved inline.
  void Emit(Instruction instruction);
  /// Appends a KernelCall (args = schema args then returns, see above).
  void Call(OperatorName op, std::vector<ValueIndex> args);
};

struct ProgramSpec {
  uint32_t version = 0;
  std::vector<MethodSpec> methods{};
};

// ---- Small helpers tests use everywhere -------------------------------------

/// Bytes per element as the runtime counts them; 0 for an unknown type.
uint64_t ElementSize(ScalarType type);
/// product(sizes) x element size (sizes are the upper bound when dynamic).
uint64_t TensorNbytes(const Tensor& tensor);

}  // namespace pteshare::synth

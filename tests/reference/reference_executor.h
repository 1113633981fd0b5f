// A reference executor for builder-made programs: a small interpreter that
// loads a method the way ExecuTorch's loader does and runs its instruction
// stream with the reference kernels (reference_kernels.h). Test-only; it is
// the proof that a rewrite keeps a program's meaning.
//
// What it shares with the real runtime, because that is what a rewrite can
// break:
//  - a planned tensor's data is arena[memory_id - 1] + offset, and the
//    application binds the arenas: the same ArenaSet may be handed to
//    several methods (shared arenas, as Module(share_memory_arenas=true)
//    does), or each method gets its own;
//  - loading a method copies every initial state (mutable_data_segments)
//    into its planned memory, so loading another method later may copy over
//    shared memory again;
//  - constants come from the constant segment (or Program.constant_buffer),
//    unplanned non-constant tensors get memory of their own;
//  - values persist between executions (an Int written by a kernel, a
//    tensor a MoveCall redirected), as the runtime keeps its EValues.
// What it does not do: dynamic shapes, devices (every arena is host memory),
// kernels outside tools/synth/operators.h.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "program_generated.h"
#include "rewriter/base/result.h"
#include "rewriter/program/program_view.h"
#include "rewriter/program/pte_layout.h"
#include "tests/reference/reference_kernels.h"
#include "tests/reference/reference_values.h"

namespace pteshare::reference {

/// Placements that replace the program's own for one method: the plan as
/// the executor sees it when it is applied without patching bytes
/// (plan_application.h). Tensors not listed keep the program's placement.
struct PlacementOverrides {
  std::map<uint32_t, Placement> placements;  // by value index
  /// New non_const_buffer_sizes, indexed by memory_id - 1; empty: unchanged.
  std::vector<uint64_t> arena_sizes;
};

/// A verified program together with the bytes it points into.
class ReferenceProgram {
 public:
  /// Reads `bytes` with the project's reader (ReadPteLayout verifies the
  /// flatbuffer and checks the segments against the file).
  static Result<std::shared_ptr<const ReferenceProgram>> Read(std::vector<uint8_t> bytes);

  const fb::Program& program() const { return *program_; }
  const PteLayout& layout() const { return layout_; }
  std::span<const uint8_t> bytes() const { return bytes_; }
  std::vector<std::string> method_names() const;
  /// The method's ExecutionPlan, or nullptr.
  const fb::ExecutionPlan* method(std::string_view name) const;
  /// Arena sizes of a method, indexed by memory_id - 1 (from
  /// non_const_buffer_sizes, or from `overrides` when they give some).
  std::vector<uint64_t> ArenaSizes(std::string_view method,
                                   const PlacementOverrides* overrides = nullptr) const;
  /// Bytes of segment `index`, or an error naming the bounds.
  Result<std::span<const uint8_t>> Segment(uint32_t index) const;

 private:
  ReferenceProgram() = default;

  std::vector<uint8_t> bytes_;
  PteLayout layout_;
  const fb::Program* program_ = nullptr;
};

/// Arena memory the application allocates: one zero-filled buffer per
/// memory_id. Hand one ArenaSet to several methods to share their arenas.
class ArenaSet {
 public:
  /// `sizes` indexed by memory_id - 1.
  explicit ArenaSet(const std::vector<uint64_t>& sizes);
  /// The buffer of arena `memory_id` (1-based); empty if there is none.
  std::span<uint8_t> arena(uint32_t memory_id);
  size_t count() const { return buffers_.size(); }

 private:
  std::vector<std::vector<uint8_t>> buffers_;
};

/// The largest size per memory_id over several methods' arena sizes: what
/// an application allocates to share its arenas among them.
std::vector<uint64_t> LargestArenaSizes(const std::vector<std::vector<uint64_t>>& per_method);

/// One method bound to arenas, ready to run. Keeps the program alive; the
/// ArenaSet must outlive it.
class LoadedMethod {
 public:
  /// Binds `arenas` (each at least the method's arena size, as the loader
  /// demands), checks every planned tensor fits its arena, copies initial
  /// states into planned memory and resolves every operator to a kernel.
  static Result<LoadedMethod> Load(std::shared_ptr<const ReferenceProgram> program,
                                   std::string_view method, ArenaSet& arenas,
                                   const PlacementOverrides* overrides = nullptr);

  const std::string& name() const { return name_; }
  size_t input_count() const { return inputs_.size(); }
  size_t output_count() const { return outputs_.size(); }
  /// The Tensor of input `i` (its type and sizes; the caller fills it).
  Result<TensorRef> InputTensor(size_t i) const;

  /// Copies `bytes` (exactly the tensor's nbytes) into input `i`.
  Status SetInput(size_t i, std::span<const uint8_t> bytes);
  /// Runs every chain once. Errors name the method and the instruction.
  Status Execute();
  /// The bytes of output `i` as they are now (read them before another
  /// method runs on shared arenas).
  Result<std::vector<uint8_t>> Output(size_t i) const;

  /// The bytes tensor value `value_index` refers to now.
  Result<std::vector<uint8_t>> TensorBytes(uint32_t value_index) const;
  /// Overwrites them (exactly nbytes).
  Status WriteTensorBytes(uint32_t value_index, std::span<const uint8_t> bytes);
  /// Where tensor value `value_index`'s data is, or nullptr.
  const uint8_t* TensorAddress(uint32_t value_index) const;
  /// The value index of the tensor named `name` (fully_qualified_name).
  std::optional<uint32_t> FindNamedTensor(std::string_view name) const;
  /// Whether loading copied an initial state into tensor `value_index`.
  bool HasInitialState(uint32_t value_index) const;

 private:
  LoadedMethod() = default;
  Status Step(const fb::Instruction& instruction, size_t& pc);

  std::shared_ptr<const ReferenceProgram> program_;
  const fb::ExecutionPlan* plan_ = nullptr;
  std::string name_;
  std::vector<RuntimeValue> values_;
  std::vector<bool> has_initial_state_;
  /// Memory the method owns: constants' copies and unplanned tensors.
  std::vector<std::vector<uint8_t>> owned_;
  std::vector<Kernel> kernels_;                           // by operator index
  std::vector<std::span<const uint8_t>> delegate_blobs_;  // by delegate index
  std::vector<int32_t> inputs_, outputs_;
};

}  // namespace pteshare::reference

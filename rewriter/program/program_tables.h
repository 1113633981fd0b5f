// The generated tables behind a ProgramView, found again by index in the
// verified bytes, for the one stage after the reader that works on the
// wire format itself: the patcher. ProgramView keeps no pointer to them
// (program_view.h), so that the stages between see plain types only.
#pragma once

#include <cstdint>
#include <span>

#include "program_generated.h"
#include "rewriter/program/program_view.h"

namespace pteshare {

/// The root table of a program whose bytes PteFile verified (bytes()
/// starts at the flatbuffer, also for the program inside a bundle).
inline const fb::Program& ProgramTable(std::span<const uint8_t> program_bytes) {
  return *fb::GetProgram(program_bytes.data());
}

/// The ExecutionPlan that `method` was read from.
inline const fb::ExecutionPlan& PlanTable(const fb::Program& program, const MethodView& method) {
  return *program.execution_plan()->Get(method.index);
}

/// The Tensor table that `tensor` of `method` was read from.
inline const fb::Tensor& TensorTable(const fb::Program& program, const MethodView& method,
                                     const TensorValue& tensor) {
  return *PlanTable(program, method).values()->Get(tensor.value_index)->val_as_Tensor();
}

}  // namespace pteshare

// The walker behind MethodView::effects (instruction_effects.h): reads a
// method's chains from the generated tables, once, while ReadProgramView
// builds the method. Internal to the reader: it includes the generated
// code, which no stage after the reader sees.
#pragma once

#include "program_generated.h"
#include "rewriter/program/instruction_effects.h"
#include "rewriter/program/program_view.h"

namespace pteshare {

/// Walks every chain of `plan` once. `method` is the view of `plan` with
/// its tensors and inputs read (which values a DelegateCall defines depends
/// on them).
MethodEffects ReadMethodEffects(const MethodView& method, const fb::ExecutionPlan& plan);

}  // namespace pteshare

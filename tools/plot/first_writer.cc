#include "tools/plot/first_writer.h"

namespace pteshare::plot {
namespace {

/// The instruction by what it calls.
std::string InstructionName(const MethodView& method, const InstructionEffect& effect) {
  const int32_t callee = effect.callee;
  const bool in_range = callee >= 0;
  const size_t index = static_cast<size_t>(callee);
  switch (effect.kind) {
    case InstructionKind::kKernel:
      if (in_range && index < method.operators.size() && !method.operators[index].empty()) {
        return method.operators[index];
      }
      return "kernel call (operator " + std::to_string(callee) + " not in the table)";
    case InstructionKind::kDelegate:
      if (in_range && index < method.delegate_ids.size() && method.delegate_ids[index]) {
        return "delegate " + std::string(*method.delegate_ids[index]);
      }
      return "delegate call";
    case InstructionKind::kMove:
      return "move";
    case InstructionKind::kJump:
    case InstructionKind::kFree:
    case InstructionKind::kEmpty:
      break;
  }
  return "instruction";
}

}  // namespace

std::string FirstWrite::Text() const {
  switch (kind) {
    case WriterKind::kInput:
      return "input";
    case WriterKind::kInitialState:
      return "initial state";
    case WriterKind::kInstruction:
      return op + " (instruction " + std::to_string(instruction) + ")";
    case WriterKind::kNone:
      break;
  }
  return "none";
}

std::vector<FirstWrite> FirstWriters(const MethodView& method) {
  std::vector<FirstWrite> writers(method.value_count);
  // The loader and the caller write before any instruction runs; an input
  // with an initial state is the caller's (it writes last).
  for (const TensorValue& t : method.tensors) {
    if (t.value_index < writers.size() && t.has_initial_state) {
      writers[t.value_index].kind = WriterKind::kInitialState;
    }
  }
  for (int32_t input : method.inputs) {
    if (input >= 0 && static_cast<size_t>(input) < writers.size()) {
      writers[static_cast<size_t>(input)].kind = WriterKind::kInput;
    }
  }
  const MethodEffects& effects = method.effects;
  for (int64_t time = 0; time < effects.instruction_count(); ++time) {
    auto [first, last] = effects.TouchesOf(time);
    for (const ValueTouch* touch = first; touch != last; ++touch) {
      if (!touch->writes || touch->value >= writers.size()) continue;
      FirstWrite& writer = writers[touch->value];
      if (writer.kind != WriterKind::kNone) continue;
      writer.kind = WriterKind::kInstruction;
      writer.op = InstructionName(method, effects.instructions[static_cast<size_t>(time)]);
      writer.instruction = time;
    }
  }
  return writers;
}

}  // namespace pteshare::plot

#include "tools/synth/value_lifetimes.h"

#include <algorithm>
#include <type_traits>

namespace pteshare::synth {
namespace {

bool IsMutableBuffer(const Value& value) {
  const auto* tensor = std::get_if<Tensor>(&value);
  return tensor != nullptr &&
         (tensor->initial_state.has_value() || tensor->fully_qualified_name.has_value());
}

/// Value indices an instruction refers to directly.
std::vector<ValueIndex> DirectOperands(const Instruction& instruction) {
  return std::visit(
      [](const auto& call) -> std::vector<ValueIndex> {
        using Call = std::decay_t<decltype(call)>;
        if constexpr (std::is_same_v<Call, KernelCall> || std::is_same_v<Call, DelegateCall>) {
          return call.args;
        } else if constexpr (std::is_same_v<Call, MoveCall>) {
          return {call.from, call.to};
        } else if constexpr (std::is_same_v<Call, JumpFalseCall>) {
          return {call.condition};
        } else {
          return {call.value};
        }
      },
      instruction);
}

/// List items a list value holds, which the list's users use too.
const std::vector<ValueIndex>* ListItems(const Value& value) {
  if (const auto* list = std::get_if<TensorList>(&value)) return &list->items;
  if (const auto* list = std::get_if<OptionalTensorList>(&value)) return &list->items;
  return nullptr;
}

bool InRange(const MethodSpec& method, ValueIndex index) {
  return index >= 0 && static_cast<size_t>(index) < method.values.size();
}

}  // namespace

Lifetime WholeMethod(const MethodSpec& method) {
  int32_t last =
      method.instructions.empty() ? 0 : static_cast<int32_t>(method.instructions.size()) - 1;
  return Lifetime{0, last};
}

std::vector<Lifetime> ComputeValueLifetimes(const MethodSpec& method) {
  const Lifetime whole = WholeMethod(method);
  std::vector<std::optional<Lifetime>> seen(method.values.size());
  auto touch = [&](ValueIndex index, Lifetime at) {
    if (!InRange(method, index)) return;  // the serializer reports bad indices
    if (seen[index]) {
      seen[index]->Cover(at);
    } else {
      seen[index] = at;
    }
  };

  for (size_t i = 0; i < method.instructions.size(); ++i) {
    const Lifetime now{static_cast<int32_t>(i), static_cast<int32_t>(i)};
    for (ValueIndex operand : DirectOperands(method.instructions[i])) {
      touch(operand, now);
      if (!InRange(method, operand)) continue;
      if (const auto* items = ListItems(method.values[operand])) {
        for (ValueIndex item : *items) touch(item, now);
      }
    }
  }
  for (ValueIndex input : method.inputs) touch(input, Lifetime{0, 0});
  for (ValueIndex output : method.outputs) touch(output, Lifetime{whole.last, whole.last});

  std::vector<Lifetime> lifetimes(method.values.size(), whole);
  for (size_t v = 0; v < method.values.size(); ++v) {
    if (seen[v] && !IsMutableBuffer(method.values[v])) lifetimes[v] = *seen[v];
  }

  // A backward jump re-runs [destination, jump]; whatever is live inside
  // must survive the whole loop. Repeat until stable for nested loops.
  std::vector<Lifetime> loops;
  for (size_t i = 0; i < method.instructions.size(); ++i) {
    const auto* jump = std::get_if<JumpFalseCall>(&method.instructions[i]);
    if (jump != nullptr && jump->destination <= static_cast<int32_t>(i)) {
      loops.push_back(Lifetime{std::max(jump->destination, 0), static_cast<int32_t>(i)});
    }
  }
  for (bool changed = !loops.empty(); changed;) {
    changed = false;
    for (Lifetime& lifetime : lifetimes) {
      for (const Lifetime& loop : loops) {
        if (!lifetime.Overlaps(loop)) continue;
        Lifetime widened = lifetime;
        widened.Cover(loop);
        if (widened.first != lifetime.first || widened.last != lifetime.last) {
          lifetime = widened;
          changed = true;
        }
      }
    }
  }
  return lifetimes;
}

}  // namespace pteshare::synth

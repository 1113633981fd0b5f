// InstructionEffects: which values each instruction of a method references
// and which of them it writes, by the exporter's conventions, in plain
// types (MethodView::effects). The reader walks the instruction stream once
// (instruction_effects_reader.h); lifetimes (lifetimes.h), the alias
// evidence for shared buffers (alias_evidence.h) and the verifier all read
// this one result, so they agree on what "written" means.
//
// Time is the instruction index over the method's chains, chain after
// chain. What the exporter leaves implicit:
//  - a KernelCall's args are the schema args followed by the return values
//    again: the values of the repeated tail are written by the call (the
//    tail is the longest suffix that repeats the args just before it), at
//    both places (the out args and their repeat); a value that appears
//    before the out args is read, even if the call writes it too (in
//    place);
//  - a DelegateCall's args hold its inputs and its outputs, in no marked
//    order: a value the call defines (referenced here first, not a plan
//    input, no initial state) is written by it, and born there: the
//    exporter plans such outputs as starting after the call's inputs are
//    read, so an output may sit on the bytes of an input that dies at the
//    call;
//  - a MoveCall writes its destination;
//  - a list argument (TensorList, OptionalTensorList) references its items
//    with the list's write flag (an out list is written item by item).
// JumpFalseCall's condition and FreeCall's value are references that write
// nothing. Indices outside the value list are ignored (the verifier of the
// flatbuffer does not check them).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace pteshare {

enum class InstructionKind : uint8_t { kKernel, kDelegate, kMove, kJump, kFree, kEmpty };

/// One value referenced by one instruction.
struct ValueTouch {
  uint32_t value = 0;
  bool writes = false;
};

/// One instruction: its touches are MethodEffects::touches[first, first + count).
struct InstructionEffect {
  InstructionKind kind = InstructionKind::kEmpty;
  uint32_t first_touch = 0;
  uint32_t touch_count = 0;
  /// What it calls, as stored (unchecked): a KernelCall's op_index into
  /// MethodView::operators, a DelegateCall's delegate_index into
  /// MethodView::delegate_ids; -1 for the other kinds. Only for naming the
  /// instruction (`plot`'s tooltips); nothing plans with it.
  int32_t callee = -1;
};

/// A backward JumpFalseCall: instructions [destination, jump] may run again.
struct BackwardJump {
  int64_t destination = 0;
  int64_t jump = 0;
};

struct MethodEffects {
  /// Indexed by time.
  std::vector<InstructionEffect> instructions;
  /// Every touch, instruction after instruction (a value may appear twice
  /// in one instruction: as an arg and as a list item).
  std::vector<ValueTouch> touches;
  /// (from, to) of every MoveCall whose indices are valid.
  std::vector<std::pair<uint32_t, uint32_t>> moves;
  std::vector<BackwardJump> loops;
  /// Indexed by value index: the DelegateCall time that defines the value,
  /// or -1.
  std::vector<int64_t> born_at_delegate;

  int64_t instruction_count() const { return static_cast<int64_t>(instructions.size()); }
  /// The touches of instruction `time`.
  std::pair<const ValueTouch*, const ValueTouch*> TouchesOf(int64_t time) const {
    const InstructionEffect& e = instructions[static_cast<size_t>(time)];
    const ValueTouch* first = touches.data() + e.first_touch;
    return {first, first + e.touch_count};
  }
};

}  // namespace pteshare

// The checker's own reading of which values each instruction references
// and which it writes (the rule is in docs/design.md, "Alias by evidence";
// pteshare's planner has a separate implementation on purpose: this one
// must catch a bad file whoever wrote it). Read in place from the verified
// program, visiting values instead of building lists.
//
// Written by an instruction: a KernelCall's repeated tail of args (the
// exporter lists the return values again after the schema args), a value a
// DelegateCall defines (first referenced there, not a method input, no
// initial state: alias_evidence.cc judges that, as it needs the order), a
// MoveCall's destination; TensorList items share their list's role.
#ifndef PTESHARE_RUNTIME_CHECK_INSTRUCTION_USES_H_
#define PTESHARE_RUNTIME_CHECK_INSTRUCTION_USES_H_

#include <stdint.h>

#include "flat_reader.h"
#include "program_fields.h"

namespace pteshare::runtime_check::core::internal {

enum class InstructionKind : uint8_t {
  kOther,  // no arguments, or a kind that names no value
  kKernelCall,
  kDelegateCall,
  kMoveCall,
  kJumpFalseCall,
  kFreeCall,
};

struct InstructionView {
  InstructionKind kind = InstructionKind::kOther;
  flat::Vector args;  // KernelCall, DelegateCall (int32)
  /// MoveCall: move_from, move_to; JumpFalseCall: cond_value_index;
  /// FreeCall: value_index (in `first`).
  int32_t first = 0;
  int32_t second = 0;
};

/// What an instruction does with a value it references.
enum class Role : uint8_t {
  kRead,
  kWrite,
  /// A DelegateCall argument: written when first referenced there.
  kDelegateArgument,
};

inline InstructionView ReadInstruction(flat::Reader& reader, const flat::Table& instruction) {
  namespace f = ::pteshare::fields;
  InstructionView out;
  const auto tag = static_cast<f::InstructionTag>(
      reader.Scalar<uint8_t>(instruction, f::Instruction::kArgsType, 0));
  const flat::Table args = reader.TableField(instruction, f::Instruction::kArgs);
  if (!args.present) return out;
  switch (tag) {
    case f::InstructionTag::kKernelCall:
      out.kind = InstructionKind::kKernelCall;
      out.args = reader.VectorField(args, f::KernelCall::kArgs, 4);
      break;
    case f::InstructionTag::kDelegateCall:
      out.kind = InstructionKind::kDelegateCall;
      out.args = reader.VectorField(args, f::DelegateCall::kArgs, 4);
      break;
    case f::InstructionTag::kMoveCall:
      out.kind = InstructionKind::kMoveCall;
      out.first = reader.Scalar<int32_t>(args, f::MoveCall::kMoveFrom, 0);
      out.second = reader.Scalar<int32_t>(args, f::MoveCall::kMoveTo, 0);
      break;
    case f::InstructionTag::kJumpFalseCall:
      out.kind = InstructionKind::kJumpFalseCall;
      out.first = reader.Scalar<int32_t>(args, f::JumpFalseCall::kCondValueIndex, 0);
      break;
    case f::InstructionTag::kFreeCall:
      out.kind = InstructionKind::kFreeCall;
      out.first = reader.Scalar<int32_t>(args, f::FreeCall::kValueIndex, 0);
      break;
    default:
      break;
  }
  return out;
}

/// Calls visit(instruction) for every instruction of every chain of the
/// plan, chain after chain.
template <typename Visit>
void ForEachInstruction(flat::Reader& reader, const flat::Table& plan, Visit visit) {
  namespace f = ::pteshare::fields;
  const flat::Vector chains = reader.VectorField(plan, f::ExecutionPlan::kChains, 4);
  for (uint32_t c = 0; c < chains.length && reader.ok(); ++c) {
    const flat::Vector instructions =
        reader.VectorField(reader.TableElement(chains, c), f::Chain::kInstructions, 4);
    for (uint32_t i = 0; i < instructions.length && reader.ok(); ++i) {
      visit(ReadInstruction(reader, reader.TableElement(instructions, i)));
    }
  }
}

/// Calls visit(value, role) for each value (index < values.length) the
/// instruction references, in argument order; a TensorList's items follow
/// the list with its role (a list is never a delegate's output).
template <typename Visit>
void VisitReferences(flat::Reader& reader, const flat::Vector& values,
                     const InstructionView& instruction, Visit visit) {
  namespace f = ::pteshare::fields;
  auto add = [&](int64_t v, Role role) {
    if (v < 0 || v >= values.length) return;
    visit(static_cast<uint32_t>(v), role);
    const flat::Table value = reader.TableElement(values, static_cast<uint32_t>(v));
    const auto tag =
        static_cast<f::ValueTag>(reader.Scalar<uint8_t>(value, f::EValue::kValType, 0));
    if (tag != f::ValueTag::kTensorList && tag != f::ValueTag::kOptionalTensorList) return;
    const flat::Table list = reader.TableField(value, f::EValue::kVal);
    if (!list.present) return;
    const flat::Vector items = reader.VectorField(list, f::TensorList::kItems, 4);
    const Role item_role = role == Role::kDelegateArgument ? Role::kRead : role;
    for (uint32_t i = 0; i < items.length; ++i) {
      const int32_t item = reader.Element<int32_t>(items, i);
      if (item >= 0 && static_cast<uint32_t>(item) < values.length) {
        visit(static_cast<uint32_t>(item), item_role);
      }
    }
  };
  const flat::Vector& args = instruction.args;
  switch (instruction.kind) {
    case InstructionKind::kKernelCall: {
      const uint32_t n = args.length;
      auto arg = [&](uint32_t i) { return reader.Element<int32_t>(args, i); };
      // The longest suffix that repeats the args just before it.
      uint32_t tail = 0;
      for (uint32_t k = n / 2; k >= 1 && tail == 0; --k) {
        bool repeats = true;
        for (uint32_t i = 0; i < k && repeats; ++i) repeats = arg(n - k + i) == arg(n - 2 * k + i);
        if (repeats) tail = k;
      }
      for (uint32_t i = 0; i < n; ++i) add(arg(i), i >= n - tail ? Role::kWrite : Role::kRead);
      return;
    }
    case InstructionKind::kDelegateCall:
      for (uint32_t i = 0; i < args.length; ++i) {
        add(reader.Element<int32_t>(args, i), Role::kDelegateArgument);
      }
      return;
    case InstructionKind::kMoveCall:
      add(instruction.first, Role::kRead);    // move_from
      add(instruction.second, Role::kWrite);  // move_to
      return;
    case InstructionKind::kJumpFalseCall:  // cond_value_index
    case InstructionKind::kFreeCall:       // value_index
      add(instruction.first, Role::kRead);
      return;
    case InstructionKind::kOther:
      return;
  }
}

}  // namespace pteshare::runtime_check::core::internal

#endif  // PTESHARE_RUNTIME_CHECK_INSTRUCTION_USES_H_

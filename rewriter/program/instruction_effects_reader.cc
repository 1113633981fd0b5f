#include "rewriter/program/instruction_effects_reader.h"

namespace pteshare {
namespace {

/// The longest suffix of `args` that repeats the args just before it: the
/// return values the exporter lists again after the schema args.
size_t RepeatedTail(const flatbuffers::Vector<int32_t>& args) {
  const size_t n = args.size();
  for (size_t k = n / 2; k >= 1; --k) {
    bool repeats = true;
    for (size_t i = 0; i < k && repeats; ++i) repeats = args[n - k + i] == args[n - 2 * k + i];
    if (repeats) return k;
  }
  return 0;
}

class EffectsReader {
 public:
  EffectsReader(const MethodView& method, const fb::ExecutionPlan& plan)
      : method_(method),
        plan_(plan),
        count_(plan_.values() ? plan_.values()->size() : 0),
        input_(ValueFlags(method.inputs, count_)),
        seen_(count_, false) {
    effects_.born_at_delegate.assign(count_, -1);
  }

  MethodEffects Run() && {
    int64_t time = 0;
    if (plan_.chains() != nullptr) {
      for (const fb::Chain* chain : *plan_.chains()) {
        if (chain == nullptr || chain->instructions() == nullptr) continue;
        const int64_t chain_start = time;
        for (const fb::Instruction* instruction : *chain->instructions()) {
          InstructionEffect effect;
          effect.first_touch = static_cast<uint32_t>(effects_.touches.size());
          if (instruction != nullptr) {
            effect.kind = Visit(*instruction, chain_start, time);
            effect.callee = Callee(*instruction);
          }
          effect.touch_count = static_cast<uint32_t>(effects_.touches.size()) - effect.first_touch;
          for (uint32_t i = effect.first_touch; i < effects_.touches.size(); ++i) {
            seen_[effects_.touches[i].value] = true;
          }
          effects_.instructions.push_back(effect);
          ++time;
        }
      }
    }
    return std::move(effects_);
  }

 private:
  InstructionKind Visit(const fb::Instruction& instruction, int64_t chain_start, int64_t time) {
    using fb::InstructionArguments;
    // A union with its type set but no value passes the FlatBuffers
    // verifier; such an instruction references nothing.
    if (instruction.instr_args() == nullptr) return InstructionKind::kEmpty;
    switch (instruction.instr_args_type()) {
      case InstructionArguments::KernelCall: {
        const auto* args = instruction.instr_args_as_KernelCall()->args();
        if (args == nullptr) return InstructionKind::kKernel;
        // [inputs..., out args (k), the out args again (k)]: both copies
        // are written; only a value among the inputs is read (in place, a
        // value is both: add.out(v, y, out=v)).
        const size_t tail = RepeatedTail(*args);
        const size_t out_start = args->size() - 2 * tail;
        for (size_t i = 0; i < args->size(); ++i) Touch(args->Get(i), i >= out_start);
        return InstructionKind::kKernel;
      }
      case InstructionArguments::DelegateCall: {
        const auto* args = instruction.instr_args_as_DelegateCall()->args();
        if (args == nullptr) return InstructionKind::kDelegate;
        for (int32_t arg : *args) {
          const bool defines = Defines(arg);
          if (defines) effects_.born_at_delegate[static_cast<size_t>(arg)] = time;
          Touch(arg, defines);
        }
        return InstructionKind::kDelegate;
      }
      case InstructionArguments::MoveCall: {
        const fb::MoveCall* move = instruction.instr_args_as_MoveCall();
        Touch(move->move_from(), false);
        Touch(move->move_to(), true);
        if (Valid(move->move_from()) && Valid(move->move_to())) {
          effects_.moves.emplace_back(move->move_from(), move->move_to());
        }
        return InstructionKind::kMove;
      }
      case InstructionArguments::JumpFalseCall: {
        const fb::JumpFalseCall* jump = instruction.instr_args_as_JumpFalseCall();
        Touch(jump->cond_value_index(), false);
        const int64_t destination = chain_start + jump->destination_instruction();
        if (jump->destination_instruction() >= 0 && destination <= time) {
          effects_.loops.push_back({destination, time});
        }
        return InstructionKind::kJump;
      }
      case InstructionArguments::FreeCall:
        Touch(instruction.instr_args_as_FreeCall()->value_index(), false);
        return InstructionKind::kFree;
      default:
        return InstructionKind::kEmpty;
    }
  }

  static int32_t Callee(const fb::Instruction& instruction) {
    if (const fb::KernelCall* call = instruction.instr_args_as_KernelCall()) {
      return call->op_index();
    }
    if (const fb::DelegateCall* call = instruction.instr_args_as_DelegateCall()) {
      return call->delegate_index();
    }
    return -1;
  }

  bool Valid(int64_t index) const { return index >= 0 && static_cast<size_t>(index) < count_; }

  // A planned tensor that no earlier instruction referenced, that the caller
  // does not provide and that has no initial state is defined by the call.
  bool Defines(int64_t index) const {
    if (!Valid(index) || seen_[static_cast<size_t>(index)] || input_[static_cast<size_t>(index)])
      return false;
    const TensorValue* t = method_.tensor(static_cast<uint32_t>(index));
    return t != nullptr && t->planned && !t->has_initial_state;
  }

  void Touch(int64_t index, bool writes) {
    if (!Valid(index)) return;
    effects_.touches.push_back({static_cast<uint32_t>(index), writes});
    const fb::EValue* value = plan_.values()->Get(static_cast<flatbuffers::uoffset_t>(index));
    if (value == nullptr) return;
    const flatbuffers::Vector<int32_t>* items = nullptr;
    if (const auto* list = value->val_as_TensorList()) items = list->items();
    if (const auto* list = value->val_as_OptionalTensorList()) items = list->items();
    if (items == nullptr) return;
    for (int32_t item : *items) {
      if (Valid(item)) effects_.touches.push_back({static_cast<uint32_t>(item), writes});
    }
  }

  const MethodView& method_;
  const fb::ExecutionPlan& plan_;
  const size_t count_;
  const std::vector<bool> input_;
  std::vector<bool> seen_;  // referenced by an earlier instruction
  MethodEffects effects_;
};

}  // namespace

MethodEffects ReadMethodEffects(const MethodView& method, const fb::ExecutionPlan& plan) {
  return EffectsReader(method, plan).Run();
}

}  // namespace pteshare

#include "tests/reference/reference_executor.h"

#include <algorithm>
#include <cstring>

namespace pteshare::reference {
namespace {

/// Instructions one Execute may run before it is called a runaway loop.
constexpr uint64_t kStepBudget = uint64_t{1} << 22;

uint64_t PlacementOffset(const fb::AllocationDetails& info) {
  return uint64_t{info.memory_offset_high()} << 32 | info.memory_offset_low();
}

std::string Label(std::string_view method, size_t value) {
  return "method " + std::string(method) + ", value " + std::to_string(value);
}

/// The index list of an IntList / TensorList / OptionalTensorList.
template <typename Vector>
std::vector<int64_t> Items(const Vector* items) {
  std::vector<int64_t> out;
  if (items != nullptr) out.assign(items->begin(), items->end());
  return out;
}

}  // namespace

// ---- ReferenceProgram -------------------------------------------------------

Result<std::shared_ptr<const ReferenceProgram>> ReferenceProgram::Read(std::vector<uint8_t> bytes) {
  std::shared_ptr<ReferenceProgram> program(new ReferenceProgram());
  program->bytes_ = std::move(bytes);
  Result<PteLayout> layout = ReadPteLayout(program->bytes_, &program->program_);
  if (!layout.ok()) return layout.error();
  program->layout_ = std::move(layout).value();
  if (program->program_->execution_plan() == nullptr) return Error{"program has no methods"};
  return std::shared_ptr<const ReferenceProgram>(std::move(program));
}

std::vector<std::string> ReferenceProgram::method_names() const {
  std::vector<std::string> names;
  for (const fb::ExecutionPlan* plan : *program_->execution_plan()) {
    names.push_back(plan->name() ? plan->name()->str() : "");
  }
  return names;
}

const fb::ExecutionPlan* ReferenceProgram::method(std::string_view name) const {
  for (const fb::ExecutionPlan* plan : *program_->execution_plan()) {
    if (plan->name() != nullptr && plan->name()->string_view() == name) return plan;
  }
  return nullptr;
}

std::vector<uint64_t> ReferenceProgram::ArenaSizes(std::string_view name,
                                                   const PlacementOverrides* overrides) const {
  if (overrides != nullptr && !overrides->arena_sizes.empty()) return overrides->arena_sizes;
  std::vector<uint64_t> sizes;
  const fb::ExecutionPlan* plan = method(name);
  if (plan == nullptr || plan->non_const_buffer_sizes() == nullptr) return sizes;
  const auto& stored = *plan->non_const_buffer_sizes();
  for (uint32_t i = 1; i < stored.size(); ++i) {
    sizes.push_back(static_cast<uint64_t>(std::max<int64_t>(stored.Get(i), 0)));
  }
  return sizes;
}

Result<std::span<const uint8_t>> ReferenceProgram::Segment(uint32_t index) const {
  if (index >= layout_.segments.size()) {
    return Error{"segment " + std::to_string(index) + " of " +
                 std::to_string(layout_.segments.size())};
  }
  const SegmentExtent& s = layout_.segments[index];
  if (s.file_offset + s.size > bytes_.size()) {
    return Error{"segment " + std::to_string(index) + " ends at " +
                 std::to_string(s.file_offset + s.size) + " > file size " +
                 std::to_string(bytes_.size())};
  }
  return std::span<const uint8_t>(bytes_.data() + s.file_offset, s.size);
}

// ---- ArenaSet ---------------------------------------------------------------

ArenaSet::ArenaSet(const std::vector<uint64_t>& sizes) {
  for (uint64_t size : sizes) buffers_.emplace_back(size, 0);
}

std::span<uint8_t> ArenaSet::arena(uint32_t memory_id) {
  if (memory_id == 0 || memory_id > buffers_.size()) return {};
  return buffers_[memory_id - 1];
}

std::vector<uint64_t> LargestArenaSizes(const std::vector<std::vector<uint64_t>>& per_method) {
  std::vector<uint64_t> largest;
  for (const std::vector<uint64_t>& sizes : per_method) {
    if (largest.size() < sizes.size()) largest.resize(sizes.size(), 0);
    for (size_t i = 0; i < sizes.size(); ++i) largest[i] = std::max(largest[i], sizes[i]);
  }
  return largest;
}

// ---- LoadedMethod: binding --------------------------------------------------

namespace {

/// Binds every value of a method: the loader's work.
class MethodBinder {
 public:
  MethodBinder(const ReferenceProgram& program, const fb::ExecutionPlan& plan, std::string name,
               ArenaSet& arenas, const PlacementOverrides* overrides)
      : program_(program),
        plan_(plan),
        name_(std::move(name)),
        arenas_(arenas),
        overrides_(overrides) {}

  Status CheckArenas() {
    arena_sizes_ = program_.ArenaSizes(name_, overrides_);
    for (size_t i = 0; i < arena_sizes_.size(); ++i) {
      const uint32_t memory_id = static_cast<uint32_t>(i + 1);
      if (arena_sizes_[i] > arenas_.arena(memory_id).size()) {
        return Error{"method " + name_ + ": arena " + std::to_string(memory_id) + " needs " +
                     std::to_string(arena_sizes_[i]) + " bytes, the bound buffer has " +
                     std::to_string(arenas_.arena(memory_id).size())};
      }
    }
    return Status::Ok();
  }

  Status BindValues(std::vector<RuntimeValue>& values, std::vector<bool>& has_initial_state,
                    std::vector<std::vector<uint8_t>>& owned) {
    const auto* evalues = plan_.values();
    const size_t count = evalues ? evalues->size() : 0;
    values.assign(count, RuntimeValue{});
    has_initial_state.assign(count, false);
    for (size_t v = 0; v < count; ++v) {
      const fb::EValue* e = evalues->Get(static_cast<uint32_t>(v));
      RuntimeValue& out = values[v];
      switch (e->val_type()) {
        case fb::KernelTypes::Null:
          out.kind = ValueKind::kNull;
          break;
        case fb::KernelTypes::Int:
          out.kind = ValueKind::kInt;
          out.int_value = e->val_as_Int()->int_val();
          break;
        case fb::KernelTypes::Bool:
          out.kind = ValueKind::kBool;
          out.bool_value = e->val_as_Bool()->bool_val();
          break;
        case fb::KernelTypes::Double:
          out.kind = ValueKind::kDouble;
          out.double_value = e->val_as_Double()->double_val();
          break;
        case fb::KernelTypes::String:
          out.kind = ValueKind::kString;
          if (e->val_as_String()->string_val())
            out.string_value = e->val_as_String()->string_val()->str();
          break;
        case fb::KernelTypes::IntList:
          out.kind = ValueKind::kIntList;
          out.items = Items(e->val_as_IntList()->items());
          break;
        case fb::KernelTypes::DoubleList:
          out.kind = ValueKind::kDoubleList;
          if (auto* d = e->val_as_DoubleList()->items()) out.doubles.assign(d->begin(), d->end());
          break;
        case fb::KernelTypes::BoolList:
          out.kind = ValueKind::kBoolList;
          if (auto* b = e->val_as_BoolList()->items()) out.bools.assign(b->begin(), b->end());
          break;
        case fb::KernelTypes::TensorList:
          out.kind = ValueKind::kTensorList;
          out.items = Items(e->val_as_TensorList()->items());
          break;
        case fb::KernelTypes::OptionalTensorList:
          out.kind = ValueKind::kOptionalTensorList;
          out.items = Items(e->val_as_OptionalTensorList()->items());
          break;
        case fb::KernelTypes::Tensor: {
          out.kind = ValueKind::kTensor;
          bool initial = false;
          if (Status s = BindTensor(v, *e->val_as_Tensor(), out.tensor, initial, owned); !s) {
            return s;
          }
          has_initial_state[v] = initial;
          break;
        }
        default:
          out.kind = ValueKind::kNone;
          break;
      }
    }
    return Status::Ok();
  }

 private:
  Status BindTensor(size_t v, const fb::Tensor& t, TensorRef& ref, bool& initial,
                    std::vector<std::vector<uint8_t>>& owned) {
    ref.scalar_type = t.scalar_type();
    if (ScalarTypeSize(ref.scalar_type) == 0) {
      return Error{Label(name_, v) + ": unknown scalar type " +
                   std::to_string(static_cast<int>(ref.scalar_type))};
    }
    if (t.sizes() != nullptr) {
      for (int32_t s : *t.sizes()) {
        if (s < 0) return Error{Label(name_, v) + ": negative size " + std::to_string(s)};
        ref.sizes.push_back(s);
      }
    }
    const uint64_t nbytes = ref.nbytes();
    const bool planned = t.allocation_info() != nullptr &&
                         t.shape_dynamism() != fb::TensorShapeDynamism::DYNAMIC_UNBOUND;
    if (planned) {
      Placement p{t.allocation_info()->memory_id(), PlacementOffset(*t.allocation_info()), nbytes};
      if (overrides_ != nullptr) {
        auto it = overrides_->placements.find(static_cast<uint32_t>(v));
        if (it != overrides_->placements.end()) p = it->second;
      }
      if (p.memory_id == 0 || p.memory_id > arena_sizes_.size()) {
        return Error{Label(name_, v) + ": memory_id " + std::to_string(p.memory_id) +
                     " is not an arena of the method (it has " +
                     std::to_string(arena_sizes_.size()) + ")"};
      }
      if (p.offset + nbytes > arena_sizes_[p.memory_id - 1]) {
        return Error{Label(name_, v) + ": offset " + std::to_string(p.offset) + " + " +
                     std::to_string(nbytes) + " bytes > arena " + std::to_string(p.memory_id) +
                     " size " + std::to_string(arena_sizes_[p.memory_id - 1])};
      }
      ref.data = arenas_.arena(p.memory_id).data() + p.offset;
      if (t.data_buffer_idx() > 0) {
        initial = true;
        return LoadInitialState(v, t, ref);
      }
      return Status::Ok();
    }
    std::vector<uint8_t>& memory = owned.emplace_back(nbytes, 0);
    ref.data = memory.data();
    if (t.data_buffer_idx() > 0) return LoadConstant(v, t.data_buffer_idx(), memory);
    return Status::Ok();
  }

  Status LoadInitialState(size_t v, const fb::Tensor& t, TensorRef& ref) {
    const auto* segments = program_.program().mutable_data_segments();
    uint64_t which = t.extra_tensor_info() ? t.extra_tensor_info()->mutable_data_segments_idx() : 0;
    if (segments == nullptr || which >= segments->size()) {
      return Error{Label(name_, v) + ": initial state in mutable data segment " +
                   std::to_string(which) + ", the program has " +
                   std::to_string(segments ? segments->size() : 0)};
    }
    const fb::SubsegmentOffsets* sub = segments->Get(static_cast<uint32_t>(which));
    return CopyFromSubsegment(v, *sub, t.data_buffer_idx(), {ref.data, ref.nbytes()});
  }

  Status LoadConstant(size_t v, uint32_t index, std::vector<uint8_t>& memory) {
    const fb::SubsegmentOffsets* sub = program_.program().constant_segment();
    if (sub != nullptr && sub->offsets() != nullptr && sub->offsets()->size() > 0) {
      return CopyFromSubsegment(v, *sub, index, memory);
    }
    const auto* buffers = program_.program().constant_buffer();
    if (buffers == nullptr || index >= buffers->size() || !buffers->Get(index)->storage()) {
      return Error{Label(name_, v) + ": constant " + std::to_string(index) + " not found"};
    }
    const auto* storage = buffers->Get(index)->storage();
    if (storage->size() < memory.size()) {
      return Error{Label(name_, v) + ": constant " + std::to_string(index) + " has " +
                   std::to_string(storage->size()) + " bytes, tensor " +
                   std::to_string(memory.size())};
    }
    std::memcpy(memory.data(), storage->data(), memory.size());
    return Status::Ok();
  }

  Status CopyFromSubsegment(size_t v, const fb::SubsegmentOffsets& sub, uint32_t index,
                            std::span<uint8_t> into) {
    Result<std::span<const uint8_t>> segment = program_.Segment(sub.segment_index());
    if (!segment.ok()) return Error{Label(name_, v) + ": " + segment.error().message};
    if (sub.offsets() == nullptr || index >= sub.offsets()->size()) {
      return Error{Label(name_, v) + ": data index " + std::to_string(index) + " of " +
                   std::to_string(sub.offsets() ? sub.offsets()->size() : 0)};
    }
    const uint64_t at = sub.offsets()->Get(index);
    if (at + into.size() > segment->size()) {
      return Error{Label(name_, v) + ": data at " + std::to_string(at) + " + " +
                   std::to_string(into.size()) + " bytes > segment size " +
                   std::to_string(segment->size())};
    }
    if (!into.empty()) std::memcpy(into.data(), segment->data() + at, into.size());
    return Status::Ok();
  }

  const ReferenceProgram& program_;
  const fb::ExecutionPlan& plan_;
  std::string name_;
  ArenaSet& arenas_;
  const PlacementOverrides* overrides_;
  std::vector<uint64_t> arena_sizes_;
};

}  // namespace

Result<LoadedMethod> LoadedMethod::Load(std::shared_ptr<const ReferenceProgram> program,
                                        std::string_view method, ArenaSet& arenas,
                                        const PlacementOverrides* overrides) {
  const fb::ExecutionPlan* plan = program->method(method);
  if (plan == nullptr) return Error{"no method " + std::string(method)};
  LoadedMethod loaded;
  loaded.program_ = program;
  loaded.plan_ = plan;
  loaded.name_ = std::string(method);

  MethodBinder binder(*program, *plan, loaded.name_, arenas, overrides);
  if (Status s = binder.CheckArenas(); !s) return s.error();
  if (Status s = binder.BindValues(loaded.values_, loaded.has_initial_state_, loaded.owned_); !s) {
    return s.error();
  }

  if (plan->operators() != nullptr) {
    for (const fb::Operator* op : *plan->operators()) {
      std::string_view name = op->name() ? op->name()->string_view() : "";
      std::string_view overload = op->overload() ? op->overload()->string_view() : "";
      Kernel kernel = FindKernel(name, overload);
      if (kernel == nullptr) {
        return Error{"method " + loaded.name_ + ": no kernel for " + std::string(name) + "." +
                     std::string(overload)};
      }
      loaded.kernels_.push_back(kernel);
    }
  }
  if (plan->delegates() != nullptr) {
    for (const fb::BackendDelegate* delegate : *plan->delegates()) {
      const fb::BackendDelegateDataReference* ref = delegate->processed();
      std::span<const uint8_t> blob;
      if (ref != nullptr && ref->location() == fb::DataLocation::INLINE) {
        const auto* inline_data = program->program().backend_delegate_data();
        if (inline_data == nullptr || ref->index() >= inline_data->size()) {
          return Error{"method " + loaded.name_ + ": delegate data " +
                       std::to_string(ref->index()) + " missing"};
        }
        if (const auto* data = inline_data->Get(ref->index())->data()) {
          blob = {data->data(), data->size()};
        }
      } else if (ref != nullptr) {
        Result<std::span<const uint8_t>> segment = program->Segment(ref->index());
        if (!segment.ok()) return segment.error();
        blob = *segment;
      }
      loaded.delegate_blobs_.push_back(blob);
    }
  }
  if (plan->inputs()) loaded.inputs_.assign(plan->inputs()->begin(), plan->inputs()->end());
  if (plan->outputs()) loaded.outputs_.assign(plan->outputs()->begin(), plan->outputs()->end());
  for (int32_t index : loaded.inputs_) {
    if (index < 0 || static_cast<size_t>(index) >= loaded.values_.size()) {
      return Error{"method " + loaded.name_ + ": input value " + std::to_string(index) +
                   " out of range"};
    }
  }
  return loaded;
}

// ---- LoadedMethod: running --------------------------------------------------

Result<TensorRef> LoadedMethod::InputTensor(size_t i) const {
  if (i >= inputs_.size()) return Error{"method " + name_ + ": no input " + std::to_string(i)};
  const RuntimeValue& v = values_[inputs_[i]];
  if (v.kind != ValueKind::kTensor) {
    return Error{"method " + name_ + ": input " + std::to_string(i) + " is not a tensor"};
  }
  return v.tensor;
}

Status LoadedMethod::SetInput(size_t i, std::span<const uint8_t> bytes) {
  if (i >= inputs_.size()) return Error{"method " + name_ + ": no input " + std::to_string(i)};
  return WriteTensorBytes(static_cast<uint32_t>(inputs_[i]), bytes);
}

Status LoadedMethod::Execute() {
  const auto* chains = plan_->chains();
  if (chains == nullptr) return Status::Ok();
  uint64_t steps = 0;
  for (size_t c = 0; c < chains->size(); ++c) {
    const auto* instructions = chains->Get(static_cast<uint32_t>(c))->instructions();
    if (instructions == nullptr) continue;
    for (size_t pc = 0; pc < instructions->size();) {
      if (++steps > kStepBudget) {
        return Error{"method " + name_ + ": more than " + std::to_string(kStepBudget) +
                     " instructions (a loop that never ends?)"};
      }
      if (Status s = Step(*instructions->Get(static_cast<uint32_t>(pc)), pc); !s) {
        return Error{"method " + name_ + ", chain " + std::to_string(c) + ", instruction " +
                     std::to_string(pc) + ": " + s.error().message};
      }
    }
  }
  return Status::Ok();
}

Status LoadedMethod::Step(const fb::Instruction& instruction, size_t& pc) {
  auto in_range = [&](int32_t v) { return v >= 0 && static_cast<size_t>(v) < values_.size(); };
  switch (instruction.instr_args_type()) {
    case fb::InstructionArguments::KernelCall: {
      const fb::KernelCall* call = instruction.instr_args_as_KernelCall();
      if (call->op_index() < 0 || static_cast<size_t>(call->op_index()) >= kernels_.size()) {
        return Error{"operator index " + std::to_string(call->op_index()) + " of " +
                     std::to_string(kernels_.size())};
      }
      std::span<const int32_t> args;
      if (call->args()) args = {call->args()->data(), call->args()->size()};
      if (Status s = kernels_[call->op_index()](values_, args); !s) return s;
      ++pc;
      return Status::Ok();
    }
    case fb::InstructionArguments::DelegateCall: {
      const fb::DelegateCall* call = instruction.instr_args_as_DelegateCall();
      const int32_t d = call->delegate_index();
      if (d < 0 || static_cast<size_t>(d) >= delegate_blobs_.size()) {
        return Error{"delegate index " + std::to_string(d) + " of " +
                     std::to_string(delegate_blobs_.size())};
      }
      std::span<const int32_t> args;
      if (call->args()) args = {call->args()->data(), call->args()->size()};
      if (Status s = RunDelegateStandIn(delegate_blobs_[d], values_, args); !s) return s;
      ++pc;
      return Status::Ok();
    }
    case fb::InstructionArguments::MoveCall: {
      // As the runtime does: the destination EValue becomes a copy of the
      // source (for a tensor: the same data pointer).
      const fb::MoveCall* move = instruction.instr_args_as_MoveCall();
      if (!in_range(move->move_from()) || !in_range(move->move_to())) {
        return Error{"move " + std::to_string(move->move_from()) + " -> " +
                     std::to_string(move->move_to()) + " out of range"};
      }
      values_[move->move_to()] = values_[move->move_from()];
      ++pc;
      return Status::Ok();
    }
    case fb::InstructionArguments::JumpFalseCall: {
      const fb::JumpFalseCall* jump = instruction.instr_args_as_JumpFalseCall();
      const int32_t cond = jump->cond_value_index();
      if (!in_range(cond) || values_[cond].kind != ValueKind::kBool) {
        return Error{"jump condition value " + std::to_string(cond) + " is not a Bool"};
      }
      if (values_[cond].bool_value) {
        ++pc;
      } else {
        pc = static_cast<size_t>(std::max(jump->destination_instruction(), 0));
      }
      return Status::Ok();
    }
    case fb::InstructionArguments::FreeCall:
      ++pc;  // planned memory is never freed; unplanned tensors keep theirs
      return Status::Ok();
    default:
      return Error{"instruction without arguments"};
  }
}

Result<std::vector<uint8_t>> LoadedMethod::Output(size_t i) const {
  if (i >= outputs_.size()) return Error{"method " + name_ + ": no output " + std::to_string(i)};
  return TensorBytes(static_cast<uint32_t>(outputs_[i]));
}

Result<std::vector<uint8_t>> LoadedMethod::TensorBytes(uint32_t value_index) const {
  if (value_index >= values_.size() || values_[value_index].kind != ValueKind::kTensor) {
    return Error{Label(name_, value_index) + " is not a tensor"};
  }
  const TensorRef& t = values_[value_index].tensor;
  return std::vector<uint8_t>(t.data, t.data + t.nbytes());
}

Status LoadedMethod::WriteTensorBytes(uint32_t value_index, std::span<const uint8_t> bytes) {
  if (value_index >= values_.size() || values_[value_index].kind != ValueKind::kTensor) {
    return Error{Label(name_, value_index) + " is not a tensor"};
  }
  const TensorRef& t = values_[value_index].tensor;
  if (bytes.size() != t.nbytes()) {
    return Error{Label(name_, value_index) + ": " + std::to_string(bytes.size()) +
                 " bytes given, tensor has " + std::to_string(t.nbytes())};
  }
  if (!bytes.empty()) std::memcpy(t.data, bytes.data(), bytes.size());
  return Status::Ok();
}

const uint8_t* LoadedMethod::TensorAddress(uint32_t value_index) const {
  if (value_index >= values_.size() || values_[value_index].kind != ValueKind::kTensor) {
    return nullptr;
  }
  return values_[value_index].tensor.data;
}

std::optional<uint32_t> LoadedMethod::FindNamedTensor(std::string_view name) const {
  const auto* evalues = plan_->values();
  for (uint32_t v = 0; evalues != nullptr && v < evalues->size(); ++v) {
    const fb::Tensor* t = evalues->Get(v)->val_as_Tensor();
    if (t == nullptr || t->extra_tensor_info() == nullptr) continue;
    const auto* fqn = t->extra_tensor_info()->fully_qualified_name();
    if (fqn != nullptr && fqn->string_view() == name) return v;
  }
  return std::nullopt;
}

bool LoadedMethod::HasInitialState(uint32_t value_index) const {
  return value_index < has_initial_state_.size() && has_initial_state_[value_index];
}

}  // namespace pteshare::reference

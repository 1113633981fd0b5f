#include "tools/synth/program_serializer.h"

#include <flatbuffers/flatbuffers.h>

#include <type_traits>

namespace pteshare::synth {
namespace {

using flatbuffers::FlatBufferBuilder;
using flatbuffers::Offset;

/// Serializes one method; owns the per-method operator table.
class MethodWriter {
 public:
  MethodWriter(FlatBufferBuilder& fbb, const MethodSpec& method, const MethodPlacements& placements,
               const std::vector<uint32_t>& data_buffer_idx, uint32_t& next_delegate_data,
               bool newer_exporter_fields)
      : newer_exporter_fields_(newer_exporter_fields),
        fbb_(fbb),
        method_(method),
        placements_(placements),
        data_buffer_idx_(data_buffer_idx),
        next_delegate_data_(next_delegate_data),
        operators_(method.operators) {}

  Offset<fb::ExecutionPlan> Write() {
    std::vector<Offset<fb::EValue>> values;
    values.reserve(method_.values.size());
    for (size_t v = 0; v < method_.values.size(); ++v) values.push_back(WriteValue(v));
    std::vector<Offset<fb::Instruction>> instructions;
    for (const Instruction& instruction : method_.instructions) {
      instructions.push_back(WriteInstruction(instruction));
    }
    // A method without instructions is a constant getter: the exporter's
    // one chain then lists no inputs and no outputs.
    const std::vector<int32_t> none;
    const bool getter = method_.instructions.empty();
    auto chain = fb::CreateChainDirect(fbb_, getter ? &none : &method_.inputs,
                                       getter ? &none : &method_.outputs, &instructions);
    std::vector<Offset<fb::Chain>> chains{chain};

    std::vector<Offset<fb::Operator>> operators;
    for (const OperatorName& op : operators_) {
      operators.push_back(fb::CreateOperatorDirect(fbb_, op.name.c_str(), op.overload.c_str()));
    }
    std::vector<Offset<fb::BackendDelegate>> delegates;
    for (const Delegate& delegate : method_.delegates) delegates.push_back(WriteDelegate(delegate));
    std::vector<Offset<fb::NonConstBufferDevice>> devices;
    for (const ArenaDevice& device : method_.arena_devices) {
      devices.push_back(fb::CreateNonConstBufferDevice(fbb_, static_cast<int32_t>(device.memory_id),
                                                       device.device, device.device_index));
    }
    // The exporter writes serialized pytree specs here; loaders ignore them.
    auto container = fb::CreateContainerMetadataDirect(fbb_, "", method_.encoded_out_spec.c_str());
    return fb::CreateExecutionPlanDirect(fbb_, method_.name.c_str(), container, &values,
                                         &method_.inputs, &method_.outputs, &chains, &operators,
                                         &delegates, &placements_.non_const_buffer_sizes,
                                         method_.arena_devices.empty() ? nullptr : &devices);
  }

 private:
  Offset<fb::EValue> WriteValue(size_t index) {
    return std::visit(
        [&](const auto& value) -> Offset<fb::EValue> {
          using V = std::decay_t<decltype(value)>;
          if constexpr (std::is_same_v<V, Null>) {
            return fb::CreateEValue(fbb_, fb::KernelTypes::Null, fb::CreateNull(fbb_).Union());
          } else if constexpr (std::is_same_v<V, Int>) {
            return fb::CreateEValue(fbb_, fb::KernelTypes::Int,
                                    fb::CreateInt(fbb_, value.value).Union());
          } else if constexpr (std::is_same_v<V, Bool>) {
            return fb::CreateEValue(fbb_, fb::KernelTypes::Bool,
                                    fb::CreateBool(fbb_, value.value).Union());
          } else if constexpr (std::is_same_v<V, Double>) {
            return fb::CreateEValue(fbb_, fb::KernelTypes::Double,
                                    fb::CreateDouble(fbb_, value.value).Union());
          } else if constexpr (std::is_same_v<V, String>) {
            return fb::CreateEValue(fbb_, fb::KernelTypes::String,
                                    fb::CreateStringDirect(fbb_, value.value.c_str()).Union());
          } else if constexpr (std::is_same_v<V, Tensor>) {
            return fb::CreateEValue(fbb_, fb::KernelTypes::Tensor,
                                    WriteTensor(index, value).Union());
          } else if constexpr (std::is_same_v<V, IntList>) {
            std::vector<int64_t> items(value.items.begin(), value.items.end());
            return fb::CreateEValue(fbb_, fb::KernelTypes::IntList,
                                    fb::CreateIntListDirect(fbb_, &items).Union());
          } else if constexpr (std::is_same_v<V, DoubleList>) {
            return fb::CreateEValue(fbb_, fb::KernelTypes::DoubleList,
                                    fb::CreateDoubleListDirect(fbb_, &value.items).Union());
          } else if constexpr (std::is_same_v<V, BoolList>) {
            std::vector<uint8_t> items(value.items.begin(), value.items.end());
            auto list = fb::CreateBoolList(fbb_, fbb_.CreateVector(items));
            return fb::CreateEValue(fbb_, fb::KernelTypes::BoolList, list.Union());
          } else if constexpr (std::is_same_v<V, TensorList>) {
            return fb::CreateEValue(fbb_, fb::KernelTypes::TensorList,
                                    fb::CreateTensorListDirect(fbb_, &value.items).Union());
          } else {
            static_assert(std::is_same_v<V, OptionalTensorList>);
            return fb::CreateEValue(fbb_, fb::KernelTypes::OptionalTensorList,
                                    fb::CreateOptionalTensorListDirect(fbb_, &value.items).Union());
          }
        },
        method_.values[index]);
  }

  // A field the schema does not know: id `known_fields` (one past the
  // last), value 1 (BuildOptions::newer_exporter_fields).
  void AddNewerField(int known_fields) {
    if (newer_exporter_fields_) {
      fbb_.AddElement<uint8_t>(static_cast<flatbuffers::voffset_t>(4 + 2 * known_fields), 1, 0);
    }
  }

  Offset<fb::Tensor> WriteTensor(size_t index, const Tensor& tensor) {
    Offset<fb::AllocationDetails> allocation;
    if (const auto& placement = placements_.by_value[index]) {
      fb::AllocationDetailsBuilder details(fbb_);
      details.add_memory_offset_high(static_cast<uint32_t>(placement->offset >> 32));
      details.add_memory_offset_low(static_cast<uint32_t>(placement->offset));
      details.add_memory_id(placement->memory_id);
      AddNewerField(3);
      allocation = details.Finish();
    }
    Offset<fb::ExtraTensorInfo> extra;
    const auto location =
        tensor.external ? fb::TensorDataLocation::EXTERNAL : fb::TensorDataLocation::SEGMENT;
    const char* name = tensor.fully_qualified_name ? tensor.fully_qualified_name->c_str() : nullptr;
    if ((name != nullptr || tensor.external) && !newer_exporter_fields_) {
      extra = fb::CreateExtraTensorInfoDirect(fbb_, 0, name, location);
    } else if (name != nullptr || tensor.external) {
      const auto name_offset =
          name != nullptr ? fbb_.CreateString(name) : Offset<flatbuffers::String>();
      fb::ExtraTensorInfoBuilder info(fbb_);
      info.add_fully_qualified_name(name_offset);
      if (tensor.external) info.add_location(location);
      AddNewerField(5);
      extra = info.Finish();
    }
    std::vector<uint8_t> dim_order = tensor.dim_order;
    if (dim_order.empty()) {  // the plain order 0, 1, ..., n-1
      dim_order.resize(tensor.sizes.size());
      for (size_t d = 0; d < dim_order.size(); ++d) dim_order[d] = static_cast<uint8_t>(d);
    }
    if (!newer_exporter_fields_) {
      return fb::CreateTensorDirect(fbb_, tensor.scalar_type, /*storage_offset=*/0, &tensor.sizes,
                                    &dim_order, /*requires_grad=*/false, data_buffer_idx_[index],
                                    allocation, /*layout=*/0, tensor.shape_dynamism, extra);
    }
    const auto sizes = fbb_.CreateVector(tensor.sizes);
    const auto order = fbb_.CreateVector(dim_order);
    fb::TensorBuilder table(fbb_);
    table.add_extra_tensor_info(extra);
    table.add_allocation_info(allocation);
    table.add_data_buffer_idx(data_buffer_idx_[index]);
    table.add_dim_order(order);
    table.add_sizes(sizes);
    table.add_storage_offset(0);
    table.add_shape_dynamism(tensor.shape_dynamism);
    table.add_layout(0);
    table.add_requires_grad(false);
    table.add_scalar_type(tensor.scalar_type);
    AddNewerField(10);
    return table.Finish();
  }

  Offset<fb::Instruction> WriteInstruction(const Instruction& instruction) {
    return std::visit(
        [&](const auto& call) -> Offset<fb::Instruction> {
          using C = std::decay_t<decltype(call)>;
          if constexpr (std::is_same_v<C, KernelCall>) {
            auto args = fb::CreateKernelCallDirect(fbb_, OperatorIndex(call.op), &call.args);
            return fb::CreateInstruction(fbb_, fb::InstructionArguments::KernelCall, args.Union());
          } else if constexpr (std::is_same_v<C, DelegateCall>) {
            auto args = fb::CreateDelegateCallDirect(fbb_, call.delegate_index, &call.args);
            return fb::CreateInstruction(fbb_, fb::InstructionArguments::DelegateCall,
                                         args.Union());
          } else if constexpr (std::is_same_v<C, MoveCall>) {
            auto args = fb::CreateMoveCall(fbb_, call.from, call.to);
            return fb::CreateInstruction(fbb_, fb::InstructionArguments::MoveCall, args.Union());
          } else if constexpr (std::is_same_v<C, JumpFalseCall>) {
            auto args = fb::CreateJumpFalseCall(fbb_, call.condition, call.destination);
            return fb::CreateInstruction(fbb_, fb::InstructionArguments::JumpFalseCall,
                                         args.Union());
          } else {
            static_assert(std::is_same_v<C, FreeCall>);
            auto args = fb::CreateFreeCall(fbb_, call.value);
            return fb::CreateInstruction(fbb_, fb::InstructionArguments::FreeCall, args.Union());
          }
        },
        instruction);
  }

  Offset<fb::BackendDelegate> WriteDelegate(const Delegate& delegate) {
    std::vector<Offset<fb::CompileSpec>> specs;
    for (const CompileSpec& spec : delegate.compile_specs) {
      specs.push_back(fb::CreateCompileSpecDirect(fbb_, spec.key.c_str(), &spec.value));
    }
    auto processed = fb::CreateBackendDelegateDataReference(fbb_, fb::DataLocation::INLINE,
                                                            next_delegate_data_++);
    return fb::CreateBackendDelegateDirect(fbb_, delegate.id.c_str(), processed, &specs);
  }

  /// Interns `op` into the operator table, in first-use order.
  int32_t OperatorIndex(const OperatorName& op) {
    for (size_t i = 0; i < operators_.size(); ++i) {
      if (operators_[i] == op) return static_cast<int32_t>(i);
    }
    operators_.push_back(op);
    return static_cast<int32_t>(operators_.size() - 1);
  }

  bool newer_exporter_fields_;
  FlatBufferBuilder& fbb_;
  const MethodSpec& method_;
  const MethodPlacements& placements_;
  const std::vector<uint32_t>& data_buffer_idx_;
  uint32_t& next_delegate_data_;
  std::vector<OperatorName> operators_;
};

}  // namespace

std::vector<uint8_t> SerializeProgram(const SerializeInputs& inputs) {
  const ProgramSpec& spec = *inputs.spec;
  FlatBufferBuilder fbb(1 << 16);
  fbb.ForceDefaults(inputs.force_defaults);

  std::vector<Offset<fb::ExecutionPlan>> plans;
  uint32_t next_delegate_data = 0;
  for (size_t m = 0; m < spec.methods.size(); ++m) {
    MethodWriter writer(fbb, spec.methods[m], (*inputs.placements)[m],
                        inputs.data->data_buffer_idx[m], next_delegate_data,
                        inputs.newer_exporter_fields);
    plans.push_back(writer.Write());
  }

  std::vector<Offset<fb::BackendDelegateInlineData>> delegate_data;
  for (const MethodSpec& method : spec.methods) {
    for (const Delegate& delegate : method.delegates) {
      delegate_data.push_back(fb::CreateBackendDelegateInlineDataDirect(fbb, &delegate.processed));
    }
  }

  const bool legacy = inputs.segments.empty();
  std::vector<Offset<fb::Buffer>> constant_buffer;
  if (legacy) {
    for (const auto& blob : inputs.data->inline_constants) {
      constant_buffer.push_back(fb::CreateBufferDirect(fbb, &blob));
    }
  }
  std::vector<Offset<fb::DataSegment>> segments;
  for (const SegmentEntry& segment : inputs.segments) {
    segments.push_back(fb::CreateDataSegment(fbb, segment.offset, segment.size));
  }
  Offset<fb::SubsegmentOffsets> constant_segment;
  if (!legacy) {
    constant_segment = fb::CreateSubsegmentOffsetsDirect(fbb, inputs.constant_segment_index,
                                                         &inputs.data->constants.offsets);
  }
  std::vector<Offset<fb::SubsegmentOffsets>> mutable_segments;
  if (inputs.has_mutable_segment) {
    mutable_segments.push_back(fb::CreateSubsegmentOffsetsDirect(
        fbb, inputs.mutable_segment_index, &inputs.data->mutable_states.offsets));
  }
  std::vector<Offset<fb::NamedData>> named_data;
  auto program = fb::CreateProgramDirect(
      fbb, spec.version, &plans, &constant_buffer, &delegate_data, &segments, constant_segment,
      inputs.has_mutable_segment ? &mutable_segments : nullptr, &named_data);
  fb::FinishProgramBuffer(fbb, program);
  return std::vector<uint8_t>(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
}

}  // namespace pteshare::synth

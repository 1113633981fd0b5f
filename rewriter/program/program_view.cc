#include "rewriter/program/program_view.h"

#include <algorithm>

#include "program_fields.h"
#include "program_generated.h"
#include "rewriter/program/instruction_effects_reader.h"
#include "tensor_nbytes.h"
#include "wire.h"

namespace pteshare {
namespace {

// Generated tables inherit privately from flatbuffers::Table; the layout is
// the same object, as FlatBuffers' own reflection code assumes.
template <typename GeneratedTable>
bool HasField(const GeneratedTable& table, flatbuffers::voffset_t field) {
  return reinterpret_cast<const flatbuffers::Table&>(table).GetAddressOf(field) != nullptr;
}

Result<TensorValue> ReadTensor(const MethodView& method, uint32_t value_index,
                               const fb::Tensor& tensor) {
  TensorValue value;
  value.value_index = value_index;
  value.scalar_type = static_cast<int8_t>(tensor.scalar_type());
  value.dynamism = static_cast<TensorDynamism>(tensor.shape_dynamism());
  if (const auto* sizes = tensor.sizes()) {
    value.sizes =
        StoredArray<int32_t>(reinterpret_cast<const uint8_t*>(sizes->Data()), sizes->size());
  }
  if (const auto* order = tensor.dim_order())
    value.dim_order = StoredArray<uint8_t>(order->Data(), order->size());

  fb::Nbytes nbytes = fb::TensorNbytes(tensor);
  switch (nbytes.status) {
    case fb::NbytesStatus::kOk:
      break;
    case fb::NbytesStatus::kUnknownScalarType:
      return Error{ValueLabel(method, value_index) + ": unknown scalar type " +
                   std::to_string(value.scalar_type)};
    case fb::NbytesStatus::kNegativeDimension:
      return Error{ValueLabel(method, value_index) + ": negative size " +
                   std::to_string(nbytes.bad_dimension)};
    case fb::NbytesStatus::kOverflow:
      return Error{ValueLabel(method, value_index) +
                   ": the product of its sizes overflows 64 bits"};
  }
  value.nbytes = nbytes.bytes;

  if (const fb::ExtraTensorInfo* extra = tensor.extra_tensor_info()) {
    if (const flatbuffers::String* name = extra->fully_qualified_name()) {
      value.name = std::string_view(name->c_str(), name->size());
    }
  }
  const fb::AllocationDetails* allocation = tensor.allocation_info();
  value.has_initial_state = allocation != nullptr && tensor.data_buffer_idx() > 0;
  if (allocation != nullptr) {
    value.stored.memory_id = HasField(*allocation, fb::AllocationDetails::VT_MEMORY_ID);
    value.stored.offset_low = HasField(*allocation, fb::AllocationDetails::VT_MEMORY_OFFSET_LOW);
    value.stored.offset_high = HasField(*allocation, fb::AllocationDetails::VT_MEMORY_OFFSET_HIGH);
    value.planned = value.dynamism != TensorDynamism::kDynamicUnbound;
    value.placement.memory_id = allocation->memory_id();
    value.placement.offset =
        fields::AllocationOffset(allocation->memory_offset_low(), allocation->memory_offset_high());
    value.placement.nbytes = value.nbytes;
  }
  return value;
}

Result<MethodView> ReadMethod(const fb::ExecutionPlan& plan, uint32_t index, ViewEffects effects) {
  MethodView method;
  method.index = index;
  method.name = plan.name() ? plan.name()->str() : "";
  if (const auto* inputs = plan.inputs()) method.inputs.assign(inputs->begin(), inputs->end());
  if (const auto* outputs = plan.outputs()) method.outputs.assign(outputs->begin(), outputs->end());
  if (const auto* delegates = plan.delegates()) {
    for (const fb::BackendDelegate* delegate : *delegates) {
      const bool named = delegate != nullptr && delegate->id() != nullptr;
      method.delegate_ids.push_back(
          named ? std::optional(std::string_view(delegate->id()->c_str(), delegate->id()->size()))
                : std::nullopt);
    }
  }
  if (const auto* operators = plan.operators()) {
    for (const fb::Operator* op : *operators) {
      auto text = [](const flatbuffers::String* s) {
        return s != nullptr ? std::string_view(s->c_str(), s->size()) : std::string_view();
      };
      method.operators.push_back(op != nullptr ? KernelName(text(op->name()), text(op->overload()))
                                               : std::string());
    }
  }

  if (const auto* chains = plan.chains()) {
    for (const fb::Chain* chain : *chains) {
      if (chain->instructions()) method.instruction_count += chain->instructions()->size();
    }
  }
  if (const auto* sizes = plan.non_const_buffer_sizes()) {
    for (flatbuffers::uoffset_t i = 1; i < sizes->size(); ++i) {
      // Byte-wise: the verifier checks a vector's length field for 4-byte
      // alignment only, so a hostile file can put these int64s at 4 mod 8.
      const auto size = static_cast<int64_t>(
          wire::LoadU64(reinterpret_cast<const uint8_t*>(sizes->Data()) + 8 * size_t{i}));
      if (size < 0) {
        return Error{"method " + method.name + ": arena " + std::to_string(i) +
                     " has negative size " + std::to_string(size)};
      }
      method.arenas.push_back(Arena{i, static_cast<uint64_t>(size)});
    }
  }
  if (const auto* devices = plan.non_const_buffer_device()) {
    for (const fb::NonConstBufferDevice* device : *devices) {
      int32_t idx = device->buffer_idx();
      if (idx < 1 || static_cast<size_t>(idx) > method.arenas.size()) {
        return Error{"method " + method.name + ": non_const_buffer_device names arena " +
                     std::to_string(idx) + " but the method has " +
                     std::to_string(method.arenas.size()) + " arenas"};
      }
      method.arenas[idx - 1].device = static_cast<DeviceType>(device->device_type());
      method.arenas[idx - 1].device_index = device->device_index();
    }
  }
  if (const auto* values = plan.values()) {
    method.value_count = values->size();
    method.tensor_at.assign(values->size(), MethodView::kNoTensor);
    for (uint32_t i = 0; i < values->size(); ++i) {
      const fb::Tensor* tensor = values->Get(i)->val_as_Tensor();
      if (tensor == nullptr) continue;
      Result<TensorValue> value = ReadTensor(method, i, *tensor);
      if (!value.ok()) return value.error();
      method.tensor_at[i] = static_cast<uint32_t>(method.tensors.size());
      method.tensors.push_back(std::move(value).value());
    }
  }
  if (effects == ViewEffects::kRead) method.effects = ReadMethodEffects(method, plan);
  return method;
}

}  // namespace

std::string KernelName(std::string_view name, std::string_view overload) {
  std::string text(name);
  if (!overload.empty()) text.append(".").append(overload);
  return text;
}

std::string DeviceText(DeviceType device, int8_t index) {
  std::string text = fb::EnumNameDeviceType(static_cast<fb::DeviceType>(device));
  if (text.empty()) text = "device type " + std::to_string(static_cast<int>(device));
  return text + ":" + std::to_string(index);
}

std::string TensorValue::Shape() const {
  const char* type = fb::EnumNameScalarType(static_cast<fb::ScalarType>(scalar_type));
  std::string text = *type != '\0' ? type : "scalar type " + std::to_string(scalar_type);
  text += "[";
  for (size_t i = 0; i < sizes.size(); ++i) text += (i > 0 ? "," : "") + std::to_string(sizes[i]);
  text += "]";
  // The dim order only where it is not the plain one (0, 1, ..., n-1).
  bool plain = true;
  for (size_t i = 0; i < dim_order.size(); ++i) plain = plain && dim_order[i] == i;
  if (!plain) {
    text += " dim order ";
    for (size_t i = 0; i < dim_order.size(); ++i) {
      text += (i > 0 ? "," : "") + std::to_string(dim_order[i]);
    }
  }
  return text;
}

bool TensorValue::SameShape(const TensorValue& other) const {
  return scalar_type == other.scalar_type && sizes == other.sizes && dim_order == other.dim_order;
}

size_t MethodView::planned_count() const {
  size_t count = 0;
  for (const TensorValue& t : tensors) count += t.planned ? 1 : 0;
  return count;
}

const Arena* MethodView::arena(uint32_t memory_id) const {
  if (memory_id == 0 || memory_id > arenas.size()) return nullptr;
  return &arenas[memory_id - 1];
}

const TensorValue* MethodView::tensor(uint32_t value_index) const {
  if (value_index >= tensor_at.size() || tensor_at[value_index] == kNoTensor) return nullptr;
  return &tensors[tensor_at[value_index]];
}

const MethodView* ProgramView::method(std::string_view name) const {
  for (const MethodView& m : methods) {
    if (m.name == name) return &m;
  }
  return nullptr;
}

Result<ProgramView> ReadProgramView(const fb::Program& program, const PteLayout& layout,
                                    ViewEffects effects) {
  ProgramView view;
  view.layout = layout;
  if (const auto* plans = program.execution_plan()) {
    for (uint32_t i = 0; i < plans->size(); ++i) {
      Result<MethodView> method = ReadMethod(*plans->Get(i), i, effects);
      if (!method.ok()) return method.error();
      view.methods.push_back(std::move(method).value());
    }
  }
  return view;
}

std::vector<bool> ValueFlags(std::span<const int32_t> values, size_t count) {
  std::vector<bool> flags(count, false);
  for (int32_t v : values) {
    if (v >= 0 && static_cast<size_t>(v) < count) flags[static_cast<size_t>(v)] = true;
  }
  return flags;
}

std::string ValueLabel(std::string_view method_name, uint32_t value_index) {
  return "method " + std::string(method_name) + ", value " + std::to_string(value_index);
}

std::string ValueLabel(const MethodView& method, uint32_t value_index) {
  std::string label = ValueLabel(method.name, value_index);
  const TensorValue* t = method.tensor(value_index);
  if (t != nullptr && !t->name.empty()) label += " (" + std::string(t->name) + ")";
  return label;
}

}  // namespace pteshare

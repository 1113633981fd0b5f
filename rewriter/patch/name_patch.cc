#include "rewriter/patch/name_patch.h"

#include <algorithm>

#include "rewriter/patch/unknown_fields.h"
#include "rewriter/program/program_tables.h"
#include "wire.h"

namespace pteshare {
namespace {

// The fields the schema knows (program.fbs): Tensor scalar_type ..
// extra_tensor_info; ExtraTensorInfo mutable_data_segments_idx .. device_index.
constexpr int kTensorFields = 10;
constexpr int kExtraTensorInfoFields = 5;

const flatbuffers::Table& AsTable(const void* generated) {
  return *reinterpret_cast<const flatbuffers::Table*>(generated);
}

// One complete copy of `tensor` named `name`, placed as `placement`, as a
// finished FlatBuffers buffer whose root is the Tensor table.
flatbuffers::DetachedBuffer CopyNamed(const fb::Tensor& tensor, const std::string& name,
                                      const Placement& placement) {
  flatbuffers::FlatBufferBuilder builder(256);
  builder.ForceDefaults(true);  // complete tables: a later rewrite overwrites in place
  const fb::ExtraTensorInfo* extra = tensor.extra_tensor_info();
  auto extra_copy = fb::CreateExtraTensorInfo(
      builder, extra ? extra->mutable_data_segments_idx() : 0, builder.CreateString(name),
      extra ? extra->location() : fb::TensorDataLocation::SEGMENT,
      extra ? extra->device_type() : fb::DeviceType::CPU, extra ? extra->device_index() : 0);
  auto allocation = fb::CreateAllocationDetails(builder, placement.memory_id,
                                                static_cast<uint32_t>(placement.offset),
                                                static_cast<uint32_t>(placement.offset >> 32));
  flatbuffers::Offset<flatbuffers::Vector<int32_t>> sizes = 0;
  if (tensor.sizes() != nullptr) {
    sizes = builder.CreateVector(tensor.sizes()->data(), tensor.sizes()->size());
  }
  flatbuffers::Offset<flatbuffers::Vector<uint8_t>> dim_order = 0;
  if (tensor.dim_order() != nullptr) {
    dim_order = builder.CreateVector(tensor.dim_order()->data(), tensor.dim_order()->size());
  }
  auto copy = fb::CreateTensor(builder, tensor.scalar_type(), tensor.storage_offset(), sizes,
                               dim_order, tensor.requires_grad(), tensor.data_buffer_idx(),
                               allocation, tensor.layout(), tensor.shape_dynamism(), extra_copy);
  builder.Finish(copy);
  return builder.Release();
}

}  // namespace

std::vector<TensorName> NamesToWrite(const ProgramView& view, const SharedBufferSet& shared) {
  std::vector<TensorName> names;
  for (const MethodView& method : view.methods) {
    for (const SharedBuffer& b : shared.buffers) {
      const auto& value = b.value_in_method[method.index];
      if (!value || b.private_state) continue;  // a private buffer's name is only a label
      const TensorValue* t = method.tensor(*value);
      if (t != nullptr && t->name != b.name) names.push_back({method.index, *value, b.name});
    }
  }
  std::sort(names.begin(), names.end(), [](const TensorName& a, const TensorName& b) {
    return a.method_index != b.method_index ? a.method_index < b.method_index
                                            : a.value_index < b.value_index;
  });
  return names;
}

Result<NamedTensorCopies> BuildNamedTensorCopies(std::span<const uint8_t> file,
                                                 const ProgramView& view, const Plan& plan,
                                                 const std::vector<TensorName>& names,
                                                 uint64_t start) {
  NamedTensorCopies out;
  const fb::Program& program = ProgramTable(file);
  for (const TensorName& n : names) {
    const MethodView& method = view.methods[n.method_index];
    const TensorValue* t = method.tensor(n.value_index);
    const TensorMove* move = plan.methods[n.method_index].Find(n.value_index);
    const fb::EValue* value = PlanTable(program, method).values()->Get(n.value_index);
    const uint8_t* val_field = AsTable(value).GetAddressOf(fb::EValue::VT_VAL);
    const fb::Tensor* table = t != nullptr ? &TensorTable(program, method, *t) : nullptr;
    if (table == nullptr || move == nullptr || val_field == nullptr) {
      return Error{ValueLabel(method.name, n.value_index) +
                   ": cannot name it (not a planned tensor of the plan)"};
    }
    // The copy is built from the fields the schema knows: a table storing
    // others is refused rather than copied without them.
    const auto table_at = [&](const void* table) {
      return static_cast<uint64_t>(static_cast<const uint8_t*>(table) - file.data());
    };
    if (std::optional<int> unknown = FirstUnknownField(AsTable(table), kTensorFields)) {
      return Error{ValueLabel(method.name, n.value_index) + ": its " +
                       UnknownFieldText("Tensor", table_at(table), *unknown) +
                       "; --write-names would copy the table without it; refusing",
                   ErrorKind::kBadInput};
    }
    if (const fb::ExtraTensorInfo* extra = table->extra_tensor_info()) {
      if (std::optional<int> unknown = FirstUnknownField(AsTable(extra), kExtraTensorInfoFields)) {
        return Error{ValueLabel(method.name, n.value_index) + ": its " +
                         UnknownFieldText("ExtraTensorInfo", table_at(extra), *unknown) +
                         "; --write-names would copy the table without it; refusing",
                     ErrorKind::kBadInput};
      }
    }
    // Aligned to 8, the largest alignment a Tensor copy holds (a uint64).
    while ((start + out.bytes.size()) % 8 != 0) out.bytes.push_back(0);
    const flatbuffers::DetachedBuffer copy = CopyNamed(*table, n.name, move->after);
    const uint64_t copy_at = start + out.bytes.size();
    const uint64_t tensor_at =
        copy_at + flatbuffers::ReadScalar<flatbuffers::uoffset_t>(copy.data());
    out.bytes.insert(out.bytes.end(), copy.data(), copy.data() + copy.size());
    const uint64_t reference_at = static_cast<uint64_t>(val_field - file.data());
    std::vector<uint8_t> offset(4);
    wire::StoreU32(offset.data(), static_cast<uint32_t>(tensor_at - reference_at));
    out.overwrites.push_back({reference_at, std::move(offset)});
  }
  return out;
}

}  // namespace pteshare

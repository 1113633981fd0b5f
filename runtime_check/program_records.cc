#include "runtime_check/program_records.h"

#include "program_fields.h"

namespace pteshare::runtime_check::core::internal {

bool MethodRecord::ArenaSizeValid(uint32_t memory_id) const {
  return memory_id >= 1 && memory_id <= arena_count &&
         wire::Load<int64_t>(bytes + arena_sizes.data + 8 * uint64_t{memory_id}) >= 0;
}

uint64_t MethodRecord::ArenaSize(uint32_t memory_id) const {
  if (!ArenaSizeValid(memory_id)) return 0;
  return static_cast<uint64_t>(
      wire::Load<int64_t>(bytes + arena_sizes.data + 8 * uint64_t{memory_id}));
}

const TensorRecord* MethodRecord::Find(uint32_t value_index) const {
  uint32_t low = 0, high = tensor_count;
  while (low < high) {
    const uint32_t mid = low + (high - low) / 2;
    if (tensors[mid].value_index < value_index) {
      low = mid + 1;
    } else {
      high = mid;
    }
  }
  return low < tensor_count && tensors[low].value_index == value_index ? &tensors[low] : nullptr;
}

const MethodRecord& Program::MethodOf(const TensorRecord& tensor) const {
  // Tensors lie method after method; the last method starting at or before it.
  uint32_t m = 0;
  while (m + 1 < method_count && methods[m + 1].tensors <= &tensor) ++m;
  return methods[m];
}

void LayOut(const Counts& counts, ScratchLayout& layout, Program* program) {
  program->counts = counts;
  program->methods = layout.Take<MethodRecord>(counts.methods);
  program->tensors = layout.Take<TensorRecord>(counts.tensors);
  program->arena_devices = layout.Take<DeviceCode>(counts.arenas);
  program->method_names = layout.Take<char>(12 * size_t{counts.methods});
  program->pair_names = layout.Take<char>(size_t{kPairNameCapacity} * counts.max_unnamed_state);
  program->groups = layout.Take<GroupRecord>(counts.tensors);
  program->members = layout.Take<uint32_t>(counts.tensors);
  program->name_order = layout.Take<uint32_t>(counts.tensors);
  program->request_order = layout.Take<uint32_t>(counts.shared_names);
  program->by_offset = layout.Take<uint32_t>(counts.tensors);
  program->highest_end = layout.Take<uint64_t>(counts.tensors);
  program->hits = layout.Take<uint32_t>(counts.max_tensors);
  program->inside = layout.Take<uint32_t>(counts.max_tensors);
  const uint32_t flag_count =
      counts.max_tensors > counts.max_arenas ? counts.max_tensors : counts.max_arenas;
  program->flags = layout.Take<uint8_t>(flag_count);
  program->reference_begin = layout.Take<uint32_t>(size_t{counts.max_instructions} + 1);
  program->references = layout.Take<uint32_t>(counts.max_references);
  program->writer_begin = layout.Take<uint32_t>(size_t{counts.max_values} + 1);
  program->writers = layout.Take<uint32_t>(counts.max_references);
  program->value_bits = layout.Take<uint8_t>(2 * (size_t{counts.max_values} / 8 + 1));
}

void Findings::Add(const Finding& finding) {
  if (finding.severity == Severity::kWarning) {
    ++result_.warnings;
  } else {
    ++result_.errors;
  }
  sink_.OnFinding(finding);
}

Finding NewFinding(FindingKind kind) {
  Finding finding;
  finding.kind = kind;
  finding.severity = SeverityOf(kind);
  return finding;
}

Finding MethodFinding(FindingKind kind, const MethodRecord& method) {
  Finding finding = NewFinding(kind);
  finding.method_index = method.index;
  finding.method = method.name;
  return finding;
}

Finding TensorFinding(FindingKind kind, const MethodRecord& method, const TensorRecord& tensor) {
  Finding finding = MethodFinding(kind, method);
  finding.value_index = tensor.value_index;
  finding.name = tensor.name;
  finding.tensor_name = tensor.name;
  return finding;
}

void SetReference(Finding* finding, const MethodRecord& method, const TensorRecord& tensor) {
  finding->reference_method_index = method.index;
  finding->reference_method = method.name;
  finding->reference_value_index = tensor.value_index;
  finding->reference = tensor.placement();
}

Shape ReadShape(flat::Reader& reader, const TensorRecord& tensor) {
  namespace f = ::pteshare::fields;
  flat::Table table;
  // The position was read from a verified table: open it again as one.
  table.present = true;
  table.position = tensor.table;
  table.vtable = static_cast<uint32_t>(static_cast<int64_t>(tensor.table) -
                                       wire::Load<int32_t>(reader.data() + tensor.table));
  table.vtable_size = wire::LoadU16(reader.data() + table.vtable);
  Shape shape;
  shape.scalar_type = reader.Scalar<int8_t>(table, f::Tensor::kScalarType, 0);
  const flat::Vector sizes = reader.VectorField(table, f::Tensor::kSizes, 4);
  shape.sizes = reader.data() + sizes.data;
  shape.rank = sizes.length;
  const flat::Vector dim_order = reader.VectorField(table, f::Tensor::kDimOrder, 1);
  shape.dim_order = reader.data() + dim_order.data;
  shape.dim_order_size = dim_order.length;
  return shape;
}

bool SameBytes(const uint8_t* a, const uint8_t* b, size_t n) {
  return n == 0 || __builtin_memcmp(a, b, n) == 0;
}

int CompareText(const Text& a, const Text& b) {
  const uint32_t n = a.size < b.size ? a.size : b.size;
  const int c = n == 0 ? 0 : __builtin_memcmp(a.data, b.data, n);
  if (c != 0) return c;
  return a.size < b.size ? -1 : (a.size > b.size ? 1 : 0);
}

}  // namespace pteshare::runtime_check::core::internal

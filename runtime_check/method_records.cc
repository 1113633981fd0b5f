#include "runtime_check/method_records.h"

#include "program_fields.h"
#include "runtime_check/instruction_uses.h"
#include "tensor_nbytes.h"

namespace pteshare::runtime_check::core::internal {
namespace {

namespace f = ::pteshare::fields;
using flat::Reader;
using flat::Table;
using flat::Vector;

constexpr uint64_t kMaxU64 = ~uint64_t{0};

flat::Vector Plans(Reader& reader) {
  return reader.VectorField(reader.Root(), f::Program::kExecutionPlan, 4);
}

// The tensor table of a value that is planned (allocation_info, not
// DYNAMIC_UNBOUND); not present otherwise.
Table PlannedTensorTable(Reader& reader, const Table& value) {
  const auto tag = static_cast<f::ValueTag>(reader.Scalar<uint8_t>(value, f::EValue::kValType, 0));
  if (tag != f::ValueTag::kTensor) return {};
  const Table tensor = reader.TableField(value, f::EValue::kVal);
  if (!tensor.present || !reader.Has(tensor, f::Tensor::kAllocationInfo) ||
      reader.Scalar<int8_t>(tensor, f::Tensor::kShapeDynamism, 0) == f::kDynamicUnbound) {
    return {};
  }
  return tensor;
}

Text NameOf(Reader& reader, const Table& tensor) {
  const Table extra = reader.TableField(tensor, f::Tensor::kExtraTensorInfo);
  const flat::String name = reader.StringField(extra, f::ExtraTensorInfo::kFullyQualifiedName);
  return name.present ? Text(reader.Chars(name), name.size) : Text();
}

// The int32 sizes of a tensor, as tensor_nbytes.h reads them.
struct SizesView {
  const Reader* reader;
  Vector vector;
  uint32_t size() const { return vector.length; }
  int32_t operator[](uint32_t i) const { return reader->Element<int32_t>(vector, i); }
};

// Writes "#INDEX" (a method without a name) at `out`; its length.
uint32_t WriteIndexName(uint32_t index, char* out) {
  char digits[10];
  uint32_t n = 0;
  do {
    digits[n++] = static_cast<char>('0' + index % 10);
    index /= 10;
  } while (index != 0);
  out[0] = '#';
  for (uint32_t i = 0; i < n; ++i) out[1 + i] = digits[n - 1 - i];
  return n + 1;
}

// Reads one planned tensor; `valid` stays false when a number is refused.
void ReadTensor(Reader& reader, const Table& table, uint32_t value_index,
                const MethodRecord& method, TensorRecord* tensor, Findings& findings) {
  tensor->value_index = value_index;
  tensor->table = table.position;
  tensor->has_initial_state = reader.Scalar<uint32_t>(table, f::Tensor::kDataBufferIdx, 0) > 0;
  tensor->name = NameOf(reader, table);
  const Table allocation = reader.TableField(table, f::Tensor::kAllocationInfo);
  tensor->memory_id = reader.Scalar<uint32_t>(allocation, f::AllocationDetails::kMemoryId, 0);
  tensor->offset = f::AllocationOffset(
      reader.Scalar<uint32_t>(allocation, f::AllocationDetails::kMemoryOffsetLow, 0),
      reader.Scalar<uint32_t>(allocation, f::AllocationDetails::kMemoryOffsetHigh, 0));

  const int8_t scalar_type = reader.Scalar<int8_t>(table, f::Tensor::kScalarType, 0);
  const SizesView sizes{&reader, reader.VectorField(table, f::Tensor::kSizes, 4)};
  const fb::Nbytes computed = fb::NbytesOf(scalar_type, &sizes);
  if (computed.status != fb::NbytesStatus::kOk) {
    Finding finding = TensorFinding(FindingKind::kInvalidTensor, method, *tensor);
    finding.reason = static_cast<uint8_t>(computed.status);
    finding.detail[0] = computed.bad_dimension_index;
    finding.shape = ReadShape(reader, *tensor);
    if (computed.status == fb::NbytesStatus::kUnknownScalarType) {
      finding.actual = static_cast<uint64_t>(static_cast<int64_t>(scalar_type));
    }
    findings.Add(finding);
    return;
  }
  tensor->nbytes = computed.bytes;

  if (tensor->memory_id == 0 || tensor->memory_id > method.arena_count) {
    Finding finding = TensorFinding(FindingKind::kInvalidMemoryId, method, *tensor);
    finding.expected = method.arena_count;
    finding.actual = tensor->memory_id;
    findings.Add(finding);
    return;
  }
  const bool overflows = tensor->offset > kMaxU64 - tensor->nbytes;
  const bool size_valid = method.ArenaSizeValid(tensor->memory_id);
  // A range that wraps around cannot be compared with others: refused.
  tensor->valid = !overflows;
  if (overflows || (size_valid && tensor->end() > method.ArenaSize(tensor->memory_id))) {
    Finding finding = TensorFinding(FindingKind::kPastArenaEnd, method, *tensor);
    finding.placement = tensor->placement();
    finding.expected = method.ArenaSize(tensor->memory_id);
    finding.actual = overflows ? kMaxU64 : tensor->end();
    finding.reason = overflows ? 1 : 0;
    finding.detail[0] = size_valid ? 0 : 1;
    findings.Add(finding);
  }
}

void ReadArenas(Reader& reader, const Table& plan, MethodRecord* method, Findings& findings) {
  method->arena_sizes = reader.VectorField(plan, f::ExecutionPlan::kNonConstBufferSizes, 8);
  // Entry 0 of non_const_buffer_sizes is reserved; entry i is memory_id i.
  method->arena_count = method->arena_sizes.length > 0 ? method->arena_sizes.length - 1 : 0;
  for (uint32_t id = 1; id <= method->arena_count; ++id) {
    method->arena_devices[id - 1] = 0;
    const int64_t size = reader.Element<int64_t>(method->arena_sizes, id);
    if (size >= 0) continue;
    Finding finding = MethodFinding(FindingKind::kInvalidArenaSize, *method);
    finding.placement.memory_id = id;
    finding.actual = static_cast<uint64_t>(size);
    findings.Add(finding);
  }
  const Vector devices = reader.VectorField(plan, f::ExecutionPlan::kNonConstBufferDevice, 4);
  for (uint32_t i = 0; i < devices.length; ++i) {
    const Table device = reader.TableElement(devices, i);
    const int32_t id = reader.Scalar<int32_t>(device, f::NonConstBufferDevice::kBufferIdx, 0);
    // An entry naming no arena places nothing: the loader ignores it too.
    if (id < 1 || static_cast<uint32_t>(id) > method->arena_count) continue;
    const auto type = static_cast<uint8_t>(
        reader.Scalar<int8_t>(device, f::NonConstBufferDevice::kDeviceType, 0));
    const auto index = static_cast<uint8_t>(
        reader.Scalar<int8_t>(device, f::NonConstBufferDevice::kDeviceIndex, 0));
    method->arena_devices[id - 1] = static_cast<DeviceCode>(type << 8 | index);
  }
}

}  // namespace

Counts CountProgram(Reader& reader, const Options& options) {
  Counts counts;
  const Vector plans = Plans(reader);
  counts.methods = plans.length;
  counts.shared_names = static_cast<uint32_t>(options.shared_name_count);
  for (uint32_t m = 0; m < plans.length && reader.ok(); ++m) {
    const Table plan = reader.TableElement(plans, m);
    const Vector values = reader.VectorField(plan, f::ExecutionPlan::kValues, 4);
    uint32_t planned = 0, unnamed_state = 0, references = 0, instructions = 0;
    for (uint32_t v = 0; v < values.length && reader.ok(); ++v) {
      const Table tensor = PlannedTensorTable(reader, reader.TableElement(values, v));
      if (!tensor.present) continue;
      ++planned;
      if (reader.Scalar<uint32_t>(tensor, f::Tensor::kDataBufferIdx, 0) > 0 &&
          NameOf(reader, tensor).empty()) {
        ++unnamed_state;
      }
    }
    ForEachInstruction(reader, plan, [&](const InstructionView& instruction) {
      ++instructions;
      VisitReferences(reader, values, instruction, [&](uint32_t, Role) { ++references; });
    });
    const Vector sizes = reader.VectorField(plan, f::ExecutionPlan::kNonConstBufferSizes, 8);
    const uint32_t arenas = sizes.length > 0 ? sizes.length - 1 : 0;
    counts.tensors += planned;
    counts.arenas += arenas;
    auto raise = [](uint32_t* most, uint32_t value) {
      if (value > *most) *most = value;
    };
    raise(&counts.max_tensors, planned);
    raise(&counts.max_values, values.length);
    raise(&counts.max_arenas, arenas);
    raise(&counts.max_instructions, instructions);
    raise(&counts.max_references, references);
    raise(&counts.max_unnamed_state, unnamed_state);
  }
  return counts;
}

void ReadMethods(Reader& reader, Program* program, Findings& findings) {
  const Vector plans = Plans(reader);
  TensorRecord* next_tensor = program->tensors;
  DeviceCode* next_device = program->arena_devices;
  for (uint32_t m = 0; m < program->method_count && reader.ok(); ++m) {
    MethodRecord& method = program->methods[m];
    method = MethodRecord{};
    method.index = m;
    method.bytes = program->bytes;
    const Table plan = reader.TableElement(plans, m);
    const flat::String name = reader.StringField(plan, f::ExecutionPlan::kName);
    if (name.present) {
      method.name = Text(reader.Chars(name), name.size);
    } else {
      char* at = program->method_names + 12 * m;  // unnamed: by position
      method.name = Text(at, WriteIndexName(m, at));
    }
    method.arena_devices = next_device;
    ReadArenas(reader, plan, &method, findings);
    next_device += method.arena_count;

    method.values = reader.VectorField(plan, f::ExecutionPlan::kValues, 4);
    method.inputs = reader.VectorField(plan, f::ExecutionPlan::kInputs, 4);
    method.plan = plan;
    method.tensors = next_tensor;
    for (uint32_t v = 0; v < method.values.length && reader.ok(); ++v) {
      const Table table = PlannedTensorTable(reader, reader.TableElement(method.values, v));
      if (!table.present) continue;
      TensorRecord* tensor = &method.tensors[method.tensor_count++];
      *tensor = TensorRecord{};
      ReadTensor(reader, table, v, method, tensor, findings);
    }
    next_tensor += method.tensor_count;
    for (uint32_t i = 0; i < method.inputs.length; ++i) {
      const int32_t input = reader.Element<int32_t>(method.inputs, i);
      if (input < 0) continue;
      const TensorRecord* found = method.Find(static_cast<uint32_t>(input));
      if (found != nullptr) const_cast<TensorRecord*>(found)->is_input = true;
    }
  }
}

void ApplyValueNamings(const Options& options, Program* program, Findings& findings) {
  for (size_t a = 0; a < options.value_name_count; ++a) {
    const ValueNaming& assignment = options.value_names[a];
    Finding finding = NewFinding(FindingKind::kInvalidValueNaming);
    finding.method = assignment.method;
    finding.value_index = assignment.value_index;
    finding.name = assignment.name;
    finding.actual = assignment.value_index;

    const MethodRecord* method = nullptr;
    for (uint32_t m = 0; m < program->method_count; ++m) {
      if (program->methods[m].name == assignment.method) method = &program->methods[m];
    }
    if (method == nullptr) {
      finding.reason = 0;  // no such method
      findings.Add(finding);
      continue;
    }
    finding.method_index = method->index;
    finding.expected = method->values.length;
    const TensorRecord* target = method->Find(assignment.value_index);
    if (target == nullptr) {
      finding.reason = assignment.value_index >= method->values.length ? 1 : 2;
      findings.Add(finding);
      continue;
    }
    const_cast<TensorRecord*>(target)->name = assignment.name;
  }
}

void PairUnnamedState(Reader& reader, Program* program, Findings& findings) {
  // The k-th unnamed mutable buffer of a method: its k-th tensor that is
  // valid, non-empty, has an initial state and no name.
  auto is_unnamed_state = [](const TensorRecord& t) {
    return t.valid && t.nbytes > 0 && t.has_initial_state && t.name.empty();
  };
  auto count_in = [&](const MethodRecord& method) {
    uint32_t n = 0;
    for (uint32_t t = 0; t < method.tensor_count; ++t) n += is_unnamed_state(method.tensors[t]);
    return n;
  };
  const MethodRecord* first = nullptr;
  uint32_t first_count = 0;
  uint32_t methods_with_state = 0;
  for (uint32_t m = 0; m < program->method_count; ++m) {
    const MethodRecord& other = program->methods[m];
    const uint32_t count = count_in(other);
    if (count == 0) continue;
    ++methods_with_state;
    if (first == nullptr) {
      first = &other;
      first_count = count;
      continue;
    }
    // Walk the k-th of both in step.
    uint32_t a = 0, b = 0, k = 0;
    bool paired = true;
    Finding finding = MethodFinding(FindingKind::kUnpairedState, other);
    finding.reference_method_index = first->index;
    finding.reference_method = first->name;
    for (; k < first_count && k < count; ++k, ++a, ++b) {
      while (!is_unnamed_state(first->tensors[a])) ++a;
      while (!is_unnamed_state(other.tensors[b])) ++b;
      const TensorRecord& x = first->tensors[a];
      const TensorRecord& y = other.tensors[b];
      const Shape sx = ReadShape(reader, x);
      const Shape sy = ReadShape(reader, y);
      if (sx.scalar_type != sy.scalar_type || sx.rank != sy.rank ||
          !SameBytes(sx.sizes, sy.sizes, 4 * sx.rank) || x.memory_id != y.memory_id) {
        finding.reason = 0;
        finding.detail[0] = k;
        finding.detail[1] = x.value_index;
        finding.detail[2] = y.value_index;
        finding.detail[3] = uint64_t{x.memory_id} << 32 | y.memory_id;
        finding.reference_shape = sx;
        finding.shape = sy;
        paired = false;
        break;
      }
    }
    if (paired && first_count != count) {
      finding.reason = 1;
      finding.detail[0] = first_count;
      finding.detail[1] = count;
      paired = false;
    }
    if (!paired) {
      findings.Add(finding);
      return;
    }
  }
  if (methods_with_state < 2) return;  // nothing to pair

  // "paired_state." and K with at least 3 digits, as wide as count - 1.
  static constexpr char kPrefix[] = "paired_state.";
  constexpr uint32_t kPrefixSize = sizeof kPrefix - 1;
  uint32_t width = 1;
  for (uint32_t widest = first_count - 1; widest >= 10; widest /= 10) ++width;
  if (width < 3) width = 3;
  char* names = program->pair_names;
  for (uint32_t k = 0; k < first_count; ++k) {
    char* at = names + k * kPairNameCapacity;
    __builtin_memcpy(at, kPrefix, kPrefixSize);
    uint32_t value = k;
    for (uint32_t d = width; d-- > 0;) {
      at[kPrefixSize + d] = static_cast<char>('0' + value % 10);
      value /= 10;
    }
  }
  for (uint32_t m = first->index; m < program->method_count; ++m) {
    MethodRecord& method = program->methods[m];
    uint32_t k = 0;
    for (uint32_t t = 0; t < method.tensor_count; ++t) {
      TensorRecord& tensor = method.tensors[t];
      if (!is_unnamed_state(tensor)) continue;
      tensor.name = Text(names + k * kPairNameCapacity, kPrefixSize + width);
      tensor.paired = true;
      ++k;
    }
  }
}

}  // namespace pteshare::runtime_check::core::internal

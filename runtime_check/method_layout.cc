#include "runtime_check/method_layout.h"

#include "program_fields.h"
#include "tensor_nbytes.h"

#include <algorithm>
#include <limits>

#include "runtime_check/findings.h"

namespace pteshare::runtime_check::internal {
namespace {

constexpr uint64_t kMaxU64 = std::numeric_limits<uint64_t>::max();

std::string MethodName(const MethodTables& plan, size_t index) {
  if (plan.has_name) return plan.name;
  return "#" + std::to_string(index);  // unnamed: by position
}

std::string SizesText(const std::vector<int32_t>& sizes) {
  std::string text = "[";
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (i > 0) text += ", ";
    text += std::to_string(sizes[i]);
  }
  return text + "]";
}

// product(sizes) x element size, as the loader computes it; false (with a
// finding) for a number the loader would refuse.
// `finding` names the tensor; the message starts with `label`.
bool TensorNbytes(const TensorTable& tensor, const std::string& label, Finding finding,
                  uint64_t* nbytes, std::vector<Finding>* findings) {
  const int8_t scalar_type = tensor.scalar_type;
  const fb::Nbytes computed = fb::NbytesOf(scalar_type, &tensor.sizes);
  switch (computed.status) {
    case fb::NbytesStatus::kOk:
      *nbytes = computed.bytes;
      return true;
    case fb::NbytesStatus::kUnknownScalarType:
      finding.actual = static_cast<uint64_t>(static_cast<int64_t>(scalar_type));
      finding.message =
          label + ": scalar type " + std::to_string(scalar_type) + " is not one the runtime knows";
      break;
    case fb::NbytesStatus::kNegativeDimension:
      finding.message = label + ": dimension " + std::to_string(computed.bad_dimension_index) +
                        " of sizes " + SizesText(tensor.sizes) + " is negative";
      break;
    case fb::NbytesStatus::kOverflow:
      finding.message = label + ": sizes " + SizesText(tensor.sizes) + " x " +
                        std::to_string(fb::ElementSize(scalar_type)) +
                        " bytes per element overflows 64 bits";
      break;
  }
  findings->push_back(std::move(finding));
  return false;
}

// Reads one planned tensor; `valid` stays false when a number is refused.
PlannedTensor ReadPlannedTensor(const MethodLayout& method, uint32_t value_index,
                                const TensorTable& tensor, std::vector<Finding>* findings) {
  PlannedTensor planned;
  planned.value_index = value_index;
  planned.has_initial_state = tensor.data_buffer_idx > 0;
  planned.scalar_type = tensor.scalar_type;
  planned.sizes = tensor.sizes;
  planned.dim_order = tensor.dim_order;
  planned.name = tensor.name;
  const std::string label = TensorLabel(method.name, value_index, planned.name);

  Placement& p = planned.placement;
  p.memory_id = tensor.memory_id;
  p.offset = tensor.memory_offset;
  Finding invalid = NewFinding(FindingKind::kInvalidTensor);
  invalid.method = method.name;
  invalid.value_index = value_index;
  invalid.name = planned.name;
  if (!TensorNbytes(tensor, label, std::move(invalid), &p.nbytes, findings)) return planned;

  const size_t arena_count = method.arena_sizes.size();
  if (p.memory_id == 0 || p.memory_id > arena_count) {
    Finding finding = NewFinding(FindingKind::kInvalidMemoryId);
    finding.method = method.name;
    finding.value_index = value_index;
    finding.name = planned.name;
    finding.expected = arena_count;
    finding.actual = p.memory_id;
    finding.message =
        label + ": memory_id " + std::to_string(p.memory_id) + " is not an arena (the method has " +
        std::to_string(arena_count) +
        (arena_count == 0 ? " arenas)"
                          : " arenas, memory_id 1.." + std::to_string(arena_count) + ")");
    findings->push_back(std::move(finding));
    return planned;
  }
  const std::optional<uint64_t>& arena_size = method.arena_sizes[p.memory_id - 1];
  const bool overflows = p.offset > kMaxU64 - p.nbytes;
  // A range that wraps around cannot be compared with others: refused.
  planned.valid = !overflows;
  if (overflows || (arena_size.has_value() && p.offset + p.nbytes > *arena_size)) {
    Finding finding = NewFinding(FindingKind::kPastArenaEnd);
    finding.method = method.name;
    finding.value_index = value_index;
    finding.name = planned.name;
    finding.placement = p;
    finding.expected = arena_size.value_or(0);
    finding.actual = overflows ? kMaxU64 : p.offset + p.nbytes;
    finding.message = label + ": " + Extent(p.offset, p.nbytes) +
                      (overflows ? " overflows 64 bits, past" : " >") + " arena " +
                      std::to_string(p.memory_id) + " size " +
                      (arena_size.has_value() ? std::to_string(*arena_size) : "(invalid)");
    findings->push_back(std::move(finding));
  }
  return planned;
}

MethodLayout ReadMethodLayout(const MethodTables& plan, size_t index,
                              std::vector<Finding>* findings) {
  MethodLayout method;
  method.name = MethodName(plan, index);
  method.tables = &plan;

  // Entry 0 of non_const_buffer_sizes is reserved; entry i is memory_id i.
  {
    const std::vector<int64_t>& sizes = plan.non_const_buffer_sizes;
    for (uint32_t id = 1; id < sizes.size(); ++id) {
      const int64_t size = sizes[id];
      if (size >= 0) {
        method.arena_sizes.emplace_back(static_cast<uint64_t>(size));
        continue;
      }
      method.arena_sizes.emplace_back(std::nullopt);
      Finding finding = NewFinding(FindingKind::kInvalidArenaSize);
      finding.method = method.name;
      finding.placement.memory_id = id;
      finding.actual = static_cast<uint64_t>(size);
      finding.message = "method " + method.name + ": arena " + std::to_string(id) + " size " +
                        std::to_string(size) + " is negative";
      findings->push_back(std::move(finding));
    }
  }
  method.arena_devices.assign(method.arena_sizes.size(), {0, 0});
  for (const BufferDeviceTable& device : plan.non_const_buffer_device) {
    // An entry naming no arena places nothing: the loader ignores it too.
    if (device.buffer_idx >= 1 &&
        static_cast<size_t>(device.buffer_idx) <= method.arena_devices.size()) {
      method.arena_devices[static_cast<size_t>(device.buffer_idx) - 1] = {device.device_type,
                                                                          device.device_index};
    }
  }

  method.value_count = static_cast<uint32_t>(plan.values.size());
  for (uint32_t i = 0; i < method.value_count; ++i) {
    const ValueTable& value = plan.values[i];
    // Planned iff it has allocation_info; the runtime allocates
    // DYNAMIC_UNBOUND tensors itself.
    if (value.kind != ValueKind::kTensor || !value.tensor.has_allocation ||
        value.tensor.shape_dynamism == fields::kDynamicUnbound) {
      continue;
    }
    method.tensors.push_back(ReadPlannedTensor(method, i, value.tensor, findings));
  }
  {
    for (int32_t input : plan.inputs) {
      if (input < 0) continue;
      auto it = std::lower_bound(
          method.tensors.begin(), method.tensors.end(), static_cast<uint32_t>(input),
          [](const PlannedTensor& t, uint32_t index) { return t.value_index < index; });
      if (it != method.tensors.end() && it->value_index == static_cast<uint32_t>(input)) {
        it->is_input = true;
      }
    }
  }
  return method;
}

}  // namespace

uint64_t MethodLayout::ArenaSize(uint32_t memory_id) const {
  if (memory_id == 0 || memory_id > arena_sizes.size()) return 0;
  return arena_sizes[memory_id - 1].value_or(0);
}

const PlannedTensor* MethodLayout::Find(uint32_t value_index) const {
  auto it = std::lower_bound(
      tensors.begin(), tensors.end(), value_index,
      [](const PlannedTensor& t, uint32_t index) { return t.value_index < index; });
  return it != tensors.end() && it->value_index == value_index ? &*it : nullptr;
}

std::vector<MethodLayout> ReadMethodLayouts(const ProgramTables& program,
                                            std::vector<Finding>* findings) {
  std::vector<MethodLayout> methods;
  for (size_t i = 0; i < program.methods.size(); ++i) {
    methods.push_back(ReadMethodLayout(program.methods[i], i, findings));
  }
  return methods;
}

void ApplyValueNamings(const std::vector<ValueNaming>& assignments,
                       std::vector<MethodLayout>* methods, std::vector<Finding>* findings) {
  for (const ValueNaming& assignment : assignments) {
    const std::string text =
        assignment.method + ":" + std::to_string(assignment.value_index) + "=" + assignment.name;
    Finding finding = NewFinding(FindingKind::kInvalidValueNaming);
    finding.method = assignment.method;
    finding.value_index = assignment.value_index;
    finding.name = assignment.name;
    finding.actual = assignment.value_index;

    MethodLayout* method = nullptr;
    for (MethodLayout& m : *methods) {
      if (m.name == assignment.method) method = &m;
    }
    if (method == nullptr) {
      finding.message =
          "name assignment " + text + ": the program has no method " + assignment.method;
      findings->push_back(std::move(finding));
      continue;
    }
    finding.expected = method->value_count;
    PlannedTensor* target = nullptr;
    for (PlannedTensor& t : method->tensors) {
      if (t.value_index == assignment.value_index) target = &t;
    }
    if (target == nullptr) {
      finding.message =
          "name assignment " + text + ": value " + std::to_string(assignment.value_index) +
          (assignment.value_index >= method->value_count
               ? " is past the method's " + std::to_string(method->value_count) + " values"
               : " is not a planned tensor");
      findings->push_back(std::move(finding));
      continue;
    }
    target->name = assignment.name;
  }
}

}  // namespace pteshare::runtime_check::internal

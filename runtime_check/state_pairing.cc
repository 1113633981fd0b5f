#include "runtime_check/state_pairing.h"

#include <string>

#include "runtime_check/findings.h"

namespace pteshare::runtime_check::internal {
namespace {

std::string ShapeText(const PlannedTensor& t) {
  std::string text = "scalar type " + std::to_string(t.scalar_type) + " [";
  for (size_t i = 0; i < t.sizes.size(); ++i) {
    text += (i > 0 ? "," : "") + std::to_string(t.sizes[i]);
  }
  return text + "]";
}

std::string Describe(const MethodLayout& method, const PlannedTensor& t) {
  return method.name + ":" + std::to_string(t.value_index) + " (" + ShapeText(t) + ", arena " +
         std::to_string(t.placement.memory_id) + ")";
}

std::string PairName(size_t k, size_t count) {
  std::string digits = std::to_string(k);
  std::string widest = std::to_string(count > 0 ? count - 1 : 0);
  size_t width = widest.size() < 3 ? 3 : widest.size();
  while (digits.size() < width) digits.insert(digits.begin(), '0');
  return "paired_state." + digits;
}

}  // namespace

void PairUnnamedState(std::vector<MethodLayout>* methods, std::vector<Finding>* findings) {
  std::vector<size_t> with_state;          // method indices
  std::vector<std::vector<size_t>> state;  // per such method: tensor indices
  for (size_t m = 0; m < methods->size(); ++m) {
    std::vector<size_t> s;
    const std::vector<PlannedTensor>& tensors = (*methods)[m].tensors;
    for (size_t t = 0; t < tensors.size(); ++t) {
      const PlannedTensor& tensor = tensors[t];
      if (tensor.valid && tensor.placement.nbytes > 0 && tensor.has_initial_state &&
          tensor.name.empty()) {
        s.push_back(t);
      }
    }
    if (s.empty()) continue;
    with_state.push_back(m);
    state.push_back(std::move(s));
  }
  if (with_state.size() < 2) return;

  const MethodLayout& first = (*methods)[with_state[0]];
  for (size_t i = 1; i < with_state.size(); ++i) {
    const MethodLayout& other = (*methods)[with_state[i]];
    std::string mismatch;
    const size_t n = state[0].size() < state[i].size() ? state[0].size() : state[i].size();
    for (size_t k = 0; k < n && mismatch.empty(); ++k) {
      const PlannedTensor& a = first.tensors[state[0][k]];
      const PlannedTensor& b = other.tensors[state[i][k]];
      if (a.scalar_type != b.scalar_type || a.sizes != b.sizes ||
          a.placement.memory_id != b.placement.memory_id) {
        mismatch = "unnamed mutable buffer " + std::to_string(k) + " is " + Describe(first, a) +
                   " but " + Describe(other, b);
      }
    }
    if (mismatch.empty() && state[0].size() != state[i].size()) {
      mismatch = "they have " + std::to_string(state[0].size()) + " and " +
                 std::to_string(state[i].size()) + " unnamed mutable buffers";
    }
    if (mismatch.empty()) continue;
    Finding finding = NewFinding(FindingKind::kUnpairedState);
    finding.method = other.name;
    finding.reference_method = first.name;
    finding.message = "the unnamed state of methods " + first.name + " and " + other.name +
                      " does not pair (" + mismatch +
                      "), so its sharing is not checked; name the buffers to check with "
                      "METHOD:VALUE=NAME assignments";
    findings->push_back(std::move(finding));
    return;
  }
  const size_t count = state[0].size();
  for (size_t i = 0; i < with_state.size(); ++i) {
    MethodLayout& method = (*methods)[with_state[i]];
    for (size_t k = 0; k < count; ++k) {
      PlannedTensor& t = method.tensors[state[i][k]];
      t.name = PairName(k, count);
      t.paired = true;
    }
  }
}

}  // namespace pteshare::runtime_check::internal

#include "runtime_check/binding_check.h"

#include <algorithm>
#include <cstdint>
#include <limits>

#include "runtime_check/findings.h"

namespace pteshare::runtime_check::internal {
namespace {

// bound[m]: the binding of methods[m], or nullptr when it is not loaded.
std::vector<const MethodBinding*> MatchBindings(const std::vector<MethodLayout>& methods,
                                                const std::vector<MethodBinding>& bindings,
                                                std::vector<Finding>* findings) {
  std::vector<const MethodBinding*> bound(methods.size(), nullptr);
  for (const MethodBinding& binding : bindings) {
    auto found = std::find_if(methods.begin(), methods.end(),
                              [&](const MethodLayout& m) { return m.name == binding.method; });
    if (found == methods.end()) {
      Finding finding = NewFinding(FindingKind::kUnknownMethod);
      finding.method = binding.method;
      finding.message = "binding for method " + binding.method + ": the program has no such method";
      if (findings != nullptr) findings->push_back(std::move(finding));
      continue;
    }
    const MethodBinding*& slot = bound[static_cast<size_t>(found - methods.begin())];
    if (slot == nullptr) slot = &binding;  // the first binding of a method wins
  }
  return bound;
}

// The absolute address of `p` in `binding`; false when its arena has no
// buffer (reported by CheckBindingsCoverArenas) or its end wraps around.
// Only for valid placements (offset + nbytes does not overflow).
bool AddressOf(const MethodBinding& binding, const Placement& p, uint64_t* address) {
  if (p.memory_id == 0 || p.memory_id > binding.arenas.size()) return false;
  const ArenaBuffer& buffer = binding.arenas[p.memory_id - 1];
  if (buffer.data == nullptr) return false;
  const auto base = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(buffer.data));
  if (p.offset + p.nbytes > std::numeric_limits<uint64_t>::max() - base) return false;
  *address = base + p.offset;
  return true;
}

const void* BufferOf(const MethodBinding& binding, uint32_t memory_id) {
  if (memory_id == 0 || memory_id > binding.arenas.size()) return nullptr;
  return binding.arenas[memory_id - 1].data;
}

}  // namespace

void CheckBindingsCoverArenas(const std::vector<MethodLayout>& methods,
                              const std::vector<MethodBinding>& bindings,
                              std::vector<Finding>* findings) {
  const std::vector<const MethodBinding*> bound = MatchBindings(methods, bindings, findings);
  for (size_t m = 0; m < methods.size(); ++m) {
    if (bound[m] == nullptr) continue;
    const MethodLayout& method = methods[m];
    const std::vector<ArenaBuffer>& given = bound[m]->arenas;
    // Arenas the loader will ask for: every arena with bytes, and every
    // memory_id a tensor names (the loader looks it up even for 0 bytes).
    std::vector<bool> needed(method.arena_sizes.size(), false);
    for (size_t i = 0; i < needed.size(); ++i) needed[i] = method.ArenaSize(i + 1) > 0;
    for (const PlannedTensor& t : method.tensors) {
      if (t.valid) needed[t.placement.memory_id - 1] = true;
    }
    for (size_t i = 0; i < needed.size(); ++i) {
      if (!needed[i]) continue;
      const auto memory_id = static_cast<uint32_t>(i + 1);
      const uint64_t arena_size = method.ArenaSize(memory_id);
      Finding finding = NewFinding(FindingKind::kArenaNotBound);
      finding.method = method.name;
      finding.placement.memory_id = memory_id;
      if (i >= given.size() || given[i].data == nullptr) {
        finding.expected = needed.size();
        finding.actual = given.size();
        finding.message = "method " + method.name + ": arena " + std::to_string(memory_id) + " (" +
                          std::to_string(arena_size) + " bytes) has no buffer (" +
                          std::to_string(given.size()) + " buffers given, " +
                          std::to_string(needed.size()) + " arenas in the method)";
        findings->push_back(std::move(finding));
      } else if (given[i].size < arena_size) {
        finding = NewFinding(FindingKind::kBindingTooSmall);
        finding.method = method.name;
        finding.placement.memory_id = memory_id;
        finding.expected = arena_size;
        finding.actual = given[i].size;
        finding.message = "method " + method.name + ": arena " + std::to_string(memory_id) +
                          " is bound to a buffer of " + std::to_string(given[i].size) +
                          " bytes, the method needs " + std::to_string(arena_size);
        findings->push_back(std::move(finding));
      }
    }
  }
}

namespace {

// A finding about `tensor` of method `method`, judged against shared
// buffer `group_name` where `reference_method` places it (its reference
// tensor).
Finding AgainstReference(FindingKind kind, const std::string& method, const PlannedTensor& tensor,
                         const std::string& group_name, const MethodLayout& reference_method,
                         const PlannedTensor& reference_tensor) {
  Finding finding = NewFinding(kind);
  finding.method = method;
  finding.value_index = tensor.value_index;
  finding.name = group_name;
  finding.placement = tensor.placement;
  finding.reference_method = reference_method.name;
  finding.reference_value_index = reference_tensor.value_index;
  finding.reference = reference_tensor.placement;
  return finding;
}

}  // namespace

void CheckSharedAddresses(const std::vector<MethodLayout>& methods,
                          const std::vector<SharedGroup>& groups,
                          const std::vector<MethodBinding>& bindings,
                          std::vector<Finding>* findings) {
  // Unknown methods were reported by CheckBindingsCoverArenas.
  const std::vector<const MethodBinding*> bound = MatchBindings(methods, bindings, nullptr);
  for (const SharedGroup& group : groups) {
    // The reference: the buffer's first occurrence in a bound method.
    const Occurrence* reference = nullptr;
    uint64_t reference_address = 0;
    for (const Occurrence& o : group.occurrences) {
      if (bound[o.method] != nullptr &&
          AddressOf(*bound[o.method], methods[o.method].tensors[o.tensor].placement,
                    &reference_address)) {
        reference = &o;
        break;
      }
    }
    if (reference == nullptr) continue;  // no bound method has it
    const MethodLayout& reference_method = methods[reference->method];
    const PlannedTensor& reference_tensor = reference_method.tensors[reference->tensor];
    const Placement& want = reference_tensor.placement;
    const void* reference_buffer = BufferOf(*bound[reference->method], want.memory_id);

    // Same address in every bound method that has the buffer.
    for (const Occurrence& o : group.occurrences) {
      const PlannedTensor& tensor = methods[o.method].tensors[o.tensor];
      uint64_t address = 0;
      if (bound[o.method] == nullptr || !AddressOf(*bound[o.method], tensor.placement, &address) ||
          address == reference_address) {
        continue;
      }
      Finding finding = AgainstReference(FindingKind::kAddressMismatch, methods[o.method].name,
                                         tensor, group.name, reference_method, reference_tensor);
      finding.expected = reference_address;
      finding.actual = address;
      finding.message =
          TensorLabel(methods[o.method].name, tensor.value_index, group.name) + ": at address " +
          Hex(address) + " (arena " + std::to_string(tensor.placement.memory_id) + " + " +
          std::to_string(tensor.placement.offset) + "), but at " + Hex(reference_address) +
          " (arena " + std::to_string(want.memory_id) + " + " + std::to_string(want.offset) +
          ") in method " + reference_method.name + " (value " +
          std::to_string(reference_tensor.value_index) + ")";
      findings->push_back(std::move(finding));
    }

    // No tensor of a bound method may overlap the buffer's bytes in memory.
    // Where the tensor's arena buffer is the reference buffer, addresses
    // and offsets agree and CheckNoOverlap has judged it already.
    if (want.nbytes == 0) continue;
    const uint64_t want_end = reference_address + want.nbytes;
    for (size_t m = 0; m < methods.size(); ++m) {
      if (bound[m] == nullptr) continue;
      for (const PlannedTensor& tensor : methods[m].tensors) {
        uint64_t address = 0;
        if (!tensor.valid || tensor.placement.nbytes == 0 || tensor.name == group.name ||
            !AddressOf(*bound[m], tensor.placement, &address)) {
          continue;
        }
        if (tensor.placement.memory_id == want.memory_id &&
            BufferOf(*bound[m], tensor.placement.memory_id) == reference_buffer) {
          continue;
        }
        const uint64_t end = address + tensor.placement.nbytes;
        const bool overlaps = address < want_end && reference_address < end;
        // Bytes of another arena's buffer can alias the shared buffer only
        // by accident: lying inside it is no evidence (alias_evidence.h).
        if (!overlaps) continue;
        Finding finding = AgainstReference(FindingKind::kOverlap, methods[m].name, tensor,
                                           group.name, reference_method, reference_tensor);
        finding.message = TensorLabel(methods[m].name, tensor.value_index, tensor.name) +
                          ": bytes [" + Hex(address) + ", " + Hex(end) +
                          ") overlap shared buffer " + group.name + " at [" +
                          Hex(reference_address) + ", " + Hex(want_end) + ") as bound for method " +
                          reference_method.name;
        findings->push_back(std::move(finding));
      }
    }
  }
}

}  // namespace pteshare::runtime_check::internal

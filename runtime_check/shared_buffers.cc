#include "runtime_check/shared_buffers.h"

#include <algorithm>
#include <map>
#include <set>

#include "loader_facts.h"

#include "runtime_check/alias_evidence.h"
#include "runtime_check/findings.h"

namespace pteshare::runtime_check::internal {
namespace {

const PlannedTensor& TensorOf(const std::vector<MethodLayout>& methods, const Occurrence& o) {
  return methods[o.method].tensors[o.tensor];
}

// Distinct method indices of a group, in program order.
std::vector<size_t> MethodsOf(const SharedGroup& group) {
  std::vector<size_t> result;
  for (const Occurrence& o : group.occurrences) {
    if (result.empty() || result.back() != o.method) result.push_back(o.method);
  }
  return result;
}

std::string MethodList(const std::vector<MethodLayout>& methods, const std::vector<size_t>& ids) {
  std::string text;
  for (size_t id : ids) text += (text.empty() ? "" : ", ") + methods[id].name;
  return text;
}

// Fills the fields every finding about one occurrence has.
Finding OccurrenceFinding(FindingKind kind, const std::vector<MethodLayout>& methods,
                          const SharedGroup& group, const Occurrence& occurrence) {
  const PlannedTensor& tensor = TensorOf(methods, occurrence);
  const Occurrence& first = group.occurrences.front();
  const PlannedTensor& reference = TensorOf(methods, first);
  Finding finding = NewFinding(kind);
  finding.method = methods[occurrence.method].name;
  finding.value_index = tensor.value_index;
  finding.name = group.name;
  finding.placement = tensor.placement;
  finding.reference_method = methods[first.method].name;
  finding.reference_value_index = reference.value_index;
  finding.reference = reference.placement;
  return finding;
}

std::string ShapeOf(const PlannedTensor& t) {
  std::string text = "[";
  for (size_t i = 0; i < t.sizes.size(); ++i)
    text += (i > 0 ? "," : "") + std::to_string(t.sizes[i]);
  return text + "]";
}

// Scalar type, sizes and dim order: what makes one buffer's bytes mean the
// same numbers to two methods.
bool SameShape(const PlannedTensor& a, const PlannedTensor& b) {
  return a.scalar_type == b.scalar_type && a.sizes == b.sizes && a.dim_order == b.dim_order;
}

// "scalar type 6 [16] dim order 0": as the file stores them (this library
// has no table of type names).
std::string ShapeText(const PlannedTensor& t) {
  std::string text = "scalar type " + std::to_string(t.scalar_type) + " " + ShapeOf(t);
  if (!t.dim_order.empty()) {
    text += " dim order ";
    for (size_t i = 0; i < t.dim_order.size(); ++i)
      text += (i > 0 ? "," : "") + std::to_string(t.dim_order[i]);
  }
  return text;
}

bool LiesInside(const Placement& inner, const Placement& outer) {
  return inner.memory_id == outer.memory_id && inner.offset >= outer.offset &&
         inner.offset + inner.nbytes <= outer.offset + outer.nbytes;
}

// The valid non-empty tensors of one method by (arena, offset), with the
// running highest end per arena: the tensors that overlap a slot are found
// by a binary search, not by a pass over every tensor per shared buffer
// (quadratic for a program with thousands of caches).
class TensorsByOffset {
 public:
  explicit TensorsByOffset(const MethodLayout& method) : tensors_(method.tensors) {
    for (size_t t = 0; t < tensors_.size(); ++t) {
      if (tensors_[t].valid && tensors_[t].placement.nbytes > 0) order_.push_back(t);
    }
    std::sort(order_.begin(), order_.end(), [&](size_t a, size_t b) { return Key(a) < Key(b); });
    for (size_t k = 0; k < order_.size(); ++k) {
      const bool same_arena = k > 0 && Key(order_[k]).first == Key(order_[k - 1]).first;
      highest_end_.push_back(
          std::max(same_arena ? highest_end_.back() : 0, tensors_[order_[k]].end()));
    }
  }

  /// The tensors sharing a byte with `slot` (nbytes > 0), by index.
  std::vector<size_t> Overlapping(const Placement& slot) const {
    auto at = [&](uint64_t offset) {
      return static_cast<size_t>(
          std::partition_point(
              order_.begin(), order_.end(),
              [&](size_t t) { return Key(t) < std::make_pair(slot.memory_id, offset); }) -
          order_.begin());
    };
    const size_t first = at(slot.offset), last = at(slot.offset + slot.nbytes);
    std::vector<size_t> found(order_.begin() + static_cast<ptrdiff_t>(first),
                              order_.begin() + static_cast<ptrdiff_t>(last));
    // Tensors starting below the slot reach into it only while the highest
    // end so far does.
    for (size_t k = first;
         k > 0 && Key(order_[k - 1]).first == slot.memory_id && highest_end_[k - 1] > slot.offset;
         --k) {
      if (tensors_[order_[k - 1]].end() > slot.offset) found.push_back(order_[k - 1]);
    }
    std::sort(found.begin(), found.end());
    return found;
  }

 private:
  std::pair<uint32_t, uint64_t> Key(size_t t) const {
    return {tensors_[t].placement.memory_id, tensors_[t].placement.offset};
  }

  const std::vector<PlannedTensor>& tensors_;
  std::vector<size_t> order_;
  std::vector<uint64_t> highest_end_;  // per position in order_, within its arena
};

}  // namespace

std::vector<SharedGroup> CollectSharedGroups(const std::vector<MethodLayout>& methods,
                                             const std::vector<std::string>& names,
                                             std::vector<Finding>* findings) {
  std::map<std::string, SharedGroup> by_name;
  std::set<std::string> names_on_refused_tensors;
  for (size_t m = 0; m < methods.size(); ++m) {
    for (size_t t = 0; t < methods[m].tensors.size(); ++t) {
      const PlannedTensor& tensor = methods[m].tensors[t];
      if (tensor.name.empty()) continue;
      if (!tensor.valid) {
        names_on_refused_tensors.insert(tensor.name);
        continue;
      }
      SharedGroup& group = by_name[tensor.name];
      group.name = tensor.name;
      group.occurrences.push_back({m, t});
    }
  }

  std::vector<SharedGroup> groups;
  if (names.empty()) {
    for (auto& [name, group] : by_name) {
      if (MethodsOf(group).size() >= 2) groups.push_back(std::move(group));
    }
    return groups;
  }
  const std::set<std::string> requested(names.begin(), names.end());
  for (const std::string& name : requested) {
    auto found = by_name.find(name);
    if (found != by_name.end()) {
      groups.push_back(std::move(found->second));
    } else if (names_on_refused_tensors.count(name) == 0) {
      // (A name only on refused tensors already has its finding.)
      Finding finding = NewFinding(FindingKind::kSharedNameNotFound);
      finding.name = name;
      finding.message = "shared buffer " + name + ": no method has a planned tensor with that name";
      findings->push_back(std::move(finding));
    }
  }
  return groups;
}

void CheckSamePlacement(const std::vector<MethodLayout>& methods,
                        const std::vector<SharedGroup>& groups, CompareLocation compare,
                        std::vector<Finding>* findings) {
  const bool location = compare == CompareLocation::kArenaAndOffset;
  for (const SharedGroup& group : groups) {
    const Occurrence& first = group.occurrences.front();
    const Placement& want = TensorOf(methods, first).placement;
    const std::string where = " in method " + methods[first.method].name + " (value " +
                              std::to_string(TensorOf(methods, first).value_index) + ")";
    for (size_t i = 1; i < group.occurrences.size(); ++i) {
      const Occurrence& o = group.occurrences[i];
      const PlannedTensor& tensor = TensorOf(methods, o);
      const Placement& got = tensor.placement;
      const std::string label = TensorLabel(methods[o.method].name, tensor.value_index, group.name);
      if (location && got.memory_id != want.memory_id) {
        // Offsets in different arenas say nothing about each other.
        Finding finding = OccurrenceFinding(FindingKind::kArenaMismatch, methods, group, o);
        finding.expected = want.memory_id;
        finding.actual = got.memory_id;
        finding.message = label + ": in arena " + std::to_string(got.memory_id) +
                          ", but in arena " + std::to_string(want.memory_id) + where;
        findings->push_back(std::move(finding));
        continue;
      }
      if (location && got.offset != want.offset) {
        Finding finding = OccurrenceFinding(FindingKind::kOffsetMismatch, methods, group, o);
        finding.expected = want.offset;
        finding.actual = got.offset;
        finding.message = label + ": at offset " + std::to_string(got.offset) + " in arena " +
                          std::to_string(got.memory_id) + ", but at offset " +
                          std::to_string(want.offset) + where;
        findings->push_back(std::move(finding));
      }
      if (got.nbytes != want.nbytes) {
        Finding finding = OccurrenceFinding(FindingKind::kSizeMismatch, methods, group, o);
        finding.expected = want.nbytes;
        finding.actual = got.nbytes;
        finding.message = label + ": " + std::to_string(got.nbytes) + " bytes, but " +
                          std::to_string(want.nbytes) + " bytes" + where;
        findings->push_back(std::move(finding));
      } else if (!SameShape(tensor, TensorOf(methods, first))) {
        Finding finding = OccurrenceFinding(FindingKind::kShapeMismatch, methods, group, o);
        finding.message = label + ": " + ShapeText(tensor) + ", but " +
                          ShapeText(TensorOf(methods, first)) + where +
                          " (one buffer, read as other numbers)";
        findings->push_back(std::move(finding));
      }
    }
  }
}

void CheckArenaDevices(const std::vector<MethodLayout>& methods,
                       const std::vector<SharedGroup>& groups, std::vector<Finding>* findings) {
  std::set<uint32_t> checked;
  for (const SharedGroup& group : groups) {
    const Occurrence& first = group.occurrences.front();
    const uint32_t id = TensorOf(methods, first).placement.memory_id;
    if (id == 0 || !checked.insert(id).second) continue;
    const MethodLayout& reference = methods[first.method];
    if (id > reference.arena_devices.size()) continue;
    const auto want = reference.arena_devices[id - 1];
    auto text = [](std::pair<int8_t, int8_t> device) {
      return "device type " + std::to_string(device.first) + ":" + std::to_string(device.second);
    };
    for (const MethodLayout& method : methods) {
      if (id > method.arena_devices.size()) continue;
      const auto got = method.arena_devices[id - 1];
      if (got == want) continue;
      Finding finding = NewFinding(FindingKind::kDeviceMismatch);
      finding.method = method.name;
      finding.name = group.name;
      finding.reference_method = reference.name;
      finding.placement.memory_id = id;
      finding.expected = static_cast<uint64_t>(static_cast<uint8_t>(want.first)) << 8 |
                         static_cast<uint8_t>(want.second);
      finding.actual = static_cast<uint64_t>(static_cast<uint8_t>(got.first)) << 8 |
                       static_cast<uint8_t>(got.second);
      finding.message = "method " + method.name + ": arena " + std::to_string(id) + " is on " +
                        text(got) + ", but on " + text(want) + " in method " + reference.name +
                        ", and shared buffer " + group.name +
                        " is in it (one arena cannot be one memory on two devices)";
      findings->push_back(std::move(finding));
    }
  }
}

void CheckPrivateState(const std::vector<MethodLayout>& methods,
                       const std::vector<SharedGroup>& groups, std::vector<Finding>* findings) {
  if (methods.size() < 2) return;
  std::set<std::pair<size_t, size_t>> shared;  // (method, tensor)
  for (const SharedGroup& group : groups) {
    for (const Occurrence& o : group.occurrences) shared.insert({o.method, o.tensor});
  }
  std::vector<TensorsByOffset> by_offset;
  by_offset.reserve(methods.size());
  for (const MethodLayout& method : methods) by_offset.emplace_back(method);
  for (size_t a = 0; a < methods.size(); ++a) {
    for (size_t s = 0; s < methods[a].tensors.size(); ++s) {
      const PlannedTensor& state = methods[a].tensors[s];
      if (!state.valid || !state.is_state() || state.placement.nbytes == 0 ||
          shared.count({a, s}) != 0) {
        continue;
      }
      const std::string state_text = TensorLabel(methods[a].name, state.value_index, state.name) +
                                     ", " + Extent(state.placement.offset, state.placement.nbytes);
      for (size_t b = 0; b < methods.size(); ++b) {
        if (b == a) continue;
        const std::vector<size_t> overlapping = by_offset[b].Overlapping(state.placement);
        // The same state in both methods (same name, same bytes), though
        // not asked to be checked as shared: one buffer, and what lies in
        // it in method b is b's own business, not a clobber.
        const bool same_state = std::any_of(overlapping.begin(), overlapping.end(), [&](size_t t) {
          const PlannedTensor& twin = methods[b].tensors[t];
          return twin.is_state() && twin.name == state.name &&
                 twin.placement.memory_id == state.placement.memory_id &&
                 twin.placement.offset == state.placement.offset &&
                 twin.placement.nbytes == state.placement.nbytes;
        });
        if (same_state) continue;
        for (size_t t : overlapping) {
          const PlannedTensor& tensor = methods[b].tensors[t];
          Finding finding = NewFinding(FindingKind::kPrivateStateOverlap);
          finding.method = methods[b].name;
          finding.value_index = tensor.value_index;
          finding.name = state.name;
          finding.placement = tensor.placement;
          finding.reference_method = methods[a].name;
          finding.reference_value_index = state.value_index;
          finding.reference = state.placement;
          finding.message =
              TensorLabel(methods[b].name, tensor.value_index, tensor.name) + ": " +
              Extent(tensor.placement.offset, tensor.placement.nbytes) + " in arena " +
              std::to_string(state.placement.memory_id) + " overlaps the state of " + state_text +
              ", which is no shared buffer: with one set of arenas, running method " +
              methods[b].name + " overwrites it between calls of method " + methods[a].name;
          findings->push_back(std::move(finding));
        }
      }
    }
  }
}

void CheckNoOverlap(const std::vector<MethodLayout>& methods,
                    const std::vector<SharedGroup>& groups, std::vector<Finding>* findings) {
  for (size_t m = 0; m < methods.size(); ++m) {
    const MethodLayout& method = methods[m];
    const std::vector<InstructionUse> uses = ReadInstructionUses(method);
    const AliasJudge judge(method, uses);
    const TensorsByOffset by_offset(method);
    for (const SharedGroup& group : groups) {
      const Occurrence& first = group.occurrences.front();
      // The method's own placement of the buffer; a method without it must
      // keep the reference slot free, since the memory is shared.
      const Occurrence* own = nullptr;
      for (const Occurrence& o : group.occurrences) {
        if (o.method == m) {
          own = &o;
          break;
        }
      }
      const Occurrence& slot_owner = own != nullptr ? *own : first;
      const PlannedTensor& buffer = TensorOf(methods, slot_owner);
      const Placement& slot = buffer.placement;
      if (slot.nbytes == 0) continue;
      const std::string slot_text =
          Extent(slot.offset, slot.nbytes) + (own != nullptr
                                                  ? ")"
                                                  : ", as in method " + methods[first.method].name +
                                                        "; this method must keep it free)");
      auto finding_for = [&](FindingKind kind, const PlannedTensor& tensor) {
        Finding finding = NewFinding(kind);
        finding.method = method.name;
        finding.value_index = tensor.value_index;
        finding.name = group.name;
        finding.placement = tensor.placement;
        finding.reference_method = methods[slot_owner.method].name;
        finding.reference_value_index = buffer.value_index;
        finding.reference = slot;
        return finding;
      };
      std::vector<size_t> inside;  // in a method that has the buffer
      for (size_t t : by_offset.Overlapping(slot)) {
        const PlannedTensor& tensor = method.tensors[t];
        if (own != nullptr && t == own->tensor) continue;
        if (own != nullptr && LiesInside(tensor.placement, slot)) {
          inside.push_back(t);
          continue;
        }
        Finding finding = finding_for(FindingKind::kOverlap, tensor);
        finding.message = TensorLabel(method.name, tensor.value_index, tensor.name) + ": " +
                          Extent(tensor.placement.offset, tensor.placement.nbytes) + " in arena " +
                          std::to_string(slot.memory_id) + " overlaps shared buffer " + group.name +
                          " (" + slot_text + (own != nullptr ? " without lying inside it" : "");
        findings->push_back(std::move(finding));
      }
      if (inside.empty()) continue;
      const std::vector<std::string> why = judge.Judge(buffer.value_index, inside);
      for (size_t i = 0; i < inside.size(); ++i) {
        if (why[i].empty()) continue;
        const PlannedTensor& tensor = method.tensors[inside[i]];
        Finding finding = finding_for(FindingKind::kUnprovenAlias, tensor);
        finding.message = TensorLabel(method.name, tensor.value_index, tensor.name) + " " +
                          ShapeOf(tensor) + ": " +
                          Extent(tensor.placement.offset, tensor.placement.nbytes) + " in arena " +
                          std::to_string(slot.memory_id) + " lies inside shared buffer " +
                          group.name + " (" + Extent(slot.offset, slot.nbytes) + ") but " + why[i] +
                          ": it would overwrite the shared state";
        findings->push_back(std::move(finding));
      }
    }
  }
}

void CheckSharingCaveats(const std::vector<MethodLayout>& methods,
                         const std::vector<SharedGroup>& groups, std::vector<Finding>* findings) {
  for (const SharedGroup& group : groups) {
    std::vector<size_t> with_state;
    for (const Occurrence& o : group.occurrences) {
      if (TensorOf(methods, o).has_initial_state &&
          (with_state.empty() || with_state.back() != o.method)) {
        with_state.push_back(o.method);
      }
    }
    if (loader::StateRecopiedOnLoad(with_state.size())) {
      Finding finding = NewFinding(FindingKind::kInitialStateInSeveralMethods);
      finding.name = group.name;
      finding.actual = with_state.size();
      finding.message = "shared buffer " + group.name + " has an initial state in " +
                        std::to_string(with_state.size()) + " methods (" +
                        MethodList(methods, with_state) + "): " + loader::kStateRecopiedOnLoad;
      findings->push_back(std::move(finding));
    }
    const Placement& placement = TensorOf(methods, group.occurrences.front()).placement;
    if (loader::ModuleLeavesArenaUnshared(placement.memory_id)) {
      Finding finding = NewFinding(FindingKind::kArenaNotSharedByModule);
      finding.name = group.name;
      finding.placement = placement;
      finding.actual = placement.memory_id;
      finding.message = "shared buffer " + group.name + " is in arena " +
                        std::to_string(placement.memory_id) + ": " +
                        loader::kModuleSharesArenasOneAndTwo +
                        ", so the application must bind this arena itself";
      findings->push_back(std::move(finding));
    }
  }
}

std::vector<SharedBuffer> DescribeGroups(const std::vector<MethodLayout>& methods,
                                         const std::vector<SharedGroup>& groups) {
  std::vector<SharedBuffer> described;
  for (const SharedGroup& group : groups) {
    SharedBuffer buffer;
    buffer.name = group.name;
    buffer.placement = TensorOf(methods, group.occurrences.front()).placement;
    buffer.paired = TensorOf(methods, group.occurrences.front()).paired;
    for (const Occurrence& o : group.occurrences) {
      const std::string& method = methods[o.method].name;
      if (buffer.methods.empty() || buffer.methods.back() != method) {
        buffer.methods.push_back(method);
      }
      std::vector<std::string>& stateful = buffer.methods_with_initial_state;
      if (TensorOf(methods, o).has_initial_state &&
          (stateful.empty() || stateful.back() != method)) {
        stateful.push_back(method);
      }
    }
    described.push_back(std::move(buffer));
  }
  return described;
}

}  // namespace pteshare::runtime_check::internal

#include "runtime_check/overlap_check.h"

#include "runtime_check/alias_evidence.h"

namespace pteshare::runtime_check::core::internal {
namespace {

bool KeyLess(const TensorRecord& a, const TensorRecord& b) {
  return a.memory_id < b.memory_id || (a.memory_id == b.memory_id && a.offset < b.offset);
}

bool LiesInside(const TensorRecord& inner, const Placement& outer) {
  return inner.memory_id == outer.memory_id && inner.offset >= outer.offset &&
         inner.end() <= outer.offset + outer.nbytes;
}

// The tensors of `method` sharing a byte with `slot` (nbytes > 0), as
// indices into method.tensors, ascending, into program->hits; their count.
uint32_t Overlapping(const MethodRecord& method, const Placement& slot, Program* program) {
  const uint32_t* order = method.by_offset;
  const uint32_t n = method.by_offset_count;
  auto at = [&](uint64_t offset) {
    uint32_t low = 0, high = n;
    while (low < high) {
      const uint32_t mid = low + (high - low) / 2;
      const TensorRecord& t = method.tensors[order[mid]];
      if (t.memory_id < slot.memory_id || (t.memory_id == slot.memory_id && t.offset < offset)) {
        low = mid + 1;
      } else {
        high = mid;
      }
    }
    return low;
  };
  const uint32_t first = at(slot.offset), last = at(slot.offset + slot.nbytes);
  uint32_t count = 0;
  for (uint32_t k = first; k < last; ++k) program->hits[count++] = order[k];
  // Tensors starting below the slot reach into it only while the highest
  // end so far does.
  for (uint32_t k = first; k > 0 && method.tensors[order[k - 1]].memory_id == slot.memory_id &&
                           method.highest_end[k - 1] > slot.offset;
       --k) {
    if (method.tensors[order[k - 1]].end() > slot.offset) program->hits[count++] = order[k - 1];
  }
  SortKeys(program->hits, count, [](uint32_t a, uint32_t b) { return a < b; });
  return count;
}

}  // namespace

void IndexByOffset(Program* program) {
  uint32_t* next_order = program->by_offset;
  uint64_t* next_end = program->highest_end;
  for (uint32_t m = 0; m < program->method_count; ++m) {
    MethodRecord& method = program->methods[m];
    method.by_offset = next_order;
    method.highest_end = next_end;
    method.by_offset_count = 0;
    for (uint32_t t = 0; t < method.tensor_count; ++t) {
      if (method.tensors[t].valid && method.tensors[t].nbytes > 0) {
        method.by_offset[method.by_offset_count++] = t;
      }
    }
    const TensorRecord* tensors = method.tensors;
    SortKeys(method.by_offset, method.by_offset_count, [&](uint32_t a, uint32_t b) {
      return KeyLess(tensors[a], tensors[b]) || (!KeyLess(tensors[b], tensors[a]) && a < b);
    });
    for (uint32_t k = 0; k < method.by_offset_count; ++k) {
      const TensorRecord& t = tensors[method.by_offset[k]];
      const bool same_arena = k > 0 && tensors[method.by_offset[k - 1]].memory_id == t.memory_id;
      const uint64_t before = same_arena ? method.highest_end[k - 1] : 0;
      method.highest_end[k] = before > t.end() ? before : t.end();
    }
    next_order += method.tensor_count;
    next_end += method.tensor_count;
  }
}

void CheckNoOverlap(flat::Reader& reader, Program* program, Findings& findings) {
  for (uint32_t m = 0; m < program->method_count; ++m) {
    const MethodRecord& method = program->methods[m];
    bool uses_read = false;
    for (uint32_t g = 0; g < program->group_count; ++g) {
      const GroupRecord& group = program->groups[g];
      const TensorRecord& first = program->tensors[program->members[group.begin]];
      // The method's own placement of the buffer; a method without it must
      // keep the reference slot free, since the memory is shared.
      const TensorRecord* own = nullptr;
      for (uint32_t i = 0; i < group.count && own == nullptr; ++i) {
        const TensorRecord& t = program->tensors[program->members[group.begin + i]];
        if (&program->MethodOf(t) == &method) own = &t;
      }
      const TensorRecord& buffer = own != nullptr ? *own : first;
      const MethodRecord& slot_owner = program->MethodOf(buffer);
      const Placement slot = buffer.placement();
      if (slot.nbytes == 0) continue;
      auto finding_for = [&](FindingKind kind, const TensorRecord& tensor) {
        Finding finding = TensorFinding(kind, method, tensor);
        finding.name = group.name;
        finding.placement = tensor.placement();
        SetReference(&finding, slot_owner, buffer);
        return finding;
      };
      uint32_t inside = 0;  // in a method that has the buffer
      const uint32_t hits = Overlapping(method, slot, program);
      for (uint32_t h = 0; h < hits; ++h) {
        const TensorRecord& tensor = method.tensors[program->hits[h]];
        if (&tensor == own) continue;
        if (own != nullptr && LiesInside(tensor, slot)) {
          program->inside[inside++] = program->hits[h];
          continue;
        }
        Finding finding = finding_for(FindingKind::kOverlap, tensor);
        finding.reason = own != nullptr ? 0 : 1;  // 1: a slot this method must keep free
        findings.Add(finding);
      }
      if (inside == 0) continue;
      if (!uses_read) {
        ReadInstructionUses(reader, method, program);
        uses_read = true;
      }
      JudgeAliases(method, buffer.value_index, inside, program);
      for (uint32_t i = 0; i < inside; ++i) {
        const auto doubt = static_cast<AliasDoubt>(program->flags[i]);
        if (doubt == AliasDoubt::kNone) continue;
        const TensorRecord& tensor = method.tensors[program->inside[i]];
        Finding finding = finding_for(FindingKind::kUnprovenAlias, tensor);
        finding.reason = static_cast<uint8_t>(doubt);
        if (doubt == AliasDoubt::kUnrelatedWriter) {
          finding.detail[0] = UnrelatedWriter(tensor.value_index, *program);
        }
        finding.shape = ReadShape(reader, tensor);
        findings.Add(finding);
      }
      ClearAliases(method, buffer.value_index, inside, program);
    }
  }
}

void CheckPrivateState(Program* program, Findings& findings) {
  if (program->method_count < 2) return;
  for (uint32_t a = 0; a < program->method_count; ++a) {
    const MethodRecord& owner = program->methods[a];
    for (uint32_t s = 0; s < owner.tensor_count; ++s) {
      const TensorRecord& state = owner.tensors[s];
      if (!state.valid || !state.is_state() || state.nbytes == 0 || state.group != kNoGroup) {
        continue;
      }
      for (uint32_t b = 0; b < program->method_count; ++b) {
        if (b == a) continue;
        const MethodRecord& other = program->methods[b];
        const uint32_t hits = Overlapping(other, state.placement(), program);
        // The same state in both methods (same name, same bytes), though
        // not asked to be checked as shared: one buffer, and what lies in
        // it in method b is b's own business, not a clobber.
        bool same_state = false;
        for (uint32_t h = 0; h < hits && !same_state; ++h) {
          const TensorRecord& twin = other.tensors[program->hits[h]];
          same_state = twin.is_state() && twin.name == state.name &&
                       twin.memory_id == state.memory_id && twin.offset == state.offset &&
                       twin.nbytes == state.nbytes;
        }
        if (same_state) continue;
        for (uint32_t h = 0; h < hits; ++h) {
          const TensorRecord& tensor = other.tensors[program->hits[h]];
          Finding finding = TensorFinding(FindingKind::kPrivateStateOverlap, other, tensor);
          finding.name = state.name;
          finding.placement = tensor.placement();
          SetReference(&finding, owner, state);
          findings.Add(finding);
        }
      }
    }
  }
}

}  // namespace pteshare::runtime_check::core::internal

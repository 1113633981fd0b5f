#include "runtime_check/binding_check.h"

namespace pteshare::runtime_check::core::internal {
namespace {

// The binding of `method` (the first that names it), or nullptr when it is
// not loaded.
const MethodBinding* BindingOf(const MethodRecord& method, const Bindings& bindings) {
  for (size_t b = 0; b < bindings.count; ++b) {
    if (bindings.items[b].method == method.name) return &bindings.items[b];
  }
  return nullptr;
}

const void* BufferOf(const MethodBinding& binding, uint32_t memory_id) {
  if (memory_id == 0 || memory_id > binding.arena_count) return nullptr;
  return binding.arenas[memory_id - 1].data;
}

// The absolute address of `tensor` in `binding`; false when its arena has
// no buffer (reported by CheckBindingsCoverArenas) or its end wraps around.
// Only for valid tensors (offset + nbytes does not overflow).
bool AddressOf(const MethodBinding& binding, const TensorRecord& tensor, uint64_t* address) {
  const void* buffer = BufferOf(binding, tensor.memory_id);
  if (buffer == nullptr) return false;
  const auto base = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(buffer));
  if (tensor.end() > ~uint64_t{0} - base) return false;
  *address = base + tensor.offset;
  return true;
}

}  // namespace

void CheckBindingsCoverArenas(Program* program, const Bindings& bindings, Findings& findings) {
  for (size_t b = 0; b < bindings.count; ++b) {
    bool known = false;
    for (uint32_t m = 0; m < program->method_count && !known; ++m) {
      known = program->methods[m].name == bindings.items[b].method;
    }
    if (known) continue;
    Finding finding = NewFinding(FindingKind::kUnknownMethod);
    finding.method = bindings.items[b].method;
    findings.Add(finding);
  }
  for (uint32_t m = 0; m < program->method_count; ++m) {
    const MethodRecord& method = program->methods[m];
    const MethodBinding* bound = BindingOf(method, bindings);
    if (bound == nullptr) continue;
    // Arenas the loader will ask for: every arena with bytes, and every
    // memory_id a tensor names (the loader looks it up even for 0 bytes).
    uint8_t* needed = program->flags;
    for (uint32_t i = 0; i < method.arena_count; ++i) needed[i] = method.ArenaSize(i + 1) > 0;
    for (uint32_t t = 0; t < method.tensor_count; ++t) {
      if (method.tensors[t].valid) needed[method.tensors[t].memory_id - 1] = 1;
    }
    for (uint32_t i = 0; i < method.arena_count; ++i) {
      if (needed[i] == 0) continue;
      const uint32_t memory_id = i + 1;
      const uint64_t arena_size = method.ArenaSize(memory_id);
      if (i >= bound->arena_count || bound->arenas[i].data == nullptr) {
        Finding finding = MethodFinding(FindingKind::kArenaNotBound, method);
        finding.placement.memory_id = memory_id;
        finding.expected = method.arena_count;
        finding.actual = bound->arena_count;
        finding.detail[0] = arena_size;
        findings.Add(finding);
      } else if (bound->arenas[i].size < arena_size) {
        Finding finding = MethodFinding(FindingKind::kBindingTooSmall, method);
        finding.placement.memory_id = memory_id;
        finding.expected = arena_size;
        finding.actual = bound->arenas[i].size;
        findings.Add(finding);
      }
    }
  }
}

void CheckSharedAddresses(const Program& program, const Bindings& bindings, Findings& findings) {
  for (uint32_t g = 0; g < program.group_count; ++g) {
    const GroupRecord& group = program.groups[g];
    auto member = [&](uint32_t i) -> const TensorRecord& {
      return program.tensors[program.members[group.begin + i]];
    };
    // The reference: the buffer's first occurrence in a bound method.
    const TensorRecord* reference = nullptr;
    const MethodBinding* reference_binding = nullptr;
    uint64_t reference_address = 0;
    for (uint32_t i = 0; i < group.count && reference == nullptr; ++i) {
      const MethodBinding* bound = BindingOf(program.MethodOf(member(i)), bindings);
      if (bound != nullptr && AddressOf(*bound, member(i), &reference_address)) {
        reference = &member(i);
        reference_binding = bound;
      }
    }
    if (reference == nullptr) continue;  // no bound method has it
    const MethodRecord& reference_method = program.MethodOf(*reference);
    const void* reference_buffer = BufferOf(*reference_binding, reference->memory_id);
    auto against_reference = [&](FindingKind kind, const MethodRecord& method,
                                 const TensorRecord& tensor) {
      Finding finding = TensorFinding(kind, method, tensor);
      finding.name = group.name;
      finding.placement = tensor.placement();
      SetReference(&finding, reference_method, *reference);
      finding.detail[1] = reference_address;
      return finding;
    };

    // Same address in every bound method that has the buffer.
    for (uint32_t i = 0; i < group.count; ++i) {
      const TensorRecord& tensor = member(i);
      const MethodRecord& method = program.MethodOf(tensor);
      const MethodBinding* bound = BindingOf(method, bindings);
      uint64_t address = 0;
      if (bound == nullptr || !AddressOf(*bound, tensor, &address) ||
          address == reference_address) {
        continue;
      }
      Finding finding = against_reference(FindingKind::kAddressMismatch, method, tensor);
      finding.expected = reference_address;
      finding.actual = address;
      findings.Add(finding);
    }

    // No tensor of a bound method may overlap the buffer's bytes in memory.
    // Where the tensor's arena buffer is the reference buffer, addresses
    // and offsets agree and CheckNoOverlap has judged it already.
    if (reference->nbytes == 0) continue;
    const uint64_t reference_end = reference_address + reference->nbytes;
    for (uint32_t m = 0; m < program.method_count; ++m) {
      const MethodRecord& method = program.methods[m];
      const MethodBinding* bound = BindingOf(method, bindings);
      if (bound == nullptr) continue;
      for (uint32_t t = 0; t < method.tensor_count; ++t) {
        const TensorRecord& tensor = method.tensors[t];
        uint64_t address = 0;
        if (!tensor.valid || tensor.nbytes == 0 || tensor.name == group.name ||
            !AddressOf(*bound, tensor, &address)) {
          continue;
        }
        if (tensor.memory_id == reference->memory_id &&
            BufferOf(*bound, tensor.memory_id) == reference_buffer) {
          continue;
        }
        // Bytes of another arena's buffer can alias the shared buffer only
        // by accident: lying inside it is no evidence (alias_evidence.h).
        if (address >= reference_end || reference_address >= address + tensor.nbytes) continue;
        Finding finding = against_reference(FindingKind::kOverlap, method, tensor);
        finding.reason = 2;  // in memory, as bound
        finding.detail[0] = address;
        findings.Add(finding);
      }
    }
  }
}

}  // namespace pteshare::runtime_check::core::internal

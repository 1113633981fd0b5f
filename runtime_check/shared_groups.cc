#include "runtime_check/shared_groups.h"

#include "loader_facts.h"

namespace pteshare::runtime_check::core::internal {
namespace {

const TensorRecord& Member(const Program& program, const GroupRecord& group, uint32_t i) {
  return program.tensors[program.members[group.begin + i]];
}

// Fills the fields every finding about one occurrence has.
Finding OccurrenceFinding(FindingKind kind, const Program& program, const GroupRecord& group,
                          const TensorRecord& tensor) {
  const TensorRecord& reference = Member(program, group, 0);
  Finding finding = TensorFinding(kind, program.MethodOf(tensor), tensor);
  finding.name = group.name;
  finding.placement = tensor.placement();
  SetReference(&finding, program.MethodOf(reference), reference);
  return finding;
}

// Index of the first named tensor (in program->name_order) with `name`,
// or `count` when none.
uint32_t FirstNamed(const Program& program, uint32_t count, const Text& name) {
  uint32_t low = 0, high = count;
  while (low < high) {
    const uint32_t mid = low + (high - low) / 2;
    if (CompareText(program.tensors[program.name_order[mid]].name, name) < 0) {
      low = mid + 1;
    } else {
      high = mid;
    }
  }
  return low < count && program.tensors[program.name_order[low]].name == name ? low : count;
}

// Makes a group of the valid tensors in name_order[begin, end) (one name).
void AddGroup(Program* program, uint32_t begin, uint32_t end, uint32_t* member_count) {
  GroupRecord& group = program->groups[program->group_count];
  group.name = program->tensors[program->name_order[begin]].name;
  group.begin = *member_count;
  group.count = 0;
  for (uint32_t i = begin; i < end; ++i) {
    const uint32_t t = program->name_order[i];
    if (!program->tensors[t].valid) continue;
    program->tensors[t].group = program->group_count;
    program->members[(*member_count)++] = t;
    ++group.count;
  }
  ++program->group_count;
}

}  // namespace

void CollectSharedGroups(const Options& options, Program* program, Findings& findings) {
  // Named tensors by (name, position): runs of one name, each in program order.
  uint32_t named = 0;
  for (uint32_t t = 0; t < program->tensor_count; ++t) {
    if (!program->tensors[t].name.empty()) program->name_order[named++] = t;
  }
  const TensorRecord* tensors = program->tensors;
  SortKeys(program->name_order, named, [&](uint32_t a, uint32_t b) {
    const int c = CompareText(tensors[a].name, tensors[b].name);
    return c < 0 || (c == 0 && a < b);
  });
  auto run_end = [&](uint32_t begin) {
    uint32_t end = begin + 1;
    while (end < named &&
           tensors[program->name_order[end]].name == tensors[program->name_order[begin]].name) {
      ++end;
    }
    return end;
  };

  program->group_count = 0;
  uint32_t member_count = 0;
  if (options.shared_name_count == 0) {
    for (uint32_t begin = 0; begin < named;) {
      const uint32_t end = run_end(begin);
      // Shared when valid in two or more methods.
      uint32_t methods = 0;
      const MethodRecord* last = nullptr;
      for (uint32_t i = begin; i < end; ++i) {
        const TensorRecord& t = tensors[program->name_order[i]];
        if (!t.valid) continue;
        const MethodRecord* method = &program->MethodOf(t);
        if (method != last) ++methods;
        last = method;
      }
      if (methods >= 2) AddGroup(program, begin, end, &member_count);
      begin = end;
    }
    return;
  }
  const uint32_t requested = static_cast<uint32_t>(options.shared_name_count);
  for (uint32_t i = 0; i < requested; ++i) program->request_order[i] = i;
  SortKeys(program->request_order, requested, [&](uint32_t a, uint32_t b) {
    const int c = CompareText(options.shared_names[a], options.shared_names[b]);
    return c < 0 || (c == 0 && a < b);
  });
  for (uint32_t r = 0; r < requested; ++r) {
    const Text& name = options.shared_names[program->request_order[r]];
    if (r > 0 && options.shared_names[program->request_order[r - 1]] == name) continue;
    const uint32_t begin = FirstNamed(*program, named, name);
    if (begin == named) {
      Finding finding = NewFinding(FindingKind::kSharedNameNotFound);
      finding.name = name;
      findings.Add(finding);
      continue;
    }
    const uint32_t end = run_end(begin);
    bool any_valid = false;
    for (uint32_t i = begin; i < end; ++i) any_valid |= tensors[program->name_order[i]].valid;
    if (any_valid) AddGroup(program, begin, end, &member_count);
  }
}

void CheckSamePlacement(flat::Reader& reader, const Program& program, CompareLocation compare,
                        Findings& findings) {
  const bool location = compare == CompareLocation::kArenaAndOffset;
  for (uint32_t g = 0; g < program.group_count; ++g) {
    const GroupRecord& group = program.groups[g];
    const TensorRecord& want = Member(program, group, 0);
    for (uint32_t i = 1; i < group.count; ++i) {
      const TensorRecord& got = Member(program, group, i);
      if (location && got.memory_id != want.memory_id) {
        // Offsets in different arenas say nothing about each other.
        Finding finding = OccurrenceFinding(FindingKind::kArenaMismatch, program, group, got);
        finding.expected = want.memory_id;
        finding.actual = got.memory_id;
        findings.Add(finding);
        continue;
      }
      if (location && got.offset != want.offset) {
        Finding finding = OccurrenceFinding(FindingKind::kOffsetMismatch, program, group, got);
        finding.expected = want.offset;
        finding.actual = got.offset;
        findings.Add(finding);
      }
      if (got.nbytes != want.nbytes) {
        Finding finding = OccurrenceFinding(FindingKind::kSizeMismatch, program, group, got);
        finding.expected = want.nbytes;
        finding.actual = got.nbytes;
        findings.Add(finding);
        continue;
      }
      // Scalar type, sizes and dim order: what makes one buffer's bytes
      // mean the same numbers to two methods.
      const Shape a = ReadShape(reader, got);
      const Shape b = ReadShape(reader, want);
      if (a.scalar_type != b.scalar_type || a.rank != b.rank ||
          a.dim_order_size != b.dim_order_size || !SameBytes(a.sizes, b.sizes, 4 * a.rank) ||
          !SameBytes(a.dim_order, b.dim_order, a.dim_order_size)) {
        Finding finding = OccurrenceFinding(FindingKind::kShapeMismatch, program, group, got);
        finding.shape = a;
        finding.reference_shape = b;
        findings.Add(finding);
      }
    }
  }
}

void CheckArenaDevices(const Program& program, Findings& findings) {
  auto device_finding = [&](FindingKind kind, const MethodRecord& method,
                            const MethodRecord& reference, uint32_t memory_id, DeviceCode want,
                            DeviceCode got) {
    Finding finding = MethodFinding(kind, method);
    finding.reference_method_index = reference.index;
    finding.reference_method = reference.name;
    finding.placement.memory_id = memory_id;
    finding.expected = want;
    finding.actual = got;
    return finding;
  };
  for (uint32_t g = 0; g < program.group_count; ++g) {
    const GroupRecord& group = program.groups[g];
    const TensorRecord& first = Member(program, group, 0);
    const MethodRecord& reference = program.MethodOf(first);
    const DeviceCode want = reference.ArenaDevice(first.memory_id);
    // An occurrence in another arena (a loader that binds memory itself)
    // must still be on the reference's device.
    for (uint32_t i = 1; i < group.count; ++i) {
      const TensorRecord& t = Member(program, group, i);
      const MethodRecord& method = program.MethodOf(t);
      if (t.memory_id == first.memory_id || method.ArenaDevice(t.memory_id) == want) continue;
      Finding finding = device_finding(FindingKind::kDeviceMismatch, method, reference, t.memory_id,
                                       want, method.ArenaDevice(t.memory_id));
      finding.name = group.name;
      findings.Add(finding);
    }
    // Each arena once: the first group in it speaks for it.
    bool seen = false;
    for (uint32_t e = 0; e < g && !seen; ++e) {
      seen = Member(program, program.groups[e], 0).memory_id == first.memory_id;
    }
    if (seen) continue;
    for (uint32_t m = 0; m < program.method_count; ++m) {
      const MethodRecord& method = program.methods[m];
      if (first.memory_id > method.arena_count) continue;
      const DeviceCode got = method.ArenaDevice(first.memory_id);
      if (got == want) continue;
      Finding finding = device_finding(FindingKind::kDeviceMismatch, method, reference,
                                       first.memory_id, want, got);
      finding.name = group.name;
      findings.Add(finding);
    }
  }
  // Any other memory_id on two devices: no one buffer can serve it.
  uint32_t max_arenas = 0;
  for (uint32_t m = 0; m < program.method_count; ++m) {
    if (program.methods[m].arena_count > max_arenas) max_arenas = program.methods[m].arena_count;
  }
  for (uint32_t id = 1; id <= max_arenas; ++id) {
    bool shared = false;
    for (uint32_t g = 0; g < program.group_count && !shared; ++g) {
      shared = Member(program, program.groups[g], 0).memory_id == id;
    }
    if (shared) continue;
    const MethodRecord* reference = nullptr;
    for (uint32_t m = 0; m < program.method_count; ++m) {
      const MethodRecord& method = program.methods[m];
      if (id > method.arena_count) continue;
      if (reference == nullptr) {
        reference = &method;
        continue;
      }
      const DeviceCode want = reference->ArenaDevice(id), got = method.ArenaDevice(id);
      if (got == want) continue;
      findings.Add(
          device_finding(FindingKind::kArenaOnTwoDevices, method, *reference, id, want, got));
      break;  // one warning per memory_id
    }
  }
}

void CheckSharingCaveats(const Program& program, Findings& findings) {
  for (uint32_t g = 0; g < program.group_count; ++g) {
    const GroupRecord& group = program.groups[g];
    uint32_t with_state = 0;
    const MethodRecord* last = nullptr;
    for (uint32_t i = 0; i < group.count; ++i) {
      const TensorRecord& t = Member(program, group, i);
      const MethodRecord* method = &program.MethodOf(t);
      if (t.has_initial_state && method != last) {
        ++with_state;
        last = method;
      }
    }
    if (loader::StateRecopiedOnLoad(with_state)) {
      Finding finding = NewFinding(FindingKind::kInitialStateInSeveralMethods);
      finding.name = group.name;
      finding.actual = with_state;
      findings.Add(finding);
    }
    const TensorRecord& first = Member(program, group, 0);
    if (loader::ModuleLeavesArenaUnshared(first.memory_id)) {
      Finding finding = NewFinding(FindingKind::kArenaNotSharedByModule);
      finding.name = group.name;
      finding.placement = first.placement();
      finding.actual = first.memory_id;
      findings.Add(finding);
    }
  }
}

void DescribeProgram(const Program& program, Sink& sink) {
  for (uint32_t m = 0; m < program.method_count; ++m) {
    const MethodRecord& method = program.methods[m];
    MethodSummary summary;
    summary.index = method.index;
    summary.name = method.name;
    summary.arena_count = method.arena_count;
    summary.planned_tensors = method.tensor_count;
    summary.arena_sizes = method.bytes + method.arena_sizes.data;
    sink.OnMethod(summary);
  }
  for (uint32_t g = 0; g < program.group_count; ++g) {
    const GroupRecord& group = program.groups[g];
    const TensorRecord& first = Member(program, group, 0);
    SharedBufferSummary summary;
    summary.name = group.name;
    summary.placement = first.placement();
    summary.paired = first.paired;
    summary.occurrences = group.count;
    sink.OnSharedBuffer(summary);
    for (uint32_t i = 0; i < group.count; ++i) {
      const TensorRecord& t = Member(program, group, i);
      const MethodRecord& method = program.MethodOf(t);
      sink.OnOccurrence(Occurrence{method.index, method.name, t.value_index, t.has_initial_state});
    }
  }
}

}  // namespace pteshare::runtime_check::core::internal

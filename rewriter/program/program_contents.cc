#include "rewriter/program/program_contents.h"

#include <algorithm>
#include <map>
#include <string_view>

#include "program_generated.h"
#include "rewriter/program/program_tables.h"

namespace pteshare {
namespace {

std::string Text(const flatbuffers::String* s) { return s != nullptr ? s->str() : std::string(); }

/// Counts `plan`'s KernelCalls by operator and its DelegateCalls by delegate
/// (`contents.delegates` is read already).
void CountInstructions(const fb::ExecutionPlan& plan, MethodContents& contents) {
  const auto* table = plan.operators();
  // Keyed by full name: two table entries with one name are one kernel.
  std::map<std::string, OperatorUse> uses;
  if (plan.chains() == nullptr) return;
  for (const fb::Chain* chain : *plan.chains()) {
    if (chain == nullptr || chain->instructions() == nullptr) continue;
    for (const fb::Instruction* instruction : *chain->instructions()) {
      if (instruction == nullptr) continue;
      if (const fb::KernelCall* call = instruction->instr_args_as_KernelCall()) {
        ++contents.kernel_calls;
        const int32_t op = call->op_index();
        const fb::Operator* entry =
            table != nullptr && op >= 0 && static_cast<uint32_t>(op) < table->size()
                ? table->Get(static_cast<uint32_t>(op))
                : nullptr;
        if (entry == nullptr) {
          ++contents.calls_without_operator;
          continue;
        }
        OperatorUse use{Text(entry->name()), Text(entry->overload()), 0};
        OperatorUse& counted = uses.try_emplace(use.FullName(), std::move(use)).first->second;
        ++counted.calls;
      } else if (const fb::DelegateCall* call = instruction->instr_args_as_DelegateCall()) {
        ++contents.delegate_calls;
        const int32_t d = call->delegate_index();
        if (d >= 0 && static_cast<size_t>(d) < contents.delegates.size()) {
          ++contents.delegates[static_cast<size_t>(d)].calls;
        }
      }
    }
  }
  for (auto& [name, use] : uses) contents.operators.push_back(std::move(use));
  // Most calls first; the map gave name order, which stable_sort keeps for ties.
  std::stable_sort(contents.operators.begin(), contents.operators.end(),
                   [](const OperatorUse& a, const OperatorUse& b) { return a.calls > b.calls; });
}

DelegateInfo ReadDelegate(const fb::Program& program, const fb::BackendDelegate* delegate,
                          uint32_t index) {
  DelegateInfo info;
  info.index = index;
  if (delegate == nullptr) return info;
  info.backend = Text(delegate->id());
  if (const auto* specs = delegate->compile_specs()) {
    for (const fb::CompileSpec* spec : *specs) {
      info.compile_spec_keys.push_back(spec != nullptr ? Text(spec->key()) : std::string());
    }
  }
  const fb::BackendDelegateDataReference* processed = delegate->processed();
  if (processed == nullptr) return info;
  info.location_index = processed->index();
  switch (processed->location()) {
    case fb::DataLocation::INLINE: {
      info.location = BlobLocation::kInline;
      const auto* inline_data = program.backend_delegate_data();
      if (inline_data != nullptr && info.location_index < inline_data->size()) {
        const fb::BackendDelegateInlineData* blob = inline_data->Get(info.location_index);
        info.blob_size = blob != nullptr && blob->data() != nullptr ? blob->data()->size() : 0;
      }
      break;
    }
    case fb::DataLocation::SEGMENT: {
      info.location = BlobLocation::kSegment;
      const auto* segments = program.segments();
      if (segments != nullptr && info.location_index < segments->size()) {
        info.blob_size = segments->Get(info.location_index)->size();
      }
      break;
    }
    default:
      break;  // a location this build does not know: kUnknown
  }
  return info;
}

void ReadExternalTensors(const fb::Program& program, const MethodView& method,
                         MethodContents& contents) {
  for (const TensorValue& tensor : method.tensors) {
    const fb::Tensor& table = TensorTable(program, method, tensor);
    const fb::ExtraTensorInfo* extra = table.extra_tensor_info();
    if (extra == nullptr || extra->location() != fb::TensorDataLocation::EXTERNAL) continue;
    // `planned` from the table, not TensorValue::planned: a DYNAMIC_UNBOUND
    // tensor with allocation_info is unplanned to the planner, but the
    // loader still takes its data by key as a mutable value.
    contents.external_tensors.push_back(ExternalTensor{tensor.value_index, std::string(tensor.name),
                                                       tensor.nbytes,
                                                       table.allocation_info() != nullptr});
  }
}

/// Records that segment `use.segment_index` holds `use` (or that no segment
/// has that index).
void AddSegmentUse(ProgramContents& contents, SegmentUse use) {
  if (use.segment_index < contents.segment_uses.size()) {
    contents.segment_uses[use.segment_index].push_back(std::move(use));
    return;
  }
  // Offsets hold a placeholder entry 0 for "no data", and the loader reads
  // a constant or mutable data segment only when there is more: a table
  // with no buffers names no segment it would load (corpus files without
  // segments carry such a constant_segment, segment_index 0).
  const bool holds_data =
      (use.role != SegmentRole::kConstantData && use.role != SegmentRole::kMutableData) ||
      use.buffers() > 0;
  if (holds_data) {
    contents.dangling_segment_uses.push_back(std::move(use));
  }
}

uint64_t OffsetCount(const fb::SubsegmentOffsets& table) {
  return table.offsets() != nullptr ? table.offsets()->size() : 0;
}

void ReadSegmentUses(const fb::Program& program, const ProgramView& view,
                     ProgramContents& contents) {
  contents.segment_uses.resize(view.layout.segments.size());
  if (const fb::SubsegmentOffsets* constants = program.constant_segment()) {
    AddSegmentUse(contents, SegmentUse{SegmentRole::kConstantData,
                                       constants->segment_index(),
                                       0,
                                       OffsetCount(*constants),
                                       {},
                                       {}});
  }
  if (const auto* mutables = program.mutable_data_segments()) {
    for (uint32_t i = 0; i < mutables->size(); ++i) {
      const fb::SubsegmentOffsets* table = mutables->Get(i);
      AddSegmentUse(
          contents,
          SegmentUse{
              SegmentRole::kMutableData, table->segment_index(), i, OffsetCount(*table), {}, {}});
    }
  }
  for (size_t m = 0; m < view.methods.size(); ++m) {
    for (const DelegateInfo& delegate : contents.methods[m].delegates) {
      if (delegate.location != BlobLocation::kSegment) continue;
      AddSegmentUse(contents,
                    SegmentUse{SegmentRole::kDelegateBlob, delegate.location_index, delegate.index,
                               0, view.methods[m].name, delegate.backend});
    }
  }
  for (uint32_t i = 0; i < contents.named_data.size(); ++i) {
    const NamedDataEntry& entry = contents.named_data[i];
    AddSegmentUse(contents,
                  SegmentUse{SegmentRole::kNamedData, entry.segment_index, i, 0, {}, entry.key});
  }
}

void ReadNamedData(const fb::Program& program, const PteLayout& layout, ProgramContents& contents) {
  const auto* named = program.named_data();
  if (named == nullptr) return;
  for (const fb::NamedData* entry : *named) {
    NamedDataEntry read;
    read.key = Text(entry->key());
    read.segment_index = entry->segment_index();
    if (read.segment_index < layout.segments.size()) {
      read.size = layout.segments[read.segment_index].size;
    }
    contents.named_data.push_back(std::move(read));
  }
}

/// Every method's external keys, each once, in order of first use.
void CollectExternalKeys(const ProgramView& view, ProgramContents& contents) {
  std::map<std::string_view, size_t> position;  // key -> index in external_keys
  for (size_t m = 0; m < view.methods.size(); ++m) {
    const std::string& method = view.methods[m].name;
    for (const ExternalTensor& tensor : contents.methods[m].external_tensors) {
      auto [at, added] = position.try_emplace(tensor.key, contents.external_keys.size());
      if (added) contents.external_keys.push_back(ExternalKey{tensor.key, tensor.nbytes, {}});
      ExternalKey& key = contents.external_keys[at->second];
      // Methods are visited in order: a method already listed is the last.
      if (key.methods.empty() || key.methods.back() != method) key.methods.push_back(method);
      key.planned = key.planned || tensor.planned;
    }
  }
}

}  // namespace

std::string OperatorUse::FullName() const { return KernelName(name, overload); }

uint64_t ProgramContents::external_bytes() const {
  uint64_t total = 0;
  for (const ExternalKey& key : external_keys) total += key.nbytes;
  return total;
}

MethodContents ReadMethodContents(const fb::Program& program, const MethodView& method) {
  const fb::ExecutionPlan& plan = PlanTable(program, method);
  MethodContents contents;
  if (const auto* delegates = plan.delegates()) {
    for (uint32_t i = 0; i < delegates->size(); ++i) {
      contents.delegates.push_back(ReadDelegate(program, delegates->Get(i), i));
    }
  }
  CountInstructions(plan, contents);
  ReadExternalTensors(program, method, contents);
  return contents;
}

ProgramContents ReadProgramContents(const fb::Program& program, const ProgramView& view) {
  ProgramContents contents;
  for (const MethodView& method : view.methods) {
    contents.methods.push_back(ReadMethodContents(program, method));
  }
  ReadNamedData(program, view.layout, contents);
  ReadSegmentUses(program, view, contents);
  CollectExternalKeys(view, contents);
  if (const auto* buffers = program.constant_buffer()) {
    contents.inline_constant_buffers = buffers->size();
    for (const fb::Buffer* buffer : *buffers) {
      if (buffer != nullptr && buffer->storage() != nullptr) {
        contents.inline_constant_bytes += buffer->storage()->size();
      }
    }
  }
  return contents;
}

}  // namespace pteshare

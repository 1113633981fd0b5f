// Fuzz properties: the reader. Header + extended header + FlatBuffers verifier
// (ReadPteLayout), then ProgramView, then every fact a command prints from
// the view. Properties: no crash or sanitizer report on any bytes; an
// accepted layout is consistent with the bytes it came from.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "rewriter/program/program_contents.h"
#include "tests/fuzz/fuzz_support.h"

namespace pteshare::fuzz {
namespace detail {

inline void CheckLayout(std::span<const uint8_t> bytes, const PteLayout& layout) {
  if (layout.file_size != bytes.size()) Fail("layout.file_size differs from the input size");
  if (layout.program_size > bytes.size()) {
    Fail("program_size " + std::to_string(layout.program_size) + " > input size " +
         std::to_string(bytes.size()));
  }
  for (const SegmentExtent& s : layout.segments) {
    if (s.size > 0 && (s.file_offset > bytes.size() || s.size > bytes.size() - s.file_offset)) {
      Fail("accepted segment [" + std::to_string(s.file_offset) + ", +" + std::to_string(s.size) +
           ") past the end of the input");
    }
  }
}

// Reads every field the commands read, as `inspect` does, so that a view
// holding a dangling or out-of-range pointer shows up under ASan.
inline uint64_t Walk(const ProgramView& view) {
  uint64_t sum = view.layout.slack() + view.layout.segment_bytes();
  for (const MethodView& method : view.methods) {
    sum += method.name.size() + method.planned_count() + method.instruction_count;
    for (const Arena& arena : method.arenas) {
      sum += arena.size;
      if (method.arena(arena.memory_id) != &arena) Fail("arena lookup by memory_id is wrong");
    }
    for (const TensorValue& t : method.tensors) {
      sum += t.nbytes + t.placement.offset + t.name.size();
      for (char c : t.name) sum += static_cast<uint8_t>(c);
      if (method.tensor(t.value_index) == nullptr) Fail("tensor lookup by value index fails");
      if (t.value_index >= method.value_count) Fail("tensor value index past the value count");
    }
    if (view.method(method.name) == nullptr) Fail("method lookup by name fails");
  }
  return sum;
}

// What `inspect` adds to the view (program_contents.h): read on any
// verified program without a crash, its counts adding up.
inline uint64_t WalkContents(const fb::Program& program, const ProgramView& view) {
  const ProgramContents contents = ReadProgramContents(program, view);
  if (contents.methods.size() != view.methods.size()) Fail("contents for another method count");
  if (contents.segment_uses.size() != view.layout.segments.size()) {
    Fail("segment uses for another segment count");
  }
  uint64_t sum = contents.external_bytes() + contents.inline_constant_bytes;
  for (const MethodContents& m : contents.methods) {
    uint64_t calls = m.calls_without_operator;
    for (const OperatorUse& op : m.operators) {
      calls += op.calls;
      sum += op.FullName().size();
    }
    if (calls != m.kernel_calls) Fail("operator calls do not add up to the KernelCalls");
    for (const DelegateInfo& d : m.delegates) sum += d.blob_size.value_or(0) + d.backend.size();
  }
  return sum;
}

}  // namespace detail

/// The properties above on `bytes` (fuzz_read_program.cc).
inline void CheckReadProgram(std::span<const uint8_t> bytes) {
  (void)ReadExtendedHeader(bytes);
  const fb::Program* program = nullptr;
  Result<PteLayout> layout = ReadPteLayout(bytes, &program);
  if (!layout.ok()) {
    if (layout.error().message.empty()) Fail("a refusal without a message");
    return;
  }
  detail::CheckLayout(bytes, *layout);
  Result<ProgramView> view = ReadProgramView(*program, *layout);
  if (!view.ok()) {
    if (view.error().message.empty()) Fail("a refusal without a message");
    return;
  }
  volatile uint64_t sink = detail::Walk(*view) + detail::WalkContents(*program, *view);
  (void)sink;
}

}  // namespace pteshare::fuzz

// Fuzz properties: the reader. Header + extended header + FlatBuffers verifier
// (ReadPteLayout), then ProgramView, then every fact a command prints from
// the view. Properties: no crash or sanitizer report on any bytes; an
// accepted layout is consistent with the bytes it came from.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

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
  volatile uint64_t sink = detail::Walk(*view);
  (void)sink;
}

}  // namespace pteshare::fuzz

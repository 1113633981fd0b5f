#include "rewriter/patch/patched_bytes.h"

#include <algorithm>
#include <cstring>
#include <string>

namespace pteshare {
namespace {

// Calls `write(offset, bytes)` for the overwrites, then the appended bytes
// (which lie after every overwrite): PatchSet::AllWrites without its copy.
template <typename Write>
void ForEachWrite(const PatchSet& patch, Write write) {
  for (const ByteOverwrite& w : patch.overwrites)
    write(w.offset, std::span<const uint8_t>(w.bytes));
  if (!patch.appended.empty())
    write(patch.old_program_size, std::span<const uint8_t>(patch.appended));
}

// Copies `from` to out[offset, offset + from.size()), which the caller has
// checked lies inside `out`.
void Put(std::span<uint8_t> out, uint64_t offset, std::span<const uint8_t> from) {
  if (!from.empty()) std::memcpy(out.data() + offset, from.data(), from.size());
}

}  // namespace

Status ApplyPatchInto(std::span<const uint8_t> input, const PatchSet& patch,
                      std::span<uint8_t> out) {
  if (input.size() != patch.old_file_size) {
    return Error{"the patch was made for a " + std::to_string(patch.old_file_size) +
                 "-byte program, this one has " + std::to_string(input.size())};
  }
  if (out.size() != patch.new_file_size) {
    return Error{"the output holds " + std::to_string(out.size()) +
                 " bytes, the rewritten program has " + std::to_string(patch.new_file_size)};
  }
  // Every write is checked before any byte is written.
  Status inside = Status::Ok();
  ForEachWrite(patch, [&](uint64_t offset, std::span<const uint8_t> bytes) {
    if (inside.ok() && (offset > out.size() || bytes.size() > out.size() - offset)) {
      inside = Error{"a write of " + std::to_string(bytes.size()) + " bytes at offset " +
                     std::to_string(offset) + " runs past the new " + std::to_string(out.size()) +
                     "-byte program"};
    }
  });
  if (!inside.ok()) return inside;
  if (patch.segments_move() &&
      (patch.old_program_size > patch.old_segment_base_offset ||
       patch.old_program_size > patch.new_segment_base_offset ||
       patch.old_segment_base_offset > input.size() ||
       patch.new_segment_base_offset + (input.size() - patch.old_segment_base_offset) !=
           out.size())) {
    return Error{"the patch moves the segments from " +
                 std::to_string(patch.old_segment_base_offset) + " to " +
                 std::to_string(patch.new_segment_base_offset) + ", which does not give its " +
                 std::to_string(out.size()) + "-byte program"};
  }
  if (!patch.segments_move()) {
    // The old file, and past its end (a file without segments grows by
    // the appended bytes) zeros that the appended bytes overwrite.
    Put(out, 0, input.first(std::min(input.size(), out.size())));
    if (out.size() > input.size()) {
      std::memset(out.data() + input.size(), 0, out.size() - input.size());
    }
  } else {
    // As the copy writer does: the flatbuffer stays, the old slack is
    // dropped, zeros up to the new base, the segments land there.
    Put(out, 0, input.first(patch.old_program_size));
    std::memset(out.data() + patch.old_program_size, 0,
                patch.new_segment_base_offset - patch.old_program_size);
    Put(out, patch.new_segment_base_offset, input.subspan(patch.old_segment_base_offset));
  }
  ForEachWrite(patch,
               [&](uint64_t offset, std::span<const uint8_t> bytes) { Put(out, offset, bytes); });
  return Status::Ok();
}

Result<std::vector<uint8_t>> ApplyPatchInMemory(std::span<const uint8_t> input,
                                                const PatchSet& patch) {
  std::vector<uint8_t> out(patch.new_file_size);
  Status applied = ApplyPatchInto(input, patch, out);
  if (!applied.ok()) return applied.error();
  return out;
}

}  // namespace pteshare

#include "rewriter/patch/patched_bytes.h"

#include <algorithm>
#include <string>

namespace pteshare {

Result<std::vector<uint8_t>> ApplyPatchInMemory(std::span<const uint8_t> input,
                                                const PatchSet& patch) {
  if (input.size() != patch.old_file_size) {
    return Error{"the patch was made for a " + std::to_string(patch.old_file_size) +
                 "-byte program, this one has " + std::to_string(input.size())};
  }
  std::vector<uint8_t> out(patch.new_file_size, 0);
  if (!patch.segments_move()) {
    std::copy(input.begin(), input.end(), out.begin());
  } else {
    // As the copy writer does: the flatbuffer stays, the old slack is
    // dropped, the segments land at the new base.
    std::copy_n(input.begin(), patch.old_program_size, out.begin());
    std::span<const uint8_t> segments = input.subspan(patch.old_segment_base_offset);
    std::copy(segments.begin(), segments.end(), out.begin() + patch.new_segment_base_offset);
  }
  for (const ByteOverwrite& w : patch.AllWrites()) {
    if (w.end() > out.size()) {
      return Error{"a write of " + std::to_string(w.bytes.size()) + " bytes at offset " +
                   std::to_string(w.offset) + " runs past the new " + std::to_string(out.size()) +
                   "-byte program"};
    }
    std::copy(w.bytes.begin(), w.bytes.end(), out.begin() + w.offset);
  }
  return out;
}

}  // namespace pteshare

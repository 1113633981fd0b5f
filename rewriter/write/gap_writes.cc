#include "rewriter/write/gap_writes.h"

#include <algorithm>

namespace pteshare {

FileGap GapFor(const PatchSet& patch) {
  return {patch.old_segment_base_offset / kGapUnit * kGapUnit, patch.segment_shift()};
}

Result<std::vector<ByteOverwrite>> WritesAroundGap(int fd, const PatchSet& patch,
                                                   const FileGap& gap, FileSystem& files) {
  const uint64_t from = gap.offset, to = patch.new_segment_base_offset;
  ByteOverwrite region{from, std::vector<uint8_t>(to - from, 0)};
  // The flatbuffer's own bytes in the region; the rest is zeros.
  if (patch.old_program_size > from) {
    Status read = files.ReadAt(
        fd, from, std::span<uint8_t>(region.bytes).first(patch.old_program_size - from));
    if (!read.ok()) return read.error();
  }
  std::vector<ByteOverwrite> writes;
  for (const ByteOverwrite& w : patch.AllWrites()) {
    if (w.offset < from) {  // below the gap, maybe reaching into it
      const uint64_t below = std::min<uint64_t>(w.bytes.size(), from - w.offset);
      writes.push_back(
          {w.offset, {w.bytes.begin(), w.bytes.begin() + static_cast<ptrdiff_t>(below)}});
      if (below == w.bytes.size()) continue;
      std::copy(w.bytes.begin() + static_cast<ptrdiff_t>(below), w.bytes.end(),
                region.bytes.begin());
      continue;
    }
    std::copy(w.bytes.begin(), w.bytes.end(),
              region.bytes.begin() + static_cast<ptrdiff_t>(w.offset - from));
  }
  writes.push_back(std::move(region));
  return writes;
}

}  // namespace pteshare

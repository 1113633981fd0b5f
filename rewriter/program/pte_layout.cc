#include "rewriter/program/pte_layout.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "program_generated.h"
#include "verify_bounded.h"

namespace pteshare {
namespace {

using C = PteConstants;

bool AddOverflows(uint64_t a, uint64_t b, uint64_t* sum) {
  return __builtin_add_overflow(a, b, sum);
}

// Two non-empty segments that share bytes: the exporter never writes them,
// and moving or reading them as separate data would be wrong.
Status CheckSegmentsApart(const std::vector<SegmentExtent>& segments) {
  std::vector<size_t> order;
  for (size_t i = 0; i < segments.size(); ++i) {
    if (segments[i].size > 0) order.push_back(i);
  }
  std::sort(order.begin(), order.end(),
            [&](size_t a, size_t b) { return segments[a].file_offset < segments[b].file_offset; });
  for (size_t k = 1; k < order.size(); ++k) {
    const SegmentExtent& before = segments[order[k - 1]];
    const SegmentExtent& after = segments[order[k]];
    if (after.file_offset < before.file_offset + before.size) {
      return Error{"segments " + std::to_string(order[k - 1]) + " [" +
                   std::to_string(before.offset) + ", +" + std::to_string(before.size) + ") and " +
                   std::to_string(order[k]) + " [" + std::to_string(after.offset) + ", +" +
                   std::to_string(after.size) + ") overlap"};
    }
  }
  return Status::Ok();
}

}  // namespace

uint64_t PteLayout::segment_bytes() const {
  if (header.has_segment_data_size) return header.segment_data_size;
  uint64_t end = 0;
  for (const SegmentExtent& s : segments) end = std::max(end, s.offset + s.size);
  return end;
}

bool HasProgramIdentifier(std::span<const uint8_t> first_bytes) {
  return pte_header::HasProgramIdentifier(first_bytes.data(), first_bytes.size());
}

Result<ExtendedHeader> ReadExtendedHeader(std::span<const uint8_t> bytes) {
  ExtendedHeader header;
  std::string problem;
  if (!pte_header::Read(bytes.data(), bytes.size(), "file", &header, &problem)) {
    return Error{problem};
  }
  return header;
}

Result<PteLayout> ReadPteLayout(std::span<const uint8_t> bytes, const fb::Program** program) {
  *program = nullptr;
  PteLayout layout;
  layout.file_size = bytes.size();
  if (bytes.empty()) return Error{"file is empty"};
  if (bytes.size() < C::kHeaderOffset) {
    return Error{"file is " + std::to_string(bytes.size()) +
                 " bytes, too small for a FlatBuffers root offset and identifier (8 bytes)"};
  }
  if (!HasProgramIdentifier(bytes)) return Error{pte_header::WrongIdentifier(bytes.data())};

  Result<ExtendedHeader> header = ReadExtendedHeader(bytes);
  if (!header.ok()) return header.error();
  layout.header = *header;
  const uint64_t file_size = bytes.size();
  if (layout.header.present) {
    const ExtendedHeader& h = layout.header;
    std::string problem;
    if (!pte_header::ProgramSize(h, file_size, "file", &layout.program_size, &problem)) {
      return Error{problem};
    }
    if (!pte_header::SegmentsFit(h, file_size, &problem)) return Error{problem};
    layout.segment_base_offset = h.segment_base_offset;
  } else {
    layout.program_size = file_size;
  }

  if (layout.program_size >= verify_bounded::kMaxBufferSize) {
    return Error{"flatbuffer of " + std::to_string(layout.program_size) + " bytes is beyond " +
                 verify_bounded::LimitText()};
  }
  if (!verify_bounded::Verify(bytes.data(), layout.program_size, fb::VerifyProgramBuffer)) {
    return Error{"the flatbuffer [0, " + std::to_string(layout.program_size) +
                 ") fails FlatBuffers verification (corrupt offsets or truncated tables)"};
  }
  const fb::Program* root = fb::GetProgram(bytes.data());

  if (const auto* segments = root->segments()) {
    for (flatbuffers::uoffset_t i = 0; i < segments->size(); ++i) {
      const fb::DataSegment* s = segments->Get(i);
      SegmentExtent extent{s->offset(), s->size(), 0};
      uint64_t end = 0;
      if (AddOverflows(extent.offset, extent.size, &end) ||
          AddOverflows(layout.segment_base_offset, extent.offset, &extent.file_offset) ||
          AddOverflows(layout.segment_base_offset, end, &end)) {
        return Error{"segment " + std::to_string(i) + ": offset " + std::to_string(extent.offset) +
                     " + size " + std::to_string(extent.size) + " overflows"};
      }
      if (extent.size > 0 && !layout.header.present) {
        return Error{"segment " + std::to_string(i) + " holds " + std::to_string(extent.size) +
                     " bytes but the file has no extended header to locate segments"};
      }
      if (extent.size > 0 && layout.segment_base_offset == 0) {
        // ExecuTorch's loader would read it from offset 0, inside the
        // flatbuffer; a rewrite's appended tables would overwrite it.
        return Error{"segment " + std::to_string(i) + " holds " + std::to_string(extent.size) +
                     " bytes but segment_base_offset is 0, which places it over the flatbuffer"};
      }
      if (extent.size > 0 && end > file_size) {
        return Error{"segment " + std::to_string(i) + " [" + std::to_string(extent.file_offset) +
                     ", " + std::to_string(end) + ") runs past the end of the file (" +
                     std::to_string(file_size) + " bytes)"};
      }
      layout.segments.push_back(extent);
    }
  }
  Status apart = CheckSegmentsApart(layout.segments);
  if (!apart.ok()) return apart.error();
  *program = root;
  return layout;
}

}  // namespace pteshare

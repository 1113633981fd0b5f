#include "rewriter/pte_layout.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "rewriter/wire.h"

namespace pteshare {
namespace {

using C = PteConstants;

std::string Printable(std::span<const uint8_t> four) {
  std::string text;
  for (uint8_t c : four) {
    if (c >= 0x20 && c < 0x7f) {
      text += static_cast<char>(c);
    } else {
      char hex[5];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      text += hex;
    }
  }
  return text;
}

// Says what a file that is not ET12 most likely is, so the user knows what
// went wrong rather than just "bad identifier".
Error WrongIdentifier(std::span<const uint8_t> bytes) {
  if (bytes.size() >= 4 && std::memcmp(bytes.data(), "PK\x03\x04", 4) == 0) {
    return Error{"not a .pte program: this is a ZIP archive (a PyTorch .pt/.pth file?)"};
  }
  std::span<const uint8_t> id = bytes.subspan(C::kIdentifierOffset, 4);
  std::string text = Printable(id);
  if (text == "BP08" || text.starts_with("BP")) {
    return Error{"not a .pte program: identifier '" + text +
                 "' is a bundled program (a test wrapper around a program); pteshare reads "
                 "ET12 programs"};
  }
  if (text.starts_with("ET")) {
    return Error{"unsupported program version: identifier '" + text +
                 "', pteshare reads ET12 programs"};
  }
  return Error{"not a .pte program: identifier '" + text + "' at byte 4, expected 'ET12'"};
}

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
  return first_bytes.size() >= C::kHeaderOffset &&
         std::memcmp(first_bytes.data() + C::kIdentifierOffset, C::kIdentifier, 4) == 0;
}

Result<ExtendedHeader> ReadExtendedHeader(std::span<const uint8_t> bytes) {
  ExtendedHeader header;
  if (bytes.size() < C::kHeaderOffset + 8 ||
      std::memcmp(bytes.data() + C::kHeaderOffset, C::kHeaderMagic, 4) != 0) {
    return header;  // no extended header: the whole file is the flatbuffer
  }
  header.present = true;
  header.length = wire::LoadU32(bytes.data() + C::kHeaderOffset + 4);
  if (header.length < C::kMinimumHeaderLength) {
    return Error{"extended header length " + std::to_string(header.length) +
                 " is less than the minimum " + std::to_string(C::kMinimumHeaderLength)};
  }
  if (header.length > bytes.size() - C::kHeaderOffset) {
    return Error{"extended header length " + std::to_string(header.length) +
                 " at offset 8 runs past the end of the " + std::to_string(bytes.size()) +
                 "-byte file"};
  }
  const uint8_t* h = bytes.data() + C::kHeaderOffset;
  header.program_size = wire::LoadU64(h + 8);
  header.segment_base_offset = wire::LoadU64(h + 16);
  if (header.length >= C::kHeaderLengthWithDataSize) {
    header.has_segment_data_size = true;
    header.segment_data_size = wire::LoadU64(h + 24);
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
  if (!HasProgramIdentifier(bytes)) return WrongIdentifier(bytes);

  Result<ExtendedHeader> header = ReadExtendedHeader(bytes);
  if (!header.ok()) return header.error();
  layout.header = *header;
  const uint64_t file_size = bytes.size();
  if (layout.header.present) {
    const ExtendedHeader& h = layout.header;
    uint64_t header_end = C::kHeaderOffset + h.length;
    if (h.program_size < header_end) {
      return Error{"extended header program_size " + std::to_string(h.program_size) +
                   " is smaller than the header itself (ends at " + std::to_string(header_end) +
                   ")"};
    }
    if (h.program_size > file_size) {
      return Error{"extended header program_size " + std::to_string(h.program_size) +
                   " is larger than the file (" + std::to_string(file_size) + " bytes)"};
    }
    if (h.segment_base_offset != 0) {
      if (h.segment_base_offset < h.program_size) {
        return Error{"extended header segment_base_offset " +
                     std::to_string(h.segment_base_offset) + " lies inside the program (" +
                     std::to_string(h.program_size) + " bytes)"};
      }
      uint64_t segments_end = 0;
      if (AddOverflows(h.segment_base_offset, h.segment_data_size, &segments_end)) {
        return Error{"segment_base_offset " + std::to_string(h.segment_base_offset) +
                     " + segment_data_size " + std::to_string(h.segment_data_size) + " overflows"};
      }
      if (segments_end > file_size) {
        return Error{"file is too small: segment_base_offset " +
                     std::to_string(h.segment_base_offset) + " + segment_data_size " +
                     std::to_string(h.segment_data_size) + " = " + std::to_string(segments_end) +
                     " bytes expected, file has " + std::to_string(file_size)};
      }
    }
    layout.program_size = h.program_size;
    layout.segment_base_offset = h.segment_base_offset;
  } else {
    layout.program_size = file_size;
  }

  // The FlatBuffers verifier refuses buffers of 2 GiB and more (and asserts
  // on them in debug builds), so say so ourselves.
  if (layout.program_size >= FLATBUFFERS_MAX_BUFFER_SIZE) {
    return Error{"flatbuffer of " + std::to_string(layout.program_size) +
                 " bytes is beyond the FlatBuffers limit of " +
                 std::to_string(FLATBUFFERS_MAX_BUFFER_SIZE) + " bytes"};
  }
  // Every table takes at least 4 bytes, so this bound never rejects a real
  // program while keeping a hostile one from making the verifier loop long.
  const auto max_tables = static_cast<flatbuffers::uoffset_t>(layout.program_size / 4 + 64);
  flatbuffers::Verifier verifier(bytes.data(), layout.program_size, /*max_depth=*/64, max_tables);
  if (!fb::VerifyProgramBuffer(verifier)) {
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

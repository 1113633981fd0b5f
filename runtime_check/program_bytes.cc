#include "runtime_check/program_bytes.h"

#include <cstring>

#include "bundle_bytes.h"

#include "runtime_check/findings.h"

namespace pteshare::runtime_check::internal {
namespace {

using C = PteConstants;

uint32_t LoadU32(const uint8_t* p) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

uint64_t LoadU64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

std::string Printable(const uint8_t* four) {
  std::string text;
  for (int i = 0; i < 4; ++i) {
    uint8_t c = four[i];
    if (c >= 0x20 && c < 0x7f) {
      text += static_cast<char>(c);
    } else {
      static const char kHex[] = "0123456789abcdef";
      text += "\\x";
      text += kHex[c >> 4];
      text += kHex[c & 15];
    }
  }
  return text;
}

// Says what a buffer that is not ET12 most likely is, so the user learns
// more than "bad identifier".
std::string WrongIdentifier(const uint8_t* bytes) {
  if (std::memcmp(bytes, "PK\x03\x04", 4) == 0) {
    return "not a .pte program: this is a ZIP archive (a PyTorch .pt/.pth file?)";
  }
  std::string id = Printable(bytes + C::kIdentifierOffset);
  if (id.compare(0, 2, "BP") == 0) {
    return "not a .pte program: identifier '" + id +
           "' is a bundled program (a test wrapper around a program), expected 'ET12'";
  }
  if (id.compare(0, 2, "ET") == 0) {
    return "unsupported program version: identifier '" + id + "', expected 'ET12'";
  }
  return "not a .pte program: identifier '" + id + "' at byte 4, expected 'ET12'";
}

// program_size from the extended header, or the whole buffer without one.
bool ProgramSize(const uint8_t* bytes, size_t size, uint64_t* program_size, std::string* problem) {
  *program_size = size;
  if (size < C::kHeaderOffset + 8 || std::memcmp(bytes + C::kHeaderOffset, "eh00", 4) != 0) {
    return true;  // no extended header: the whole buffer is the flatbuffer
  }
  const uint8_t* header = bytes + C::kHeaderOffset;
  const uint32_t length = LoadU32(header + 4);
  if (length < C::kMinimumHeaderLength) {
    *problem = "extended header length " + std::to_string(length) + " is less than the minimum " +
               std::to_string(C::kMinimumHeaderLength);
    return false;
  }
  if (length > size - C::kHeaderOffset) {
    *problem = "extended header length " + std::to_string(length) +
               " at byte 8 runs past the end of the " + std::to_string(size) + "-byte buffer";
    return false;
  }
  const uint64_t header_end = C::kHeaderOffset + length;
  const uint64_t stated = LoadU64(header + C::kProgramSizeOffset);
  if (stated < header_end) {
    *problem = "extended header program_size " + std::to_string(stated) +
               " is smaller than the header itself (ends at byte " + std::to_string(header_end) +
               ")";
    return false;
  }
  if (stated > size) {
    *problem = "extended header program_size " + std::to_string(stated) +
               " is larger than the buffer (" + std::to_string(size) + " bytes)";
    return false;
  }
  *program_size = stated;
  return true;
}

// The ET12 program [bytes, bytes + size) (a bundle is not accepted here, so
// bundles nested in bundles cannot make LocateProgram recurse).
const fb::Program* LocatePlainProgram(const uint8_t* bytes, size_t size, std::string* problem);

}  // namespace

const fb::Program* LocateProgram(const void* data, size_t size, std::string* problem) {
  const auto* bytes = static_cast<const uint8_t*>(data);
  // A bundled program (.bpte): the program it holds is what a loader runs
  // (after the bundle's own flatbuffer is verified, bundle_bytes.h).
  if (bytes != nullptr && bundle::HasBundleIdentifier(bytes, size) &&
      reinterpret_cast<uintptr_t>(bytes) % C::kRequiredAlignment == 0) {
    bundle::BundleContents contents;
    if (!bundle::LocateBundledProgram(bytes, size, &contents, problem)) return nullptr;
    const fb::Program* inner =
        LocatePlainProgram(bytes + contents.program_offset, contents.program_size, problem);
    if (inner == nullptr) *problem = "the program inside the bundle: " + *problem;
    return inner;
  }
  return LocatePlainProgram(bytes, size, problem);
}

namespace {

const fb::Program* LocatePlainProgram(const uint8_t* bytes, size_t size, std::string* problem) {
  if (bytes == nullptr || size == 0) {
    *problem = "the buffer is empty";
    return nullptr;
  }
  if (reinterpret_cast<uintptr_t>(bytes) % C::kRequiredAlignment != 0) {
    *problem = "the buffer at address " + Hex(reinterpret_cast<uintptr_t>(bytes)) + " is not " +
               std::to_string(C::kRequiredAlignment) +
               "-byte aligned (pass memory from mmap or operator new)";
    return nullptr;
  }
  if (size < C::kHeaderOffset) {
    *problem = "the buffer is " + std::to_string(size) +
               " bytes, too small for a FlatBuffers root offset and identifier (8 bytes)";
    return nullptr;
  }
  if (std::memcmp(bytes + C::kIdentifierOffset, fb::ProgramIdentifier(), 4) != 0) {
    *problem = WrongIdentifier(bytes);
    return nullptr;
  }
  uint64_t program_size = 0;
  if (!ProgramSize(bytes, size, &program_size, problem)) return nullptr;

  // The FlatBuffers verifier refuses (and asserts on) buffers of 2 GiB and
  // more, so say so ourselves.
  if (program_size >= FLATBUFFERS_MAX_BUFFER_SIZE) {
    *problem = "flatbuffer of " + std::to_string(program_size) +
               " bytes is beyond the FlatBuffers limit of " +
               std::to_string(FLATBUFFERS_MAX_BUFFER_SIZE) + " bytes";
    return nullptr;
  }
  // Each table visit needs its own 4-byte offset slot (tables shared by
  // several Tensors are leaves), so size / 4 visits is all a real program
  // can need; the bound keeps a hostile one from making the verifier run
  // for long.
  const auto max_tables = static_cast<flatbuffers::uoffset_t>(program_size / 4 + 64);
  flatbuffers::Verifier verifier(bytes, static_cast<size_t>(program_size), /*max_depth=*/64,
                                 max_tables);
  if (!fb::VerifyProgramBuffer(verifier)) {
    *problem = "the flatbuffer [0, " + std::to_string(program_size) +
               ") fails FlatBuffers verification (corrupt offsets or truncated tables)";
    return nullptr;
  }
  return fb::GetProgram(bytes);
}

}  // namespace
}  // namespace pteshare::runtime_check::internal

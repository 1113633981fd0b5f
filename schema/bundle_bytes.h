// Where the program lies inside a bundled program (.bpte, identifier BP08),
// found only after the bundle's own flatbuffer has been verified, so no
// offset of a hostile bundle is trusted. Shared by rewriter/ and
// runtime_check/ because both must find the same bytes; what they do with
// them stays their own (C++17, header-only, no exceptions).
//
//   [0, 4)   root table offset (uint32 LE)
//   [4, 8)   identifier "BP08"
//   the root BundledProgram: version, method_test_suites, program, where
//   program is a [ubyte] vector holding a whole .pte (flatbuffer and
//   segments), aligned to 32 by the schema.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "bundle_header.h"
#include "bundled_program_generated.h"
#include "verify_bounded.h"

namespace pteshare::bundle {

/// A verified bundle and the place of its program, as offsets from the
/// bundle's first byte.
struct BundleContents {
  const BundledProgram* root = nullptr;
  size_t program_offset = 0;
  size_t program_size = 0;
  size_t test_suites = 0;
  size_t test_cases = 0;  // over all suites
};

/// Verifies the bundle [bytes, bytes + size) and finds its program. On
/// failure returns false with `*problem` saying what is wrong and with which
/// numbers (one line, no file name).
inline bool LocateBundledProgram(const uint8_t* bytes, size_t size, BundleContents* out,
                                 std::string* problem) {
  if (!HasBundleIdentifier(bytes, size)) {
    *problem = "not a bundled program: identifier at byte 4 is not 'BP08'";
    return false;
  }
  if (size >= verify_bounded::kMaxBufferSize) {
    *problem = "bundled program of " + std::to_string(size) + " bytes is beyond " +
               verify_bounded::LimitText();
    return false;
  }
  if (!verify_bounded::Verify(bytes, size, VerifyBundledProgramBuffer)) {
    *problem = "bundled program: the bundle's flatbuffer [0, " + std::to_string(size) +
               ") fails FlatBuffers verification (corrupt offsets or truncated tables)";
    return false;
  }
  const BundledProgram* root = GetBundledProgram(bytes);
  const flatbuffers::Vector<uint8_t>* program = root->program();
  if (program == nullptr || program->size() == 0) {
    *problem = "bundled program: it holds no program bytes";
    return false;
  }
  const size_t offset = static_cast<size_t>(program->data() - bytes);
  if (offset % BundleConstants::kProgramAlignment != 0) {
    *problem = "bundled program: the program bytes start at offset " + std::to_string(offset) +
               ", not a multiple of " + std::to_string(BundleConstants::kProgramAlignment) +
               " as the schema aligns them";
    return false;
  }
  out->root = root;
  out->program_offset = offset;
  out->program_size = program->size();
  out->test_suites = 0;
  out->test_cases = 0;
  if (const auto* suites = root->method_test_suites()) {
    out->test_suites = suites->size();
    for (flatbuffers::uoffset_t i = 0; i < suites->size(); ++i) {
      if (const auto* cases = suites->Get(i)->test_cases()) out->test_cases += cases->size();
    }
  }
  return true;
}

}  // namespace pteshare::bundle

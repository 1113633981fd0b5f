#include "rewriter/program/bundle.h"

#include <string>

#include "bundle_bytes.h"

namespace pteshare {

bool IsBundle(std::span<const uint8_t> first_bytes) {
  return bundle::HasBundleIdentifier(first_bytes.data(), first_bytes.size());
}

Result<BundleInfo> ReadBundle(std::span<const uint8_t> bytes) {
  bundle::BundleContents contents;
  std::string problem;
  if (!bundle::LocateBundledProgram(bytes.data(), bytes.size(), &contents, &problem)) {
    return Error{problem};
  }
  BundleInfo info;
  info.file_size = bytes.size();
  info.program_offset = contents.program_offset;
  info.program_size = contents.program_size;
  info.version = contents.root->version();
  info.test_suites = contents.test_suites;
  info.test_cases = contents.test_cases;
  return info;
}

}  // namespace pteshare

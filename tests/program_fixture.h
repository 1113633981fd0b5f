// LoadedProgram: built .pte bytes kept alive together with the ProgramView
// that points into them, for tests that plan or check in memory.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "rewriter/program_view.h"
#include "rewriter/pte_layout.h"
#include "tools/synth/fixed_layout.h"
#include "tools/synth/program_builder.h"

namespace pteshare::testing {

struct LoadedProgram {
  std::vector<uint8_t> bytes;
  ProgramView view;
};

/// Reads `bytes` through the real reader; fails the test on error.
inline std::unique_ptr<LoadedProgram> Load(std::vector<uint8_t> bytes) {
  auto loaded = std::make_unique<LoadedProgram>();
  loaded->bytes = std::move(bytes);
  const fb::Program* program = nullptr;
  Result<PteLayout> layout = ReadPteLayout(loaded->bytes, &program);
  EXPECT_TRUE(layout.ok()) << layout.error().message;
  if (!layout.ok()) return nullptr;
  Result<ProgramView> view = ReadProgramView(*program, *layout);
  EXPECT_TRUE(view.ok()) << view.error().message;
  if (!view.ok()) return nullptr;
  loaded->view = std::move(view).value();
  return loaded;
}

inline std::unique_ptr<LoadedProgram> Load(const builder::ProgramSpec& spec) {
  Result<std::vector<uint8_t>> bytes = builder::BuildProgram(spec);
  EXPECT_TRUE(bytes.ok()) << bytes.error().message;
  if (!bytes.ok()) return nullptr;
  return Load(std::move(bytes).value());
}

inline std::unique_ptr<LoadedProgram> Load(const std::vector<builder::FixedMethod>& methods) {
  return Load(builder::FixedLayoutSpec(methods));
}

/// Writes `spec` as `dir/name` with the builder's defaults; the path.
inline std::string WriteProgram(const std::filesystem::path& dir, const builder::ProgramSpec& spec,
                                const std::string& name) {
  std::filesystem::path path = dir / name;
  Result<builder::PteLayout> written = builder::WritePteFile(spec, {}, path);
  EXPECT_TRUE(written.ok()) << written.error().message;
  return path.string();
}

}  // namespace pteshare::testing

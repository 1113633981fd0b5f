#include "rewriter/bundle/bundle_writer.h"

#include <algorithm>
#include <string>
#include <vector>

#include "rewriter/bundle/bundle_builder.h"
#include "rewriter/io/file_io.h"
#include "rewriter/io/file_system.h"
#include "rewriter/patch/patched_bytes.h"
#include "rewriter/patch/rewrite_check.h"
#include "rewriter/program/bundle.h"
#include "rewriter/write/new_file.h"

namespace pteshare {

Result<RewrittenBundle> RewriteBundleInMemory(const PteFile& input, const PatchSet& patch) {
  if (!input.bundle()) return Error{"is not a bundled program"};
  const std::span<const uint8_t> old_bundle = input.bundle_bytes();
  Result<std::vector<uint8_t>> program = ApplyPatchInMemory(input.bytes(), patch);
  if (!program.ok()) return program.error();
  // Nothing to change: the bundle's bytes as they are (a second rewrite of
  // a rewritten bundle changes no byte).
  Result<std::vector<uint8_t>> bundle =
      patch.empty()
          ? Result<std::vector<uint8_t>>(std::vector<uint8_t>(old_bundle.begin(), old_bundle.end()))
          : RebuildBundle(old_bundle, *program);
  if (!bundle.ok()) return bundle.error();
  return RewrittenBundle{std::move(program).value(), std::move(bundle).value()};
}

Status CheckRewrittenBundle(std::span<const uint8_t> written, const PteFile& input,
                            const RewrittenBundle& expected, const PatchSet& patch,
                            const Plan& plan) {
  Result<BundleInfo> info = ReadBundle(written);
  if (!info.ok()) return info.error();
  const std::span<const uint8_t> inner = ProgramInBundle(written, *info);
  if (!std::equal(inner.begin(), inner.end(), expected.program.begin(), expected.program.end())) {
    return Error{"the program in the new bundle is not the rewritten program"};
  }
  Status checked = CheckRewrittenFile(inner, input.layout(), patch, plan);
  if (!checked.ok()) return checked;
  return CheckTestCasesKept(input.bundle_bytes(), written);
}

Result<uint64_t> WriteRewrittenBundle(const PteFile& input, int source_fd, const PatchSet& patch,
                                      const Plan& plan, const std::filesystem::path& out,
                                      const WriteOptions& options) {
  Result<RewrittenBundle> rewritten = RewriteBundleInMemory(input, patch);
  if (!rewritten.ok()) return rewritten.error();
  const std::vector<uint8_t>& bundle = rewritten->bundle;
  NewFileSteps steps;
  FileSystem& files = OrReal(options.file_system);
  steps.fill = [&](int fd) { return files.WriteAt(fd, 0, bundle); };
  steps.check = [&](int fd) -> Status {
    Result<ReadOnlyMapping> mapping = files.Map(fd);
    if (!mapping.ok()) return mapping.error();
    return CheckRewrittenBundle(mapping->bytes(), input, *rewritten, patch, plan);
  };
  steps.say = [&](const std::string& line) {
    if (options.progress && options.verbose) options.progress(line);
  };
  if (options.progress && options.verbose) {
    options.progress("bundled program: the program inside rewritten (" +
                     std::to_string(input.bytes().size()) + " -> " +
                     std::to_string(rewritten->program.size()) +
                     " bytes), the bundle serialised again");
  }
  Status written = WriteNewFile(out, source_fd, steps, files);
  if (!written.ok()) return written.error();
  return static_cast<uint64_t>(bundle.size());
}

}  // namespace pteshare

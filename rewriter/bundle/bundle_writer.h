// BundleWriter: `rewrite` of a bundled program (.bpte). The program inside
// is patched in memory with the PatchSet that `rewrite` makes for the
// program on its own (patched_bytes.h), so the new bundle's program is
// byte for byte what rewriting the extracted program gives; the bundle is
// serialised again around it with the test cases kept (bundle_builder.h)
// and written as a new file with the safety of `-o` (new_file.h). That is
// also the --in-place path for a bundle: a bundle is one flatbuffer, which
// cannot grow in place, so the new file is renamed over the old one.
// Before the new file may stand it is re-read: the bundle verified, its
// program equal to the expected bytes and checked against the plan
// (rewrite_check.h), every test case the same.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <vector>

#include "rewriter/base/result.h"
#include "rewriter/patch/patcher.h"
#include "rewriter/plan/plan.h"
#include "rewriter/program/pte_file.h"
#include "rewriter/write/writer.h"

namespace pteshare {

/// The new bundle's bytes and its program's (what WriteRewrittenBundle
/// writes): `input`'s bundle with its program rewritten by `patch`; an
/// empty patch gives the bundle as it is.
struct RewrittenBundle {
  std::vector<uint8_t> program;
  std::vector<uint8_t> bundle;
};
Result<RewrittenBundle> RewriteBundleInMemory(const PteFile& input, const PatchSet& patch);

/// Checks a written bundle as the writer does before it may stand: the
/// bundle verified, its program equal to `expected.program` and checked
/// against `plan`, every test case of the input's bundle the same.
Status CheckRewrittenBundle(std::span<const uint8_t> written, const PteFile& input,
                            const RewrittenBundle& expected, const PatchSet& patch,
                            const Plan& plan);

/// Writes to `out` (may be the input itself) `input`'s bundle with its
/// program rewritten by `patch`; an empty patch copies the bundle as it is.
/// `input` must be a bundle's program (PteFile::bundle() set); `source_fd`
/// is the input file, whose mode a new name gets. Returns the new bundle's
/// size.
Result<uint64_t> WriteRewrittenBundle(const PteFile& input, int source_fd, const PatchSet& patch,
                                      const Plan& plan, const std::filesystem::path& out,
                                      const WriteOptions& options = {});

}  // namespace pteshare

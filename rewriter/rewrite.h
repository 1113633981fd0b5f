// The rewrite pipeline, as a library: what `pteshare rewrite` does, step by
// step, for any front end (the CLI, the Python module, a build tool).
//
//   lock -> recover -> open -> plan -> verify -> patch -> write -> re-read
//
// RewriteFile runs it on a file: with --in-place or an output that is the
// input itself it takes the writer lock first (writer_lock.h) and rolls
// back an interrupted rewrite (journal.h), and holds it until the file is
// written (threads of one process exclude each other too). RewriteBytes runs the same steps
// on bytes in memory (the buffer an export script holds after
// `to_executorch()`) and returns the rewritten file's bytes, identical to
// what RewriteFile writes with -o for the same input and options.
// PlanAndVerify is the planning half alone (`pteshare plan`, `plot`).
//
// Nothing here prints. Errors carry a kind (result.h): kBadInput for bad
// options or input, kNoValidPlan when no plan fits a limit, verifies or can
// be patched in, kIo when writing failed (the input is then as it was,
// unless the message says the result is in place and only the fsync of its
// folder failed).
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "rewriter/base/result.h"
#include "rewriter/open_program.h"
#include "rewriter/patch/patcher.h"
#include "rewriter/plan/planner.h"
#include "rewriter/plan/saving.h"
#include "rewriter/verify/layout_costs.h"
#include "rewriter/verify/plan_verifier.h"

namespace pteshare {

// io/file_system.h: only a pointer here, so the installed headers need not
// carry the seam (a front end passes null).
class FileSystem;

/// A plan and what its verification found. An empty `violations` is a
/// plan that may be written; otherwise it is a pteshare bug, shown by
/// `pteshare plan` and refused by every writer.
struct VerifiedPlan {
  PlanResult planned;
  std::vector<PlanViolation> violations;
  /// With PlanOptions::compare_layouts: both layouts' memory, front first.
  std::vector<LayoutCost> layouts{};
  /// What the plan gives the user (saving.h): the first line of every
  /// report. Unset (kUnchanged, zero bytes) when the plan does not fit.
  PlanSaving saving{};

  bool verified() const { return violations.empty(); }
  /// False when the plan misses an --arena-limit (Plan::limit_misses); it
  /// is then not verified either, and no writer takes it.
  bool fits() const { return planned.plan.limit_misses.empty(); }
};

/// Plans `view` for `share` and verifies the plan. With replan or best,
/// sharing nothing is allowed (the arenas are just replanned); with
/// relocate it is an error. A plan that misses an --arena-limit is
/// returned unverified with fits() false (a picture can still show it);
/// LimitMisses says why.
Result<VerifiedPlan> PlanAndVerify(const ProgramView& view, ShareRequest share,
                                   const PlanOptions& options);

/// "no plan fits --arena-limit: ..." naming every miss (kNoValidPlan).
Error LimitMisses(const Plan& plan);

/// The error a writer gives for a plan with violations (kNoValidPlan).
Error RefusedPlan(const std::vector<PlanViolation>& violations);

/// Which names a rewrite stores in the program (`--write-names`,
/// name_patch.h): each shared buffer's name, in its tensor's
/// extra_tensor_info. A pair of unnamed state that no naming named is
/// called paired_state.K (shared_buffers.h), a name that says only its
/// position: written into the file, it would look like the model's own, so
/// it is refused unless asked for.
enum class WriteNames {
  kNo,                 // store no name
  kGiven,              // the names given (--name, --names-from); a made-up one is an error
  kGivenAndPositions,  // also paired_state.K (--write-names --allow-position-names)
};

/// What to rewrite and how (the CLI's flags, parsed).
struct RewriteRequest {
  std::filesystem::path input;
  /// The file to write (a file name, not a folder); empty with in_place.
  std::filesystem::path output;
  bool in_place = false;
  ShareRequest share;
  PlanOptions options;
  /// Store each shared buffer's name in its tensor (name_patch.h).
  WriteNames write_names = WriteNames::kNo;
  /// Lines a user should see as they happen: waiting for another writer, a
  /// rollback of an interrupted rewrite, a long segment move, and with
  /// `verbose` every step of the writer. May be empty.
  std::function<void(const std::string&)> say;
  bool verbose = false;
  /// What the writer (its lock, journal, new file and writes) goes
  /// through: null is the real file system; tests pass one that fails a
  /// chosen call (file_system.h). Reading the program stays real.
  FileSystem* file_system = nullptr;
};

/// What a rewrite did.
struct RewriteOutcome {
  /// The input as read and planned. RewriteBytes: it points into the input
  /// bytes, so it is valid while they are.
  OpenedProgram program;
  VerifiedPlan plan;  // verified
  PatchSet patch;     // empty: already planned, nothing written
  /// A bundle's size after the rewrite (its program's sizes are in patch).
  uint64_t bundle_size_after = 0;
  /// RewriteBytes only: the rewritten file (a bundle for a bundle).
  std::vector<uint8_t> bytes{};

  bool changed() const { return !patch.empty(); }
};

/// Rewrites `request.input` to `request.output`, or in place.
Result<RewriteOutcome> RewriteFile(const RewriteRequest& request);

/// Rewrites the program (or bundle) `input` in memory. The outcome's
/// program points into `input`; its bytes are the rewritten file.
Result<RewriteOutcome> RewriteBytes(std::span<const uint8_t> input, const ShareRequest& share,
                                    const PlanOptions& options,
                                    WriteNames write_names = WriteNames::kNo);

/// Memory for the rewritten file, from the caller: called once, after
/// planning, with the file's size; returns exactly that many bytes, which
/// need not be initialised (every byte is written), or an error, which the
/// rewrite returns as it is.
using OutputMemory = std::function<Result<std::span<uint8_t>>(uint64_t size)>;

/// RewriteBytes, the rewritten file written straight into the memory
/// `allocate` gives, and checked there (the outcome's bytes stay empty):
/// a front end that returns the bytes in an object of its own (a Python
/// bytes object) makes them once, with no copy and no zero-fill. A program
/// is patched into that memory directly (ApplyPatchInto); a bundle is
/// serialised again first (bundle_builder.h) and copied in. The same bytes
/// as RewriteBytes, and as RewriteFile with -o.
Result<RewriteOutcome> RewriteBytesInto(std::span<const uint8_t> input, const ShareRequest& share,
                                        const PlanOptions& options, WriteNames write_names,
                                        const OutputMemory& allocate);

}  // namespace pteshare

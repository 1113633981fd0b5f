#include "rewriter/rewrite.h"

#include <fcntl.h>

#include <algorithm>
#include <optional>
#include <utility>

#include "rewriter/bundle/bundle_writer.h"
#include "rewriter/io/file_io.h"
#include "rewriter/io/file_system.h"
#include "rewriter/patch/name_patch.h"
#include "rewriter/patch/patched_bytes.h"
#include "rewriter/patch/rewrite_check.h"
#include "rewriter/plan/input_lifetimes.h"
#include "rewriter/write/journal.h"
#include "rewriter/write/writer.h"
#include "rewriter/write/writer_lock.h"

namespace pteshare {
namespace {
namespace fs = std::filesystem;

Error WithKind(Error error, ErrorKind kind) {
  error.kind = kind;
  return error;
}

void Say(const RewriteRequest& request, const std::string& line) {
  if (request.say) request.say(line);
}

// Takes the writer lock and rolls back an interrupted rewrite first.
Result<WriterLock> LockForWriting(const RewriteRequest& request) {
  Result<WriterLock> lock = WriterLock::Acquire(
      request.input,
      [&] { Say(request, "another pteshare is writing this file; waiting for it to finish"); },
      OrReal(request.file_system));
  if (!lock.ok()) return lock.error();
  Result<Recovery> recovery = RecoverLocked(*lock);
  if (!recovery.ok()) return recovery.error();
  if (*recovery == Recovery::kRolledBack) {
    Say(request, "rolled back an interrupted rewrite (journal " +
                     JournalPath(lock->path()).string() + ") before rewriting");
  }
  return lock;
}

// The plan and its patch, from an opened program: the steps both
// RewriteFile and RewriteBytes take before anything is written.
struct PatchedPlan {
  VerifiedPlan plan;
  PatchSet patch;
};

// WriteNames::kGiven: the first and last made-up name that would be
// written, and how to give real ones instead.
Status RefuseMadeUpNames(const ProgramView& view, const SharedBufferSet& shared) {
  std::vector<const StatePairing*> made_up;
  for (const StatePairing& pairing : shared.pairings) {
    if (pairing.position_name) made_up.push_back(&pairing);
  }
  if (made_up.empty()) return Status::Ok();
  std::string methods;
  for (const auto& [method, value] : made_up.front()->values) {
    methods += (methods.empty() ? "" : "/") + view.methods[method].name;
  }
  const std::string names = made_up.size() == 1 ? made_up.front()->name + " is a position"
                                                : made_up.front()->name + " to " +
                                                      made_up.back()->name + " are positions";
  return Error{"--write-names would store made-up names: " + names + " in the unnamed state of " +
               methods +
               ", not the model's names; give the real ones with --names-from FILE (a "
               "line each like " +
               made_up.front()->name + "=layers.0.k_cache) or --name " + made_up.front()->name +
               "=NAME, or add --allow-position-names to store the "
               "positions as names"};
}

Result<PatchedPlan> PlanAndPatch(const OpenedProgram& program, const ShareRequest& share,
                                 const PlanOptions& options, WriteNames write_names) {
  Result<VerifiedPlan> plan = PlanAndVerify(program.view, share, options);
  if (!plan.ok()) return plan.error();
  if (!plan->fits()) return LimitMisses(plan->planned.plan);
  if (!plan->verified()) return RefusedPlan(plan->violations);
  const SharedBufferSet& shared = plan->planned.shared;
  if (write_names == WriteNames::kGiven) {
    if (Status refused = RefuseMadeUpNames(program.view, shared); !refused.ok()) {
      return refused.error();
    }
  }
  const std::vector<TensorName> names = write_names != WriteNames::kNo
                                            ? NamesToWrite(program.view, shared)
                                            : std::vector<TensorName>{};
  Result<PatchSet> patch =
      MakePatchSet(program.file.bytes(), program.view, plan->planned.plan, names);
  if (!patch.ok()) {
    // Its kind says whose fault: the file's objects overlap what the plan
    // must change (bad input, exit 2), or the plan cannot be patched in.
    return Error{"cannot patch the plan into the file: " + patch.error().message,
                 patch.error().kind};
  }
  return PatchedPlan{std::move(plan).value(), std::move(patch).value()};
}

// A bundle is written as a new file in both modes (bundle_writer.h);
// returns its size.
Result<uint64_t> WriteBundle(const RewriteRequest& request, const std::optional<WriterLock>& lock,
                             const OpenedProgram& program, const PatchSet& patch, const Plan& plan,
                             const WriteOptions& options) {
  if (request.in_place && patch.empty()) return program.file.bundle()->file_size;
  std::optional<UniqueFd> source;
  if (!lock) {
    Result<UniqueFd> opened = OrReal(request.file_system).OpenChecked(request.input, O_RDONLY);
    if (!opened.ok()) return opened.error();
    source.emplace(std::move(opened).value());
  }
  const fs::path out = request.in_place ? lock->path() : request.output;
  return WriteRewrittenBundle(program.file, lock ? lock->fd() : source->get(), patch, plan, out,
                              options);
}

// Writes the patch; returns the bundle's new size for a bundle, else 0.
Result<uint64_t> Write(const RewriteRequest& request, const std::optional<WriterLock>& lock,
                       const OpenedProgram& program, const PatchSet& patch, const Plan& plan) {
  WriteOptions options;
  options.verbose = request.verbose;
  options.progress = request.say;
  options.file_system = request.file_system;
  if (program.file.bundle()) return WriteBundle(request, lock, program, patch, plan, options);
  const PteLayout& before = program.file.layout();
  Status written = Status::Ok();
  if (patch.empty()) {
    // Already planned: nothing to write in place or over the input itself.
    if (request.in_place || lock) return 0;
  }
  if (request.in_place) {
    written = WritePatchedInPlace(*lock, before, patch, plan, options);
  } else if (lock) {  // OUT is the input: a copy renamed over it
    written = WritePatchedCopy(lock->fd(), before, patch, plan, request.output, options);
  } else {
    Result<UniqueFd> source = OrReal(request.file_system).OpenChecked(request.input, O_RDONLY);
    if (!source.ok()) return source.error();
    written = WritePatchedCopy(source->get(), before, patch, plan, request.output, options);
  }
  if (!written.ok()) return written.error();
  return 0;
}

// The rewritten program, patched into the memory `allocate` gives and
// re-read there as the writer re-reads a file before it may stand; 0.
Result<uint64_t> ProgramInto(const PteFile& input, const PatchSet& patch, const Plan& plan,
                             const OutputMemory& allocate) {
  Result<std::span<uint8_t>> out = allocate(patch.new_file_size);
  if (!out.ok()) return out.error();
  Status applied = ApplyPatchInto(input.bytes(), patch, *out);
  if (!applied.ok()) return WithKind(applied.error(), ErrorKind::kNoValidPlan);
  Status checked = CheckRewrittenFile(*out, input.layout(), patch, plan);
  if (!checked.ok()) return WithKind(checked.error(), ErrorKind::kNoValidPlan);
  return 0;
}

// The rewritten bundle: serialised around its rewritten program
// (FlatBufferBuilder has a buffer of its own), copied into the memory
// `allocate` gives and checked there; returns its size.
Result<uint64_t> BundleInto(const PteFile& input, const PatchSet& patch, const Plan& plan,
                            const OutputMemory& allocate) {
  Result<RewrittenBundle> rewritten = RewriteBundleInMemory(input, patch);
  if (!rewritten.ok()) return WithKind(rewritten.error(), ErrorKind::kNoValidPlan);
  const std::vector<uint8_t>& bundle = rewritten->bundle;
  Result<std::span<uint8_t>> out = allocate(bundle.size());
  if (!out.ok()) return out.error();
  if (out->size() != bundle.size()) {
    return Error{"the output holds " + std::to_string(out->size()) +
                     " bytes, the rewritten bundle has " + std::to_string(bundle.size()),
                 ErrorKind::kNoValidPlan};
  }
  std::copy(bundle.begin(), bundle.end(), out->begin());
  Status checked = CheckRewrittenBundle(*out, input, *rewritten, patch, plan);
  if (!checked.ok()) return WithKind(checked.error(), ErrorKind::kNoValidPlan);
  return static_cast<uint64_t>(bundle.size());
}

}  // namespace

Error LimitMisses(const Plan& plan) {
  std::string misses;  // one line, however many methods miss
  for (const std::string& miss : plan.limit_misses) misses += (misses.empty() ? "" : "; ") + miss;
  return Error{"no plan fits --arena-limit: " + misses, ErrorKind::kNoValidPlan};
}

Error RefusedPlan(const std::vector<PlanViolation>& violations) {
  std::string message =
      "refusing the plan: " + std::to_string(violations.size()) +
      " invariant violation(s) (first: " + InvariantName(violations.front().invariant) + ": " +
      violations.front().message + "); this is a pteshare bug, please report it with the file";
  return Error{message, ErrorKind::kNoValidPlan};
}

Result<VerifiedPlan> PlanAndVerify(const ProgramView& view, ShareRequest share,
                                   const PlanOptions& options) {
  // Replanning alone shrinks arenas: sharing nothing is a valid request.
  share.allow_none = options.strategy != Strategy::kRelocate;
  // Each method's lifetimes are computed once, for replan and for the
  // verifier (input_lifetimes.h says why that keeps the verifier
  // independent), and for the other layout's plan and verification.
  InputLifetimes lifetimes(view);
  Result<PlanResult> planned = MakePlan(view, share, options, &lifetimes);
  if (!planned.ok()) return planned.error();
  VerifiedPlan verified;
  if (!planned->plan.limit_misses.empty()) {
    verified.planned = std::move(planned).value();
    return verified;  // no saving: nothing fits
  }
  verified.violations = VerifyPlan(view, planned->shared, planned->plan, &lifetimes);
  if (options.compare_layouts) {
    verified.layouts =
        CompareLayouts(view, share, options, *planned, verified.violations, &lifetimes);
  }
  verified.planned = std::move(planned).value();
  verified.saving = DescribeSaving(
      view, verified.planned, PlanChangesProgram(verified.planned.plan), share.chooses_buffers());
  return verified;
}

Result<RewriteOutcome> RewriteFile(const RewriteRequest& request) {
  if (request.in_place == !request.output.empty()) {
    return Error{"give exactly one of an output file and in place"};
  }
  std::error_code ec;
  const bool out_is_input = !request.in_place && fs::exists(request.output, ec) &&
                            fs::equivalent(request.input, request.output, ec);
  // Held from before the program is read until it is written.
  std::optional<WriterLock> lock;
  if (request.in_place || out_is_input) {
    Result<WriterLock> locked = LockForWriting(request);
    if (!locked.ok()) return locked.error();
    lock.emplace(std::move(locked).value());
  }
  Result<OpenedProgram> program = lock ? OpenLockedProgram(*lock) : OpenProgram(request.input);
  if (!program.ok()) return program.error();
  if (!program->notice.empty()) Say(request, program->notice);

  Result<PatchedPlan> patched =
      PlanAndPatch(*program, request.share, request.options, request.write_names);
  if (!patched.ok()) return patched.error();
  Result<uint64_t> bundle_size =
      Write(request, lock, *program, patched->patch, patched->plan.planned.plan);
  if (!bundle_size.ok()) return WithKind(bundle_size.error(), ErrorKind::kIo);

  RewriteOutcome outcome{std::move(program).value(), std::move(patched->plan),
                         std::move(patched->patch)};
  outcome.bundle_size_after = *bundle_size;
  return outcome;
}

Result<RewriteOutcome> RewriteBytesInto(std::span<const uint8_t> input, const ShareRequest& share,
                                        const PlanOptions& options, WriteNames write_names,
                                        const OutputMemory& allocate) {
  Result<OpenedProgram> program = OpenProgramBytes(input);
  if (!program.ok()) return program.error();
  Result<PatchedPlan> patched = PlanAndPatch(*program, share, options, write_names);
  if (!patched.ok()) return patched.error();
  const PatchSet& patch = patched->patch;
  const Plan& plan = patched->plan.planned.plan;
  Result<uint64_t> bundle_size = program->file.bundle()
                                     ? BundleInto(program->file, patch, plan, allocate)
                                     : ProgramInto(program->file, patch, plan, allocate);
  if (!bundle_size.ok()) return bundle_size.error();
  RewriteOutcome outcome{std::move(program).value(), std::move(patched->plan),
                         std::move(patched->patch)};
  outcome.bundle_size_after = *bundle_size;
  return outcome;
}

Result<RewriteOutcome> RewriteBytes(std::span<const uint8_t> input, const ShareRequest& share,
                                    const PlanOptions& options, WriteNames write_names) {
  std::vector<uint8_t> bytes;
  Result<RewriteOutcome> outcome = RewriteBytesInto(
      input, share, options, write_names, [&](uint64_t size) -> Result<std::span<uint8_t>> {
        bytes.resize(size);
        return std::span<uint8_t>(bytes);
      });
  if (outcome.ok()) outcome->bytes = std::move(bytes);
  return outcome;
}

}  // namespace pteshare

// `pteshare rewrite FILE (-o OUT | --in-place) --share ... [--json]`: plans
// like `pteshare plan`, and only if the plan verifies, patches the
// allocation info (Patcher) and writes it crash-safely (Writer): -o through
// a temporary file and rename; --in-place under the writer lock with a
// rollback journal. A second identical run finds nothing to change.
#include <fcntl.h>

#include <chrono>
#include <cstdio>
#include <optional>

#include "rewriter/file_io.h"
#include "rewriter/journal.h"
#include "rewriter/patcher.h"
#include "rewriter/writer.h"
#include "rewriter/writer_lock.h"
#include "tools/pteshare/command_registry.h"
#include "tools/pteshare/open_input.h"
#include "tools/pteshare/output.h"
#include "tools/pteshare/plan_report.h"

namespace pteshare::cli {
namespace {
namespace fs = std::filesystem;

struct RewriteArgs {
  std::string file;
  std::string out;
  bool in_place = false;
  ShareOptions share;
  PlanningOptions planning;
  bool verbose = false;
  bool json = false;
};

size_t SharedCount(const Plan& plan) {
  size_t n = 0;
  for (const FrontRegion& f : plan.fronts) n += f.slots.size();
  return n;
}

size_t MovedCount(const Plan& plan) {
  size_t n = 0;
  for (const MethodPlan& m : plan.methods) {
    for (const TensorMove& move : m.moves) n += move.moved() ? 1 : 0;
  }
  return n;
}

// "model.pte -> out.pte" or "model.pte (in place)".
std::string Target(const RewriteArgs& args) {
  return args.in_place ? args.file + " (in place)" : args.file + " -> " + args.out;
}

void PrintSummary(const RewriteArgs& args, const Plan& plan, const PatchSet& patch) {
  if (patch.empty()) {
    std::printf("%s: already planned, no change\n", Target(args).c_str());
    return;
  }
  const size_t shared = SharedCount(plan), moved = MovedCount(plan);
  std::string segments = patch.segments_move()
                             ? "segments moved up by " + Grouped(patch.segment_shift()) + " bytes"
                             : "segments not moved";
  std::printf("%s: %zu shared buffer%s front-packed, %s tensor%s moved, %s bytes appended, %s\n",
              Target(args).c_str(), shared, shared == 1 ? "" : "s", Grouped(moved).c_str(),
              moved == 1 ? "" : "s", Grouped(patch.appended.size()).c_str(), segments.c_str());
}

void PrintJson(const RewriteArgs& args, const ProgramView& view, const PlanOutcome& outcome,
               const PatchSet& patch) {
  const Plan& plan = outcome.input->plan;
  JsonWriter json;
  json.BeginObject().Field("file", args.file);
  json.Key("output");
  if (args.in_place) {
    json.Null();
  } else {
    json.String(args.out);
  }
  json.Field("in_place", args.in_place)
      .Field("changed", !patch.empty())
      .Field("shared_buffers", static_cast<uint64_t>(SharedCount(plan)))
      .Field("moved_tensors", static_cast<uint64_t>(MovedCount(plan)))
      .Field("bytes_appended", static_cast<uint64_t>(patch.appended.size()))
      .Field("tables_appended", static_cast<uint64_t>(patch.tables_appended))
      .Field("tensors_repointed", static_cast<uint64_t>(patch.tensors_repointed))
      .Field("fields_overwritten", static_cast<uint64_t>(patch.fields_overwritten))
      .Field("arena_sizes_changed", static_cast<uint64_t>(patch.arena_sizes_changed))
      .Field("segments_moved", patch.segments_move())
      .Field("segment_shift", patch.segment_shift())
      .Field("program_size_before", patch.old_program_size)
      .Field("program_size_after", patch.new_program_size)
      .Field("file_size_before", patch.old_file_size)
      .Field("file_size_after", patch.new_file_size);
  json.Key("plan").BeginObject();
  WritePlanJson(json, view, outcome);
  json.EndObject().EndObject();
  std::fputs(json.str().c_str(), stdout);
}

// Takes the writer lock and rolls back an interrupted rewrite first.
Result<WriterLock> LockForWriting(const std::string& file) {
  Result<WriterLock> lock = WriterLock::Acquire(file, [&] {
    PrintFileError(file, Error{"another pteshare is writing this file; waiting for it to finish"});
  });
  if (!lock.ok()) return lock.error();
  Result<Recovery> recovery = RecoverLocked(*lock);
  if (!recovery.ok()) return recovery.error();
  if (*recovery == Recovery::kRolledBack) {
    PrintFileError(file, Error{"rolled back an interrupted rewrite (journal " +
                               JournalPath(file).string() + ") before rewriting"});
  }
  return lock;
}

Status Write(const RewriteArgs& args, const std::optional<WriterLock>& lock,
             const OpenedProgram& opened, const PatchSet& patch, const Plan& plan) {
  WriteOptions options;
  options.verbose = args.verbose;
  options.progress = [&](const std::string& line) { PrintFileError(args.file, Error{line}); };
  const PteLayout& before = opened.file.layout();
  if (args.in_place) {
    if (patch.empty()) return Status::Ok();
    return WritePatchedInPlace(*lock, before, patch, plan, options);
  }
  if (lock) {  // OUT is FILE: nothing to do, or a copy renamed over it
    if (patch.empty()) return Status::Ok();
    return WritePatchedCopy(lock->fd(), before, patch, plan, args.out, options);
  }
  Result<UniqueFd> source = OpenFd(args.file, O_RDONLY);
  if (!source.ok()) return source.error();
  return WritePatchedCopy(source->get(), before, patch, plan, args.out, options);
}

int RunRewrite(const RewriteArgs& args) {
  const auto start = std::chrono::steady_clock::now();
  if (args.in_place == !args.out.empty()) {
    PrintError("rewrite: give exactly one of -o OUT and --in-place");
    return kExitBadInput;
  }
  if (args.share.empty()) {
    PrintError("rewrite: say which buffers to share: --share NAME... or --share-auto");
    return kExitBadInput;
  }
  std::error_code ec;
  const bool out_is_file =
      !args.in_place && fs::exists(args.out, ec) && fs::equivalent(args.file, args.out, ec);
  // Declared before the program so its lock outlives every descriptor the
  // program holds (closing one drops the process's fcntl locks).
  std::optional<WriterLock> lock;
  if (args.in_place || out_is_file) {
    Result<WriterLock> locked = LockForWriting(args.file);
    if (!locked.ok()) {
      PrintFileError(args.file, locked.error());
      return kExitBadInput;
    }
    lock.emplace(std::move(locked).value());
  }
  std::optional<OpenedProgram> opened = OpenInput(args.file);
  if (!opened) return kExitBadInput;
  PlanOutcome outcome = PlanAndVerify(args.file, opened->view, args.share, args.planning);
  if (!outcome.input || !outcome.violations.empty()) return outcome.exit_status;  // nothing written
  const Plan& plan = outcome.input->plan;

  Result<PatchSet> patch = MakePatchSet(opened->file.bytes(), opened->view, plan);
  if (!patch.ok()) {
    PrintFileError(args.file,
                   Error{"cannot patch the plan into the file: " + patch.error().message});
    return kExitFindings;
  }
  Status written = Write(args, lock, *opened, *patch, plan);
  if (!written.ok()) {
    PrintFileError(args.in_place ? args.file : args.out, written.error());
    return kExitBadInput;
  }
  if (args.json) {
    PrintJson(args, opened->view, outcome, *patch);
  } else {
    PrintSummary(args, plan, *patch);
  }
  if (args.verbose) {
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    char line[64];
    std::snprintf(line, sizeof line, "done in %.3f s", seconds);
    PrintFileError(args.file, Error{line});
  }
  return kExitOk;
}

void AddRewrite(CLI::App& app, int& exit_status) {
  auto args = std::make_shared<RewriteArgs>();
  CLI::App* cmd = app.add_subcommand(
      "rewrite",
      "Make the plan of `pteshare plan` real: pack the shared buffers at the front of their "
      "arenas in every method and patch the allocation info of the program, touching nothing "
      "else (weights and other segments are never read, only moved if the patched program "
      "outgrows its padding). The plan is verified first; a plan that fails writes nothing.\n"
      "-o OUT writes a new file (through a temporary file and rename); --in-place patches FILE "
      "under a lock with a rollback journal (FILE.pteshare-journal), so an interrupted run is "
      "rolled back by the next pteshare command. Running it again reports 'already planned'.\n"
      "Example: pteshare rewrite llm.pte --share-auto -o llm-shared.pte\n"
      "         pteshare rewrite llm.pte --in-place --share layers.0.attention.kv_cache.k_cache");
  cmd->add_option("FILE", args->file, "The .pte file")->required();
  CLI::Option* out =
      cmd->add_option("-o,--output", args->out, "Write the result to OUT (may be FILE)")
          ->type_name("OUT");
  CLI::Option* in_place =
      cmd->add_flag("--in-place", args->in_place, "Patch FILE itself, crash-safely");
  out->excludes(in_place);
  args->share.AddTo(cmd);
  args->planning.AddTo(cmd);
  cmd->add_flag("-v,--verbose", args->verbose, "Say each step and the time taken on stderr");
  cmd->add_flag("--json", args->json, "Print what was done, with the plan, as JSON");
  cmd->callback([args, &exit_status] { exit_status = RunRewrite(*args); });
}

const bool registered = RegisterCommand({30, AddRewrite});

}  // namespace
}  // namespace pteshare::cli

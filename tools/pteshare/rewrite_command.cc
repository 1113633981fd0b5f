// `pteshare rewrite FILE (-o OUT | --in-place) --share ... [--json]`: plans
// like `pteshare plan`, and only if the plan verifies, patches the
// allocation info (Patcher) and writes it crash-safely (Writer): -o through
// a temporary file and rename; --in-place under the writer lock with a
// rollback journal. A second identical run finds nothing to change.
#include <fcntl.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <optional>
#include <set>
#include <thread>
#include <vector>

#include "rewriter/bundle/bundle_writer.h"
#include "rewriter/io/file_io.h"
#include "rewriter/patch/name_patch.h"
#include "rewriter/patch/patcher.h"
#include "rewriter/plan/memory_cost.h"
#include "rewriter/write/journal.h"
#include "rewriter/write/output_target.h"
#include "rewriter/write/writer.h"
#include "rewriter/write/writer_lock.h"
#include "tools/pteshare/commands.h"
#include "tools/pteshare/exit_codes.h"
#include "tools/pteshare/json_document.h"
#include "tools/pteshare/number_option.h"
#include "tools/pteshare/open_input.h"
#include "tools/pteshare/output.h"
#include "tools/pteshare/plan_report.h"
#include "tools/report/json_writer.h"
#include "tools/report/rewrite_report.h"
#include "tools/report/runtime_terms.h"
#include "tools/report/saving_text.h"

namespace pteshare::cli {
namespace {
namespace fs = std::filesystem;

struct RewriteArgs {
  std::vector<std::string> files;
  std::string out;  // a file for one input; a folder for several
  bool in_place = false;
  unsigned jobs = 0;  // 0: one per core
  ShareFlags share;
  PlanFlags planning;
  bool write_names = false;
  bool allow_position_names = false;
  bool verbose = false;
  bool summary = false;
  bool json = false;
};

/// One input and where its result goes.
struct FileJob {
  std::string file;
  std::string out;  // empty with --in-place
  bool in_place = false;
};

/// What one file's rewrite printed to stdout (kept until every job is done,
/// so the output comes in input order whatever finished first).
struct JobResult {
  int exit_status = kExitOk;
  bool changed = false;
  std::optional<PlanSaving> saving;  // set when the file was planned and written
  std::string stdout_text;
};

// "model.pte -> out.pte" or "model.pte (in place)".
std::string Target(const FileJob& job) {
  return job.in_place ? job.file + " (in place)" : job.file + " -> " + job.out;
}

// The answer first (saving_text.h), then what was done, the pairs made of
// unnamed state, the memory in the runtime's terms, and the plan's
// warnings (as `plan` shows them).
std::string Summary(const FileJob& job, const ProgramView& view, const VerifiedPlan& verified,
                    const PatchSet& patch, const RewriteArgs& args) {
  const Plan& plan = verified.planned.plan;
  std::string text = Target(job) + ": " + SavingLine(verified.saving) + "\n";
  if (patch.empty() || args.summary) return text;
  const size_t shared = SharedCount(plan, false), moved = MovedCount(plan);
  const size_t kept = SharedCount(plan, true);
  std::string segments = patch.segments_move()
                             ? "segments moved up by " + Grouped(patch.segment_shift()) + " bytes"
                             : "segments not moved";
  std::string what =
      shared == 0 ? "nothing shared, arenas replanned"
                  : Grouped(shared) + " shared buffer" + (shared == 1 ? "" : "s") +
                        (plan.layout == Layout::kArena ? " in their own arena" : " front-packed") +
                        (kept == 0 ? ""
                                   : " (and " + Grouped(kept) + " private state buffer" +
                                         (kept == 1 ? "" : "s") + " in slots of their own)");
  text += "  done: " + what + ", " + Grouped(moved) + " tensor" + (moved == 1 ? "" : "s") +
          " moved, " +
          (patch.names_written > 0 ? Grouped(patch.names_written) + " name" +
                                         (patch.names_written == 1 ? "" : "s") + " written, "
                                   : "") +
          Grouped(patch.appended.size()) + " bytes appended, " + segments + "\n";
  const std::vector<std::string> pairs = PairingLines(view, verified.planned.shared);
  if (!pairs.empty()) {
    text += "  " + PairingHeader(verified.planned.shared) + ":\n";
    text += CappedLines(pairs, "    ", args.verbose);
  }
  text += MemoryText(view, ComputeMemoryCost(plan), "  ", plan.fronts);
  text += RuntimeTermsText(view, plan, "  ");
  for (const std::string& w : plan.warnings) text += "  warning: " + w + "\n";
  return text;
}

// What became of a bundle: its program rewritten inside, its tests kept.
std::string BundleSummary(const BundleInfo& bundle, const PatchSet& patch, uint64_t size_after) {
  if (patch.empty()) return "";
  return "  bundled program: the program inside rewritten (" + Grouped(patch.old_file_size) +
         " -> " + Grouped(patch.new_file_size) + " bytes), " + Grouped(bundle.test_cases) +
         " test case" + (bundle.test_cases == 1 ? "" : "s") + " kept; bundle " +
         Grouped(bundle.file_size) + " -> " + Grouped(size_after) + " bytes\n";
}

// A failed job: with --json its error document (this thread's first error)
// takes its place in the output.
JobResult Failed(const RewriteArgs& args, JobResult result) {
  std::optional<RecordedError> error = TakeRecordedError();
  if (args.json && error) result.stdout_text = ErrorDocument(*error, result.exit_status);
  return result;
}

// Fails the job with `error`, printed as one line naming `file`.
JobResult Failed(const RewriteArgs& args, const std::string& file, const Error& error) {
  PrintFileError(file, error);
  JobResult result;
  result.exit_status = ExitStatusFor(error.kind);
  return Failed(args, result);
}

JobResult RewriteOne(const RewriteArgs& args, FileJob job) {
  TakeRecordedError();  // this job's errors only
  const auto start = std::chrono::steady_clock::now();
  if (!job.in_place) {  // a folder means FOLDER/BASENAME; only a file or a new name is written
    Result<OutputTarget> target = ResolveOutputTarget(job.file, job.out);
    if (!target.ok()) return Failed(args, job.out, target.error());
    job.out = target->path.string();
  }
  RewriteRequest request;
  request.input = job.file;
  request.output = job.in_place ? fs::path() : fs::path(job.out);
  request.in_place = job.in_place;
  Result<ShareRequest> share = args.share.ToRequest();
  if (!share.ok()) return Failed(args, job.file, share.error());
  Result<PlanOptions> options = args.planning.ToPlanOptions();
  if (!options.ok()) return Failed(args, job.file, options.error());
  request.share = std::move(share).value();
  request.options = std::move(options).value();
  request.write_names = !args.write_names           ? WriteNames::kNo
                        : args.allow_position_names ? WriteNames::kGivenAndPositions
                                                    : WriteNames::kGiven;
  request.verbose = args.verbose;
  request.say = [&](const std::string& line) { PrintFileError(job.file, Error{line}); };

  Result<RewriteOutcome> outcome = RewriteFile(request);
  if (!outcome.ok()) {
    // A failed write is about the file being written.
    const bool about_output = outcome.error().kind == ErrorKind::kIo && !job.in_place;
    return Failed(args, about_output ? job.out : job.file, outcome.error());
  }
  JobResult result;
  result.changed = outcome->changed();
  result.saving = outcome->plan.saving;
  result.exit_status = ExitStatusFor(outcome->plan.saving);
  const ProgramView& view = outcome->program.view;
  const std::optional<BundleInfo>& bundle = outcome->program.file.bundle();
  result.stdout_text =
      args.json
          ? RewriteJson(job.file, job.in_place ? std::string() : job.out, job.in_place, *outcome)
          : Summary(job, view, outcome->plan, outcome->patch, args) +
                (bundle && !args.summary
                     ? BundleSummary(*bundle, outcome->patch, outcome->bundle_size_after)
                     : std::string());
  if (args.verbose) {
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    char line[64];
    std::snprintf(line, sizeof line, "done in %.3f s", seconds);
    PrintFileError(job.file, Error{line});
  }
  return result;
}

// One job per input. Several inputs need -o DIR (one output per input,
// named like the input) or --in-place; two inputs that are one file, or two
// outputs with one name, are refused before anything runs.
Result<std::vector<FileJob>> MakeJobs(const RewriteArgs& args) {
  std::vector<FileJob> jobs;
  std::error_code ec;
  // OUT/ names a folder for one input as for several: made if missing.
  const bool folder = args.files.size() > 1 || (!args.out.empty() && args.out.back() == '/');
  if (!folder) {
    jobs.push_back({args.files[0], args.out, args.in_place});
    return jobs;
  }
  if (!args.in_place) {
    if (fs::exists(args.out, ec) && !fs::is_directory(args.out, ec)) {
      return Error{"rewrite: -o " + args.out +
                   " names a folder (several inputs, or a final '/'), "
                   "but it is not one"};
    }
    fs::create_directories(args.out, ec);
    if (ec) return Error{"rewrite: cannot create the folder " + args.out + ": " + ec.message()};
  }
  std::vector<fs::path> seen_inputs;
  std::set<std::string> seen_outputs;
  for (const std::string& file : args.files) {
    for (const fs::path& other : seen_inputs) {
      if (fs::equivalent(file, other, ec)) {
        return Error{"rewrite: " + file + " and " + other.string() + " are the same file"};
      }
    }
    seen_inputs.push_back(file);
    FileJob job{file, "", args.in_place};
    if (!args.in_place) {
      job.out = (fs::path(args.out) / fs::path(file).filename()).string();
      if (!seen_outputs.insert(job.out).second) {
        return Error{"rewrite: two inputs would both be written to " + job.out};
      }
    }
    jobs.push_back(std::move(job));
  }
  return jobs;
}

int RunRewrite(const RewriteArgs& args) {
  if (args.in_place == !args.out.empty()) {
    PrintError("rewrite: give exactly one of -o OUT and --in-place");
    return kExitBadInput;
  }
  if (Status flags = CheckFlags(args.share, &args.planning); !flags.ok()) {
    PrintError(flags.error().message);
    return ExitStatusFor(flags.error().kind);
  }
  // relocate exists only to make room for shared buffers; replan and best
  // may run with none and just shrink the arenas.
  const Result<PlanOptions> options = args.planning.ToPlanOptions();
  if (args.share.empty() && options.ok() && options->strategy == Strategy::kRelocate) {
    PrintError(
        "rewrite: say which buffers to share (--share NAME... or --share-auto); with no shared "
        "buffer, --strategy replan or best just shrinks the arenas");
    return kExitBadInput;
  }
  Result<std::vector<FileJob>> jobs = MakeJobs(args);
  if (!jobs.ok()) {
    PrintError(jobs.error().message);
    return kExitBadInput;
  }
  std::vector<JobResult> results(jobs->size());
  unsigned workers = args.jobs != 0 ? args.jobs : std::max(1u, std::thread::hardware_concurrency());
  workers = std::min<unsigned>(workers, static_cast<unsigned>(jobs->size()));
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i = next++; i < jobs->size(); i = next++) results[i] = RewriteOne(args, (*jobs)[i]);
  };
  std::vector<std::thread> threads;
  for (unsigned w = 1; w < workers; ++w) threads.emplace_back(work);
  work();
  for (std::thread& t : threads) t.join();

  int exit_status = kExitOk;
  size_t failed = 0;
  SavingTotals totals;
  for (const JobResult& r : results) {
    exit_status = WorseExitStatus(exit_status, r.exit_status);
    if (r.saving) {
      totals.Add(*r.saving);
    } else {
      ++failed;
    }
  }
  const bool batch = jobs->size() > 1;
  if (!args.json) {
    // The batch's answer first, then each file's in input order.
    if (batch) std::printf("%s\n", TotalsLine(totals, jobs->size(), failed).c_str());
    for (const JobResult& r : results) std::fputs(r.stdout_text.c_str(), stdout);
    return exit_status;
  }
  // With --json: one document for one input; for several, one object with
  // the totals and a document per input (an error document for a failed
  // one), in input order.
  if (!batch) {
    if (!results[0].stdout_text.empty()) PrintJsonDocument(results[0].stdout_text);
    return exit_status;
  }
  JsonWriter json;
  BeginJsonDocument(json);
  WriteTotalsJson(json, totals, jobs->size(), failed);
  json.Key("files").BeginArray();
  for (const JobResult& r : results) {
    if (!r.stdout_text.empty()) json.Document(r.stdout_text);
  }
  json.EndArray().EndObject();
  PrintJsonDocument(json.str());
  return exit_status;
}

}  // namespace

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
      "Several inputs are rewritten in parallel (-j), one output each in the folder -o DIR (or "
      "each in place); one failing file does not stop the others, and the exit status is the "
      "worst of them.\n"
      "A bundled program (.bpte) is rewritten as its program would be, and the bundle is "
      "serialised again around the result with its test cases kept; it is always written as a "
      "new file (with --in-place, renamed over FILE).\n"
      "Example: pteshare rewrite llm.pte --share-auto -o llm-shared.pte\n"
      "         pteshare rewrite llm.pte --in-place --share layers.0.attention.kv_cache.k_cache\n"
      "         pteshare rewrite models/*.pte --share-auto -o shared/ -j 4");
  cmd->add_option("FILE", args->files,
                  "The .pte file(s); a .bpte bundle gets a new bundle around its rewritten "
                  "program, test cases kept")
      ->required()
      ->type_name("");
  CLI::Option* out = cmd->add_option("-o,--output", args->out,
                                     "Write the result to OUT (may be FILE; a regular file or a "
                                     "new name, never a device or FIFO); a folder gets "
                                     "FOLDER/BASENAME, one output per input")
                         ->type_name("OUT");
  CLI::Option* in_place =
      cmd->add_flag("--in-place", args->in_place, "Patch FILE itself, crash-safely");
  out->excludes(in_place);
  args->share.AddTo(cmd);
  args->planning.AddTo(cmd);
  CLI::Option* write_names = cmd->add_flag(
      "--write-names", args->write_names,
      "Store each shared buffer's name (given with --name or --names-from) in its "
      "extra_tensor_info.fully_qualified_name, so that verify, a loader's self-check and "
      "Method::get_attribute find it by name. A pair of unnamed state that nothing names is "
      "called paired_state.K, a position, not the model's name: refused (exit 2) unless "
      "--allow-position-names");
  cmd->add_flag("--allow-position-names", args->allow_position_names,
                "With --write-names: store paired_state.K too, for the pairs no naming names")
      ->needs(write_names);
  cmd->add_option("-j,--jobs", args->jobs, "Files rewritten at once (default: one per core)")
      ->type_name("N")
      ->check(UnsignedInteger(UINT32_MAX));
  cmd->add_flag("-v,--verbose", args->verbose, "Say each step and the time taken on stderr");
  cmd->add_flag("--summary", args->summary,
                "Print only each file's first line (the memory saved, or why nothing can be "
                "shared) and, for several files, the totals line");
  cmd->add_flag("--json", args->json, "Print what was done, with the plan, as JSON");
  cmd->callback([args, &exit_status] { exit_status = RunRewrite(*args); });
}

}  // namespace pteshare::cli

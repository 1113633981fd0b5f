// `pteshare pack`: plan a block problem given as CSV (the format of
// MiniMalloc's benchmarks), print every row with its offset, and summarise
// the arena against the lower bound. This exposes the block planner that
// `--strategy replan` builds on, so it can be tried on any instance.
#include <chrono>
#include <cstdio>
#include <iostream>
#include <optional>
#include <string>

#include "rewriter/plan/blockplan/csv.h"
#include "rewriter/plan/blockplan/planner.h"
#include "rewriter/plan/blockplan/validator.h"
#include "tools/pteshare/commands.h"
#include "tools/pteshare/exit_codes.h"
#include "tools/pteshare/json_document.h"
#include "tools/pteshare/number_option.h"
#include "tools/report/json_writer.h"
#include "tools/report/numbers.h"

namespace pteshare::cli {
namespace {

struct PackOptions {
  std::string file;
  std::optional<double> time_limit;
  uint64_t seed = 0;
  uint64_t steps = BlockPlannerOptions::kDefaultMaxSteps;
  std::optional<uint64_t> capacity;
  uint64_t alignment = 1;
  bool json = false;
};

double OverheadPercent(Bytes height, Bytes lower_bound) {
  return lower_bound == 0 ? 0.0 : 100.0 * (static_cast<double>(height) / lower_bound - 1.0);
}

int RunPack(const PackOptions& options) {
  Result<BlockProblem> problem = ReadBlockCsvFile(options.file);
  if (!problem.ok()) {
    std::fprintf(stderr, "pteshare: %s: %s\n", options.file.c_str(),
                 problem.error().message.c_str());
    return kExitBadInput;
  }
  problem->alignment = options.alignment;
  problem->capacity = options.capacity;
  BlockPlannerOptions planner;
  planner.seed = options.seed;
  planner.max_steps = options.steps;
  planner.time_limit_seconds = options.time_limit;

  auto start = std::chrono::steady_clock::now();
  if (Status valid = ValidateBlockProblem(*problem); !valid) {
    std::fprintf(stderr, "pteshare: %s: %s\n", options.file.c_str(), valid.error().message.c_str());
    return kExitBadInput;
  }
  Result<BlockPlan> plan = PlanBlocks(*problem, planner);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!plan.ok()) {
    // The problem is valid, so the only error left is a capacity miss.
    std::fprintf(stderr, "pteshare: %s: %s\n", options.file.c_str(), plan.error().message.c_str());
    return kExitFindings;
  }
  // Nothing is printed that the independent validator has not accepted.
  if (Status valid = ValidateBlockSolution(*problem, plan->solution); !valid) {
    std::fprintf(stderr, "pteshare: %s: internal error, the planner's placement is invalid: %s\n",
                 options.file.c_str(), valid.error().message.c_str());
    return kExitFindings;
  }
  const double overhead = OverheadPercent(plan->solution.height, plan->lower_bound);
  if (options.json) {
    JsonWriter json;
    BeginJsonDocument(json);
    json.Field("file", options.file)
        .Field("arena_size", plan->solution.height)
        .Field("lower_bound", plan->lower_bound)
        .Field("overhead_percent", overhead)
        .Field("optimal", plan->optimal)
        .Field("steps", plan->steps)
        .Field("timed_out", plan->timed_out)
        .Field("seconds", seconds)
        .Key("blocks")
        .BeginArray();
    for (size_t i = 0; i < problem->blocks.size(); ++i) {
      const Block& block = problem->blocks[i];
      json.BeginObject()
          .Field("id", block.id)
          .Field("lower", static_cast<int64_t>(block.lifespan.begin))
          .Field("upper", static_cast<int64_t>(block.lifespan.end))
          .Field("size", block.size)
          .Field("offset", plan->solution.offsets[i])
          .EndObject();
    }
    json.EndArray().EndObject();
    std::cout.flush();
    PrintJsonDocument(json.str());
  } else {
    std::cout << FormatBlockCsv(*problem, plan->solution);
  }
  std::fprintf(
      stderr, "%s: arena %s bytes, lower bound %s, overhead %.2f%%%s, %.2f s, %s steps%s\n",
      options.file.c_str(), Grouped(plan->solution.height).c_str(),
      Grouped(plan->lower_bound).c_str(), overhead, plan->optimal ? " (optimal)" : "", seconds,
      Grouped(plan->steps).c_str(), plan->timed_out ? " (stopped by --time-limit)" : "");
  return kExitOk;
}

}  // namespace

void AddPack(CLI::App& app, int& exit_status) {
  auto options = std::make_shared<PackOptions>();
  CLI::App* pack = app.add_subcommand(
      "pack",
      "Place the blocks of a CSV instance (id,lower,upper,size) in one arena, as small\n"
      "as the planner can make it. Each block is live over [lower, upper) and needs\n"
      "size bytes; blocks live at the same time never overlap. An optional offset\n"
      "column pre-places a block (empty cell: free).\n\n"
      "Prints the rows with an offset column on stdout and one summary line on stderr:\n"
      "arena size, lower bound (largest total live at one instant), overhead, time.\n"
      "The same file, --seed and --steps always give the same offsets; --time-limit\n"
      "may stop the search earlier and is the only thing that can change the result\n"
      "between runs.\n\n"
      "Example: pteshare pack A.1048576.csv --capacity 1048576 > placed.csv\n"
      "Exit status: 0 placed; 1 no plan found within --capacity; 2 unreadable or\n"
      "invalid CSV, or bad usage.");
  pack->add_option("INSTANCE.csv", options->file, "CSV instance to place")
      ->required()
      ->type_name("");
  pack->add_option("--time-limit", options->time_limit,
                   "Stop searching after SECONDS (wall clock; makes output depend on load)")
      ->type_name("SECONDS")
      ->check(NonNegativeSeconds());
  pack->add_option("--seed", options->seed, "Seed for the randomized orders and restarts")
      ->type_name("K")
      ->capture_default_str()
      ->check(UnsignedInteger());
  pack->add_option("--steps", options->steps,
                   "Search effort in steps (deterministic); 0 keeps only the greedy passes")
      ->type_name("N")
      ->capture_default_str()
      ->check(UnsignedInteger());
  pack->add_option("--capacity", options->capacity,
                   "Fail (exit 1) unless the arena fits in BYTES; says by how much it misses")
      ->type_name("BYTES")
      ->check(UnsignedInteger());
  pack->add_option("--alignment", options->alignment,
                   "Every planned offset is a multiple of this power of two")
      ->type_name("BYTES")
      ->capture_default_str()
      ->check(UnsignedInteger());
  pack->add_flag("--json", options->json, "Print the placement and summary as JSON on stdout");
  pack->callback([options, &exit_status] { exit_status = RunPack(*options); });
}

}  // namespace pteshare::cli

// The sharing and planning options (tools/options/option_table.h) as CLI11
// flags: a command adds a group's rows of the table, each flag's text is
// kept as typed, and the table's parsers read it when the command runs.
// Flags of one command only (rewrite's -o, --in-place, --write-names,
// plan's --json, ...) are not options of the table: each command adds its
// own.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "rewriter/base/result.h"
#include "rewriter/plan/planner.h"
#include "rewriter/share/shared_buffers.h"
#include "tools/options/option_table.h"

namespace pteshare::cli {

/// One group's rows of the table on one command.
class OptionFlags {
 public:
  explicit OptionFlags(options::OptionGroup group);
  // CLI11 keeps pointers to the texts.
  OptionFlags(const OptionFlags&) = delete;
  OptionFlags& operator=(const OptionFlags&) = delete;

  /// Adds the rows' flags to `command`, in table order.
  void AddTo(CLI::App* command);
  /// Stores every row's value in `settings` (a row not given: its
  /// default), all those that read; the first error, naming its flag.
  Status ReadInto(options::OptionSettings& settings) const;

 private:
  /// What was typed for one row: its texts (one per time given), or
  /// whether a switch was given.
  struct Given {
    std::vector<std::string> texts;
    std::string text;  // a single-value row's
    bool on = false;
  };
  std::vector<const options::OptionRow*> rows_;
  std::vector<Given> given_;  // one per row; never resized
};

/// --share, --share-auto, --name: every command that takes shared buffers
/// (plan, rewrite, verify, plot).
struct ShareFlags {
  OptionFlags flags{options::OptionGroup::kShare};

  void AddTo(CLI::App* command) { flags.AddTo(command); }
  /// True when no buffer is chosen (neither --share nor --share-auto).
  bool empty() const;
  /// The request the rewriter takes; an error names the bad argument.
  Result<ShareRequest> ToRequest() const;
};

/// --strategy, --layout, --alignment, --arena-limit: every planning
/// command (plan, rewrite, plot).
struct PlanFlags {
  OptionFlags flags{options::OptionGroup::kPlan};
  /// Also run the strategy not chosen, so the report shows both sizes
  /// (`pteshare plan` does; rewrite need not pay for it).
  bool compare_strategies = false;
  /// Also plan the layout not chosen, so the report shows what each costs
  /// (`pteshare plan` does).
  bool compare_layouts = false;

  void AddTo(CLI::App* command) { flags.AddTo(command); }
  /// The options the planner takes; an error names the bad argument.
  Result<PlanOptions> ToPlanOptions() const;
};

/// Reads the flags once before any input is opened, so that a bad value
/// (a --name, a names file's line) is one error about the flag or the file
/// rather than one about each program; `planning` may be null.
Status CheckFlags(const ShareFlags& share, const PlanFlags* planning);

}  // namespace pteshare::cli

// The saving of a plan (rewriter/plan/saving.h) in words and in JSON: the
// first line of `plan` and `rewrite` (all of `--summary`), the totals line
// of a batch, and the "saving" object of their JSON documents.
#pragma once

#include <string>

#include "rewriter/plan/saving.h"
#include "tools/report/json_writer.h"

namespace pteshare::cli {

/// The answer in one line, without the file name: "memory for one set of
/// arenas: 2.30 MiB instead of 4.35 MiB for separate sets (-47%; ...)", or
/// "no change: nothing to share (why)".
std::string SavingLine(const PlanSaving& saving);

/// Why nothing is shared, in words ("only method decode has mutable
/// state"); empty when something is.
std::string NoShareText(const PlanSaving& saving);

/// "QnnBackend (in kv_forward, prefill_forward) plans its own memory: any
/// state inside it is not checked here", for a report on a program whose
/// methods call delegates; empty when none do.
std::string DelegateMemoryNote(const std::vector<DelegateUse>& delegates);

/// The JSON names of the closed sets ("shared", "state_in_delegate", ...).
const char* SavingKindName(SavingKind kind);
const char* NoShareReasonName(NoShareReason reason);

/// `"saving": {...}` as a member of an open object.
void WriteSavingJson(JsonWriter& json, const PlanSaving& saving);

/// The sum over a batch of the files that were planned.
struct SavingTotals {
  size_t files = 0;
  size_t shared = 0;          // SavingKind::kShared
  size_t already_shared = 0;  // kAlreadyShared
  size_t replanned = 0;       // kReplanned
  size_t unchanged = 0;       // kUnchanged
  size_t state_in_delegate = 0;
  /// Bytes before and after over every planned file, as each file's line
  /// compares them.
  uint64_t before = 0;
  uint64_t after = 0;

  void Add(const PlanSaving& saving);
};

/// The batch's first line: "121 files: memory 12.3 MiB instead of ...;
/// 29 shared state, 88 nothing to share (...), 4 failed".
std::string TotalsLine(const SavingTotals& totals, size_t files, size_t failed);
/// `"totals": {...}` as a member of an open object.
void WriteTotalsJson(JsonWriter& json, const SavingTotals& totals, size_t files, size_t failed);

}  // namespace pteshare::cli

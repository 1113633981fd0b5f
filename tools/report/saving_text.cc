#include "tools/report/saving_text.h"

#include <cmath>
#include <cstdio>

#include "tools/report/numbers.h"

namespace pteshare::cli {
namespace {

std::string Percent(double percent) {
  char buf[32];
  std::snprintf(buf, sizeof buf, std::fabs(percent) >= 10 ? "%+.0f%%" : "%+.1f%%", percent);
  return buf;
}

std::string Joined(const std::vector<std::string>& words) {
  std::string text;
  for (size_t i = 0; i < words.size(); ++i) {
    text += (i == 0 ? "" : i + 1 == words.size() ? " and " : ", ") + words[i];
  }
  return text;
}

// "QnnBackend (in kv_forward, prefill_forward)" for every backend.
std::string Backends(const std::vector<DelegateUse>& delegates) {
  std::vector<std::string> parts;
  for (const DelegateUse& d : delegates) {
    std::string methods;
    for (const std::string& m : d.methods) methods += (methods.empty() ? "" : ", ") + m;
    parts.push_back(d.backend + " (in " + methods + ")");
  }
  return Joined(parts);
}

// "2.30 MiB instead of 4.35 MiB (-47%; 2,408,960 vs 4,560,144 bytes)".
std::string Comparison(uint64_t after, uint64_t before, const std::string& before_what,
                       const PlanSaving& saving) {
  return HumanBytes(after) + " instead of " + HumanBytes(before) + before_what + " (" +
         Percent(saving.change_percent()) + "; " + Grouped(after) + " vs " + Grouped(before) +
         " bytes)";
}

// The memory the delegates keep is not in the arenas: said wherever a
// program calls one, so a number for an XNNPACK program is not read as all
// of its memory.
std::string DelegateNote(const PlanSaving& saving) {
  if (saving.delegates.empty() || saving.reason == NoShareReason::kStateInDelegate) return "";
  return "; " + Backends(saving.delegates) + (saving.delegates.size() == 1 ? " plans" : " plan") +
         " its own memory, not counted here";
}

}  // namespace

std::string DelegateMemoryNote(const std::vector<DelegateUse>& delegates) {
  if (delegates.empty()) return "";
  return Backends(delegates) + (delegates.size() == 1 ? " plans" : " plan") +
         " its own memory: any state inside it is not checked here";
}

std::string NoShareText(const PlanSaving& saving) {
  switch (saving.reason) {
    case NoShareReason::kNone:
      return "";
    case NoShareReason::kNotAsked:
      return "no buffer asked for, though several methods have mutable state (--share-auto "
             "shares it)";
    case NoShareReason::kOneMethod:
      return saving.running_methods.empty()
                 ? "no method runs instructions or plans memory"
                 : "the program runs one method (" + saving.running_methods.front() +
                       "), so there is no other method to share with";
    case NoShareReason::kStateInDelegate:
      return "no method has mutable state outside delegates, so any state (a KV cache) lives "
             "inside " +
             Backends(saving.delegates) +
             ", which plans its own memory: nothing pteshare can share";
    case NoShareReason::kNoState:
      return "no method has mutable state";
    case NoShareReason::kStateInOneMethod:
      return "only method " + saving.method_with_state + " has mutable state";
  }
  return "";
}

std::string SavingLine(const PlanSaving& saving) {
  const bool several = saving.planning_methods.size() > 1;
  const std::string memory = several ? "memory for one set of arenas" : "memory for the arenas";
  switch (saving.kind) {
    case SavingKind::kShared:
      return memory + ": " + Comparison(saving.after, saving.before, " for separate sets", saving) +
             ", " + Grouped(saving.shared_buffers) + " shared buffer" +
             (saving.shared_buffers == 1 ? "" : "s") + DelegateNote(saving);
    case SavingKind::kAlreadyShared:
      return "already planned, no change: " + Grouped(saving.shared_buffers) + " shared buffer" +
             (saving.shared_buffers == 1 ? " sits" : "s sit") +
             " at one placement in every method; " + memory + ": " + HumanBytes(saving.after) +
             " (" + Grouped(saving.after) + " bytes)" + DelegateNote(saving);
    case SavingKind::kReplanned:
      return "nothing to share: " + NoShareText(saving) + "; replanned, " + memory + ": " +
             Comparison(saving.after, saving.before, "", saving) + DelegateNote(saving);
    case SavingKind::kUnchanged:
      return "no change, nothing to share: " + NoShareText(saving) + "; " +
             (saving.after == 0 ? "the program plans no memory of its own"
                                : "the arenas (" + Grouped(saving.after) +
                                      " bytes) are already as small as pteshare plans them") +
             DelegateNote(saving);
  }
  return "";
}

const char* SavingKindName(SavingKind kind) {
  switch (kind) {
    case SavingKind::kShared:
      return "shared";
    case SavingKind::kAlreadyShared:
      return "already_shared";
    case SavingKind::kReplanned:
      return "replanned";
    case SavingKind::kUnchanged:
      return "unchanged";
  }
  return "unchanged";
}

const char* NoShareReasonName(NoShareReason reason) {
  switch (reason) {
    case NoShareReason::kNone:
      return "none";
    case NoShareReason::kNotAsked:
      return "not_asked";
    case NoShareReason::kOneMethod:
      return "one_method";
    case NoShareReason::kStateInDelegate:
      return "state_in_delegate";
    case NoShareReason::kNoState:
      return "no_state";
    case NoShareReason::kStateInOneMethod:
      return "state_in_one_method";
  }
  return "none";
}

void WriteSavingJson(JsonWriter& json, const PlanSaving& saving) {
  json.Key("saving").BeginObject();
  json.Field("summary", SavingLine(saving))
      .Field("outcome", SavingKindName(saving.kind))
      .Field("shared_buffers", static_cast<uint64_t>(saving.shared_buffers))
      .Field("before_bytes", saving.before)
      .Field("after_bytes", saving.after)
      .Field("before_is", saving.before_is_separate_sets ? "separate_sets" : "one_set")
      .Field("after_is", "one_set")
      .Field("saved_bytes", saving.saved())
      .Field("change_percent", saving.change_percent());
  json.Key("nothing_to_share");
  if (saving.reason == NoShareReason::kNone) {
    json.Null();
  } else {
    json.BeginObject()
        .Field("reason", NoShareReasonName(saving.reason))
        .Field("message", NoShareText(saving))
        .EndObject();
  }
  json.Key("delegates").BeginArray();
  for (const DelegateUse& d : saving.delegates) {
    json.BeginObject().Field("backend", d.backend).Field("delegates", d.delegates);
    json.Key("methods").BeginArray();
    for (const std::string& m : d.methods) json.String(m);
    json.EndArray().EndObject();
  }
  json.EndArray().EndObject();
}

void SavingTotals::Add(const PlanSaving& saving) {
  ++files;
  switch (saving.kind) {
    case SavingKind::kShared:
      ++shared;
      break;
    case SavingKind::kAlreadyShared:
      ++already_shared;
      break;
    case SavingKind::kReplanned:
      ++replanned;
      break;
    case SavingKind::kUnchanged:
      ++unchanged;
      break;
  }
  if (saving.reason == NoShareReason::kStateInDelegate) ++state_in_delegate;
  before += saving.before;
  after += saving.after;
}

std::string TotalsLine(const SavingTotals& t, size_t files, size_t failed) {
  std::string text = Grouped(files) + " files: ";
  if (t.files > 0) {
    const double percent = t.before == 0 ? 0.0
                                         : (static_cast<double>(t.after) - t.before) * 100.0 /
                                               static_cast<double>(t.before);
    text += "memory " + HumanBytes(t.after) + " instead of " + HumanBytes(t.before) + " (" +
            Percent(percent) + "; " + Grouped(t.after) + " vs " + Grouped(t.before) +
            " bytes over " + Grouped(t.files) + " planned); ";
  }
  std::vector<std::string> parts;
  if (t.shared > 0) parts.push_back(Grouped(t.shared) + " share state");
  if (t.already_shared > 0) parts.push_back(Grouped(t.already_shared) + " already shared");
  const size_t nothing = t.replanned + t.unchanged;
  if (nothing > 0) {
    std::vector<std::string> detail;
    if (t.replanned > 0) detail.push_back(Grouped(t.replanned) + " of them replanned smaller");
    if (t.state_in_delegate > 0) {
      detail.push_back(Grouped(t.state_in_delegate) + " with any state inside a delegate");
    }
    std::string joined;
    for (const std::string& d : detail) joined += (joined.empty() ? "" : ", ") + d;
    parts.push_back(Grouped(nothing) + " nothing to share" +
                    (joined.empty() ? "" : " (" + joined + ")"));
  }
  if (failed > 0) parts.push_back(Grouped(failed) + " failed");
  for (size_t i = 0; i < parts.size(); ++i) text += (i == 0 ? "" : ", ") + parts[i];
  return text;
}

void WriteTotalsJson(JsonWriter& json, const SavingTotals& t, size_t files, size_t failed) {
  json.Key("totals")
      .BeginObject()
      .Field("files", static_cast<uint64_t>(files))
      .Field("failed", static_cast<uint64_t>(failed))
      .Field("shared", static_cast<uint64_t>(t.shared))
      .Field("already_shared", static_cast<uint64_t>(t.already_shared))
      .Field("replanned", static_cast<uint64_t>(t.replanned))
      .Field("unchanged", static_cast<uint64_t>(t.unchanged))
      .Field("state_in_delegate", static_cast<uint64_t>(t.state_in_delegate))
      .Field("before_bytes", t.before)
      .Field("after_bytes", t.after)
      .EndObject();
}

}  // namespace pteshare::cli

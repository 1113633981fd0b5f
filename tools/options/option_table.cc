// The table itself: one row per sharing or planning option. A new option is
// a row here (and the field it sets in ShareRequest or PlanOptions); the CLI
// and the Python module find it by walking the table.
#include "tools/options/option_table.h"

#include <utility>

namespace pteshare::options {
namespace {

// A closed set's words from the library's own names of its values.
template <typename Enum>
std::vector<Word> WordsOf(std::initializer_list<Enum> values, const char* (*name)(Enum)) {
  std::vector<Word> words;
  for (Enum value : values) words.push_back(Word{name(value), static_cast<int>(value)});
  return words;
}

template <typename T>
T Take(OptionValue& value) {
  return std::get<T>(std::move(value));
}

using Namings = std::vector<ValueNaming>;

// --name and --names-from both add to the one list, in either order.
void AddNamings(OptionSettings& settings, Namings namings) {
  for (ValueNaming& naming : namings) settings.share.namings.push_back(std::move(naming));
}

std::vector<OptionRow> MakeTable() {
  using Names = std::vector<std::string>;
  using Limits = std::map<uint32_t, uint64_t>;
  return {
      {.group = OptionGroup::kShare,
       .kind = ValueKind::kNameList,
       .flag = "--share",
       .keyword = "share",
       .value_name = "NAME",
       .help = "Shared buffer(s) by fully qualified name, e.g. "
               "layers.0.attention.kv_cache.k_cache (repeatable; several names may follow "
               "one --share)",
       .set = [](OptionSettings& s, OptionValue v) { s.share.names = Take<Names>(v); }},
      {.group = OptionGroup::kShare,
       .kind = ValueKind::kSwitch,
       .flag = "--share-auto",
       .keyword = "share_auto",
       .help = "Share every named mutable buffer that appears in two or more methods",
       .set = [](OptionSettings& s, OptionValue v) { s.share.share_auto = Take<bool>(v); }},
      {.group = OptionGroup::kShare,
       .kind = ValueKind::kValueNamings,
       .flag = "--name",
       .keyword = "names",
       .value_name = "METHOD:VALUE_INDEX=NAME",
       .help = "Name an unnamed buffer by position, then share it with --share NAME, or "
               "--share-auto (repeatable). paired_state.K=NAME names pair K of the unnamed state "
               "--share-auto pairs (the K of its paired_state.K), in every method it pairs",
       .set = [](OptionSettings& s, OptionValue v) { AddNamings(s, Take<Namings>(v)); }},
      {.group = OptionGroup::kShare,
       .kind = ValueKind::kNamesFile,
       .flag = "--names-from",
       .keyword = "names_from",
       .value_name = "FILE",
       .help = "The --name namings from FILE, one a line: METHOD:VALUE_INDEX=NAME, or "
               "paired_state.K=NAME for pair K of the unnamed state (one line per buffer, "
               "whatever the methods); '#' starts a comment, blank lines are skipped. E.g. "
               "paired_state.000=layers.0.attention.kv_cache.k_cache",
       .set = [](OptionSettings& s, OptionValue v) { AddNamings(s, Take<Namings>(v)); }},
      {.group = OptionGroup::kPlan,
       .kind = ValueKind::kWord,
       .flag = "--strategy",
       .keyword = "strategy",
       .help = "How to make room for the front regions. relocate: shift the other tensors "
               "by a translation that keeps every overlap (needs no lifetimes; arenas "
               "without a front stay as they are). replan: plan every arena again from the "
               "tensors' lifetimes (smaller arenas; never larger than relocate). best: per "
               "method and arena the smaller of the two",
       // The library's default stays relocate (PlanOptions); the front ends'
       // is best.
       .default_text = StrategyName(Strategy::kBest),
       .words = WordsOf({Strategy::kRelocate, Strategy::kReplan, Strategy::kBest}, StrategyName),
       .set = [](OptionSettings& s,
                 OptionValue v) { s.plan.strategy = static_cast<Strategy>(Take<int>(v)); }},
      {.group = OptionGroup::kPlan,
       .kind = ValueKind::kWord,
       .flag = "--layout",
       .keyword = "layout",
       .help = "Where the shared buffers go. front: at the front of the arena each is in. "
               "arena: in a new arena of their own per device (the next memory_id, in every "
               "method), the arenas they leave compacted or replanned without them",
       .default_text = LayoutName(Layout::kFront),
       .words = WordsOf({Layout::kFront, Layout::kArena}, LayoutName),
       .set = [](OptionSettings& s,
                 OptionValue v) { s.plan.layout = static_cast<Layout>(Take<int>(v)); }},
      {.group = OptionGroup::kPlan,
       .kind = ValueKind::kUnsigned,
       .flag = "--alignment",
       .keyword = "alignment",
       .value_name = "BYTES",
       .help = "Alignment of the shared slots, a power of two up to 1 GiB (default: detected "
               "from the input, the largest power of two >= 16 dividing every planned offset). "
               "A value below the input's is refused where it would move a tensor to a less "
               "aligned offset (exit 2)",
       .default_text = "0",  // detect (PlanOptions::alignment)
       .set = [](OptionSettings& s, OptionValue v) { s.plan.alignment = Take<uint64_t>(v); }},
      {.group = OptionGroup::kPlan,
       .kind = ValueKind::kArenaLimits,
       .flag = "--arena-limit",
       .keyword = "arena_limits",
       .value_name = "ID=BYTES",
       .help = "Arena ID may take at most BYTES in every method (repeatable); if no plan "
               "fits, exit 1 saying by how much it misses",
       .set = [](OptionSettings& s, OptionValue v) { s.plan.arena_limits = Take<Limits>(v); }},
      {.group = OptionGroup::kPlan,
       .kind = ValueKind::kSwitch,
       .flag = "--own-loader",
       .keyword = "own_loader",
       .help = "With --layout arena: the application's loader binds every arena itself, so a "
               "state arena ExecuTorch's Module(share_memory_arenas=true) cannot share (arena 3 "
               "or higher, or off the CPU) is written (with a warning) instead of refused",
       .set = [](OptionSettings& s, OptionValue v) { s.plan.own_loader = Take<bool>(v); }},
  };
}

}  // namespace

const std::vector<OptionRow>& OptionTable() {
  static const std::vector<OptionRow> table = MakeTable();
  return table;
}

std::vector<const OptionRow*> RowsOf(std::initializer_list<OptionGroup> groups) {
  std::vector<const OptionRow*> rows;
  for (const OptionRow& row : OptionTable()) {
    for (OptionGroup group : groups) {
      if (row.group == group) rows.push_back(&row);
    }
  }
  return rows;
}

std::string ValueName(const OptionRow& row) {
  if (row.kind != ValueKind::kWord) return row.value_name;
  std::string name;
  for (const Word& word : row.words) name += (name.empty() ? "" : "|") + word.name;
  return name;
}

std::string WordList(const OptionRow& row) {
  std::string list;
  const size_t count = row.words.size();
  for (size_t i = 0; i < count; ++i) {
    list += (i == 0 ? "" : i + 1 == count ? " or " : ", ") + row.words[i].name;
  }
  return list;
}

}  // namespace pteshare::options

#include "tools/pteshare/plan_flags.h"

#include <charconv>
#include <initializer_list>
#include <string>
#include <vector>

#include "tools/pteshare/number_option.h"

namespace pteshare::cli {
namespace {

// The words a closed-set flag takes: the library's own names of its values
// (StrategyName, LayoutName), so the flag and every report say the same.
// Turns the word into the enum's number for CLI11 to store; anything else,
// a bare number too, is refused naming the words.
template <typename Enum>
CLI::Validator WordsFor(std::initializer_list<Enum> values, const char* (*name)(Enum)) {
  const std::vector<Enum> choices(values);
  std::string list;
  for (size_t i = 0; i < choices.size(); ++i) {
    list += (i == 0 ? "" : i + 1 == choices.size() ? " or " : ", ") + std::string(name(choices[i]));
  }
  return CLI::Validator(
      [choices, name, list](std::string& input) -> std::string {
        for (Enum value : choices) {
          if (input != name(value)) continue;
          input = std::to_string(static_cast<int>(value));
          return "";
        }
        return "'" + input + "': expected " + list;
      },
      "");
}

}  // namespace

void PlanFlags::AddTo(CLI::App* command) {
  command
      ->add_option("--strategy", strategy,
                   "How to make room for the front regions. relocate: shift the other tensors "
                   "by a translation that keeps every overlap (needs no lifetimes; arenas "
                   "without a front stay as they are). replan: plan every arena again from the "
                   "tensors' lifetimes (smaller arenas; never larger than relocate). best: per "
                   "method and arena the smaller of the two")
      ->transform(WordsFor({Strategy::kRelocate, Strategy::kReplan, Strategy::kBest}, StrategyName))
      ->type_name("relocate|replan|best")
      ->default_str(StrategyName(Strategy::kBest));
  command
      ->add_option("--layout", layout,
                   "Where the shared buffers go. front: at the front of the arena each is in. "
                   "arena: in a new arena of their own per device (the next memory_id, in every "
                   "method), the arenas they leave compacted or replanned without them")
      ->transform(WordsFor({Layout::kFront, Layout::kArena}, LayoutName))
      ->type_name("front|arena")
      ->default_str(LayoutName(Layout::kFront));
  command
      ->add_option(
          "--alignment", alignment,
          "Alignment of the shared slots, a power of two up to 1 GiB (default: detected from the "
          "input, the largest power of two >= 16 dividing every planned offset). A value "
          "below the input's is refused where it would move a tensor to a less aligned "
          "offset (exit 2)")
      ->check(UnsignedInteger());
  command
      ->add_option("--arena-limit", arena_limits,
                   "Arena ID may take at most BYTES in every method (repeatable); if no plan "
                   "fits, exit 1 saying by how much it misses")
      ->type_name("ID=BYTES");
}

namespace {

Result<std::pair<uint32_t, uint64_t>> ParseArenaLimit(const std::string& text) {
  const size_t eq = text.find('=');
  uint32_t id = 0;
  uint64_t bytes = 0;
  bool ok = eq != std::string::npos && eq > 0 && eq + 1 < text.size();
  if (ok) {
    auto [id_end, id_ec] = std::from_chars(text.data(), text.data() + eq, id);
    auto [bytes_end, bytes_ec] =
        std::from_chars(text.data() + eq + 1, text.data() + text.size(), bytes);
    ok = id_ec == std::errc() && id_end == text.data() + eq && bytes_ec == std::errc() &&
         bytes_end == text.data() + text.size();
  }
  if (!ok) return Error{"--arena-limit '" + text + "': expected ID=BYTES, e.g. 1=1048576"};
  if (id == 0) return Error{"--arena-limit '" + text + "': arena ids start at 1"};
  return std::make_pair(id, bytes);
}

}  // namespace

Result<PlanOptions> PlanFlags::ToPlanOptions() const {
  PlanOptions options;
  options.strategy = strategy;
  options.layout = layout;
  options.alignment = alignment;
  options.compare_strategies = compare_strategies;
  options.compare_layouts = compare_layouts;
  for (const std::string& text : arena_limits) {
    Result<std::pair<uint32_t, uint64_t>> limit = ParseArenaLimit(text);
    if (!limit.ok()) return limit.error();
    auto [it, fresh] = options.arena_limits.insert(*limit);
    if (!fresh && it->second != limit->second) {
      return Error{"--arena-limit: arena " + std::to_string(limit->first) +
                   " is given two limits, " + std::to_string(it->second) + " and " +
                   std::to_string(limit->second)};
    }
  }
  return options;
}

}  // namespace pteshare::cli

#include "rewriter/plan/blockplan/short_lived.h"

#include <algorithm>
#include <bit>
#include <cstddef>
#include <limits>
#include <numeric>

namespace pteshare {
namespace {
constexpr TimeValue kMinTime = std::numeric_limits<TimeValue>::min();
}  // namespace

ShortLivedOccupancy::ShortLivedOccupancy(const std::vector<Lifespan>& lifespans)
    : position_(lifespans.size(), Position{0, 0}) {
  std::vector<uint32_t> by_begin(lifespans.size());
  std::iota(by_begin.begin(), by_begin.end(), 0u);
  std::stable_sort(by_begin.begin(), by_begin.end(),
                   [&](uint32_t a, uint32_t b) { return lifespans[a].begin < lifespans[b].begin; });
  // Class of a length: the index of its highest set bit.
  constexpr int kClasses = 64;
  std::vector<int> dense(kClasses, -1);  // length class -> index in classes_
  for (uint32_t i : by_begin) {
    const Lifespan& span = lifespans[i];
    if (span.begin >= span.end) continue;
    const uint64_t length = static_cast<uint64_t>(span.end) - static_cast<uint64_t>(span.begin);
    const int k = std::bit_width(length) - 1;
    if (dense[k] < 0) {
      dense[k] = static_cast<int>(classes_.size());
      classes_.emplace_back();
    }
    LengthClass& c = classes_[static_cast<size_t>(dense[k])];
    position_[i] = {static_cast<uint32_t>(dense[k]), static_cast<uint32_t>(c.entries.size())};
    c.entries.push_back({span.begin, span.end, 0, 0});
    c.longest = std::max(c.longest, length);
  }
  for (LengthClass& c : classes_) {
    for (size_t k = 0; k < c.entries.size(); k += kSampleEvery) {
      c.sampled_begins.push_back(c.entries[k].begin);
    }
  }
}

void ShortLivedOccupancy::Clear() {
  for (LengthClass& c : classes_) {
    for (Entry& entry : c.entries) entry.bytes_end = entry.bytes_begin = 0;
  }
}

void ShortLivedOccupancy::Insert(uint32_t block, Offset begin, Offset end) {
  const Position& at = position_[block];
  Entry& entry = classes_[at.length_class].entries[at.entry];
  entry.bytes_begin = begin;
  entry.bytes_end = end;
}

size_t ShortLivedOccupancy::FirstThatMayOverlap(const LengthClass& c, TimeValue instant) {
  // An entry live at `instant` or later begins after instant - longest
  // (computed without wrapping: lifespans may span most of int64).
  if (static_cast<uint64_t>(instant) - static_cast<uint64_t>(kMinTime) <= c.longest) return 0;
  const auto after = static_cast<TimeValue>(static_cast<uint64_t>(instant) - c.longest);
  // Samples begin <= after up to `sample`; the answer lies in the run of
  // entries from the sample before it to `sample`'s own entry.
  const size_t sample = static_cast<size_t>(
      std::upper_bound(c.sampled_begins.begin(), c.sampled_begins.end(), after) -
      c.sampled_begins.begin());
  if (sample == 0) return 0;
  const auto from = c.entries.begin() + static_cast<ptrdiff_t>((sample - 1) * kSampleEvery);
  const auto to =
      c.entries.begin() + static_cast<ptrdiff_t>(std::min(c.entries.size(), sample * kSampleEvery));
  return static_cast<size_t>(
      std::partition_point(from, to, [&](const Entry& entry) { return entry.begin <= after; }) -
      c.entries.begin());
}

}  // namespace pteshare

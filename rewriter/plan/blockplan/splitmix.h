// SplitMix64 (Steele, Lea and Flood, 2014): the planner's one source of
// seeded draws. Raw bits from a fixed formula, not a std:: distribution,
// whose results differ between standard libraries: a plan must not.
#pragma once

#include <cstdint>

namespace pteshare {

/// Advances `state` and returns its next 64 random bits.
inline uint64_t SplitMix64Next(uint64_t* state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/// The bits SplitMix64Next gives from state `z`: a hash of z.
inline uint64_t SplitMix64Hash(uint64_t z) { return SplitMix64Next(&z); }

}  // namespace pteshare

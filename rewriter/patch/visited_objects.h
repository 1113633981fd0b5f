// VisitedObjects: which (offset, kind) pairs a walk of a flatbuffer has
// already visited (byte_ownership.cc walks each object once per type it
// is reached as). A kind is any address that stands for a type: a schema
// type table, a marker for vtables or strings.
//
// Tables, vectors and strings of a verified buffer start at 4-byte-aligned
// offsets, and in a well-formed one no two objects of different kinds
// start at one offset. So each 4-byte slot keeps the one kind first
// visited there as a small number (one byte per slot, one allocation,
// whatever the schema), and anything else, a second kind at a slot or an
// odd offset, goes to a set. A bitmap per kind cost a search of the kinds
// on every visit and a bitmap's clearing per kind, about 3% of a large
// program's rewrite.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <set>
#include <utility>
#include <vector>

namespace pteshare {

class VisitedObjects {
 public:
  /// For objects at offsets below `size` (the buffer's size).
  explicit VisitedObjects(uint64_t size);

  /// Marks (at, kind) visited: true the first time, false after. Inline:
  /// a walk asks once per object reached, millions of times.
  bool Insert(uint64_t at, const void* kind) {
    const uint8_t number = NumberOf(kind);
    if (at % 4 != 0 || number == kNoNumber) return InsertOther(at, kind);
    uint8_t& first = first_kind_[static_cast<size_t>(at / 4)];
    if (first == 0) {
      first = number;
      return true;
    }
    return first == number ? false : InsertOther(at, kind);
  }

 private:
  // A kind's number: 1 and up, kNoNumber when all are taken (the kind's
  // pairs then go to the set). Kinds are kept in an open-addressed table
  // (at most half full), so a lookup is a hash and a probe or two whatever
  // the kinds' addresses.
  static constexpr uint8_t kNoNumber = 255;
  static constexpr size_t kSlots = 512;  // > 2 x the numbers
  uint8_t NumberOf(const void* kind) {
    for (size_t slot = SlotOf(kind);; slot = (slot + 1) % kSlots) {
      const Numbered& entry = numbered_[slot];
      if (entry.kind == kind) return entry.number;
      if (entry.kind == nullptr) return Number(kind, slot);
    }
  }
  static size_t SlotOf(const void* kind) {
    // Fibonacci hashing: the high bits of the product mix every bit.
    const uint64_t address = reinterpret_cast<uintptr_t>(kind);
    return static_cast<size_t>((address * 0x9E3779B97F4A7C15u) >> 55) % kSlots;
  }
  // Numbers a kind not seen yet, at its free `slot`.
  uint8_t Number(const void* kind, size_t slot);
  bool InsertOther(uint64_t at, const void* kind);

  /// Per 4-byte slot: the number of the first kind visited there, 0: none.
  std::vector<uint8_t> first_kind_;
  struct Numbered {
    const void* kind = nullptr;
    uint8_t number = 0;
  };
  std::array<Numbered, kSlots> numbered_{};
  size_t numbers_used_ = 0;
  /// Pairs at odd offsets, second kinds at a slot, kinds past the numbers.
  std::set<std::pair<uint64_t, const void*>> others_;
};

}  // namespace pteshare

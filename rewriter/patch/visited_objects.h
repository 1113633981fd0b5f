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
  // pairs then go to the set).
  static constexpr uint8_t kNoNumber = 255;
  uint8_t NumberOf(const void* kind) {
    const Numbered& recent = recent_[RecentSlot(kind)];
    return recent.kind == kind && recent.number != 0 ? recent.number : Number(kind);
  }
  static size_t RecentSlot(const void* kind) {
    const auto address = reinterpret_cast<uintptr_t>(kind);
    return (address ^ (address >> 6) ^ (address >> 12)) % kRecent;
  }
  // NumberOf's search of every kind, numbering a new one.
  uint8_t Number(const void* kind);
  bool InsertOther(uint64_t at, const void* kind);

  /// Per 4-byte slot: the number of the first kind visited there, 0: none.
  std::vector<uint8_t> first_kind_;
  /// Kind numbered n at [n - 1].
  std::vector<const void*> kinds_;
  /// Recently numbered kinds by a hash of the address: a walk alternates
  /// among a few, so most visits find theirs here, not in kinds_.
  struct Numbered {
    const void* kind = nullptr;
    uint8_t number = 0;
  };
  static constexpr size_t kRecent = 64;
  std::array<Numbered, kRecent> recent_{};
  /// Pairs at odd offsets, second kinds at a slot, kinds past the numbers.
  std::set<std::pair<uint64_t, const void*>> others_;
};

}  // namespace pteshare

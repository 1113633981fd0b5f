// A small bounds-checked reader of FlatBuffers tables, for code that must
// read hostile bytes without the FlatBuffers library (runtime_check links
// into an ExecuTorch app, which carries its own FlatBuffers, and runs on
// microcontrollers). The wire rules it relies on are in docs/format.md,
// "FlatBuffers on the wire".
//
// Every access is checked before it reads: table and vtable inside the
// buffer and aligned as the FlatBuffers verifier wants them, every field
// inside the buffer, every offset non-zero and pointing inside it, every
// vector's length times its element size inside it, every string
// NUL-terminated inside it. The first failure is kept (a Problem: the rule
// broken and the numbers; flat_problem_text.h makes it one line); from then
// on every access gives an empty or default value, so a caller can read a
// whole structure and look at ok() once.
//
// A budget bounds the work: each table opened costs 8 bytes, each vector or
// string opened its byte length. The FlatBuffers verifier bounds the same
// hazard (many offsets to one big object) with a table count; a caller
// gives a budget that a real file, which stores each object once, never
// reaches.
//
// C++17, header-only, no allocation, no exceptions, no header of the C++
// standard library (it builds for a bare-metal target without one).
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "wire.h"

namespace pteshare::flat {

/// A table that was checked: its vtable lies inside the buffer.
struct Table {
  bool present = false;
  uint32_t position = 0;  // the table's soffset to its vtable
  uint32_t vtable = 0;
  uint16_t vtable_size = 0;
};

/// A vector that was checked: [data, data + length * element size) lies
/// inside the buffer.
struct Vector {
  uint32_t data = 0;  // first element
  uint32_t length = 0;
};

/// A string that was checked: [data, data + size) and its NUL lie inside.
struct String {
  bool present = false;
  uint32_t data = 0;
  uint32_t size = 0;
};

/// The rule the bytes broke first.
enum class Rule : uint8_t {
  kNone,
  kBufferTooLarge,     // size: the buffer's size
  kPastEnd,            // what at `at` (`length` bytes) runs past the `size`-byte buffer
  kMisaligned,         // what at `at` is not `length`-byte aligned
  kOverBudget,         // the same bytes referred to over and over
  kVtableBeforeStart,  // the vtable of the table at `at` lies before byte 0
  kBadOffset,          // the offset `length` at byte `at` is not a valid offset
  kNotTerminated,      // the string at byte `at` is not NUL-terminated
  kSchema,             // a caller's rule of its schema (`what`)
};

struct Problem {
  Rule rule = Rule::kNone;
  const char* what = "";  // the object concerned ("a vtable", "a field", ...)
  uint64_t at = 0;
  uint64_t length = 0;
  uint64_t size = 0;  // the buffer's size
};

class Reader {
 public:
  /// The FlatBuffers limit (and ours): 2 GiB, so every position fits in
  /// 31 bits and no sum of two overflows.
  static constexpr uint64_t kMaxBufferSize = (uint64_t{1} << 31) - 1;

  /// Reads [data, data + size); `budget` as above. A buffer over the limit
  /// fails at once.
  Reader(const uint8_t* data, size_t size, uint64_t budget)
      : data_(data), size_(size), budget_(budget) {
    if (size > kMaxBufferSize) Fail(Rule::kBufferTooLarge, "the buffer", 0, 0);
  }

  bool ok() const { return problem_.rule == Rule::kNone; }
  /// The first failure; rule kNone while ok().
  const Problem& problem() const { return problem_; }
  size_t size() const { return size_; }
  const uint8_t* data() const { return data_; }

  /// The root table (uoffset at byte 0).
  Table Root() {
    const uint32_t root = Follow(0);  // non-zero, as the verifier wants it
    return root == 0 ? Table{} : TableAt(root, "root table");
  }

  /// A scalar field, or `absent` when the table does not store it.
  template <typename T>
  T Scalar(const Table& table, int field, T absent) {
    const uint32_t at = FieldPosition(table, field, sizeof(T));
    return at == 0 ? absent : wire::Load<T>(data_ + at);
  }

  /// Whether the table stores the field at all (a table or vector field
  /// that is absent is not the same as an empty one).
  bool Has(const Table& table, int field) { return FieldPosition(table, field, 1) != 0; }

  /// A table field (also the value of a union field).
  Table TableField(const Table& table, int field) {
    const uint32_t at = OffsetTarget(table, field);
    return at == 0 ? Table{} : TableAt(at, "table");
  }

  /// A vector field of `element_size`-byte elements; empty when absent.
  Vector VectorField(const Table& table, int field, size_t element_size) {
    const uint32_t at = OffsetTarget(table, field);
    return at == 0 ? Vector{} : VectorAt(at, element_size, "vector");
  }

  /// A string field; not present when absent or bad.
  String StringField(const Table& table, int field) {
    const uint32_t at = OffsetTarget(table, field);
    if (at == 0) return {};
    const Vector chars = VectorAt(at, 1, "string");
    if (!ok()) return {};
    // The terminator after the last byte, as the verifier requires it.
    if (!Within(chars.data + uint64_t{chars.length}, 1, "a string's terminator")) return {};
    if (data_[chars.data + chars.length] != 0) {
      Fail(Rule::kNotTerminated, "a string", at, 0);
      return {};
    }
    return String{true, chars.data, chars.length};
  }

  /// The characters of a checked string (not NUL-terminated in the view).
  const char* Chars(const String& text) const {
    return reinterpret_cast<const char*>(data_ + text.data);
  }

  /// Element `i` (< length) of a vector of scalars.
  template <typename T>
  T Element(const Vector& vector, uint32_t i) const {
    return wire::Load<T>(data_ + vector.data + uint64_t{sizeof(T)} * i);
  }

  /// Element `i` (< length) of a vector of tables.
  Table TableElement(const Vector& vector, uint32_t i) {
    const uint32_t slot = vector.data + 4 * i;
    const uint32_t target = Follow(slot);
    return target == 0 ? Table{} : TableAt(target, "table in a vector");
  }

  /// Fails the read with a caller's reason (a rule of its schema; `what`
  /// must outlive the reader, a string literal).
  bool FailSchema(const char* what, uint64_t at) { return Fail(Rule::kSchema, what, at, 0); }

 private:
  bool Fail(Rule rule, const char* what, uint64_t at, uint64_t length) {
    if (ok()) problem_ = Problem{rule, what, at, length, size_};
    return false;
  }

  bool Within(uint64_t at, uint64_t length, const char* what) {
    if (!ok()) return false;
    if (at > size_ || length > size_ - at) return Fail(Rule::kPastEnd, what, at, length);
    return true;
  }

  bool Aligned(uint64_t at, uint64_t alignment, const char* what) {
    if (!ok()) return false;
    // Alignments are powers of two: a mask, not a 64-bit division (which a
    // 32-bit core calls a library routine for).
    if ((at & (alignment - 1)) != 0) return Fail(Rule::kMisaligned, what, at, alignment);
    return true;
  }

  bool Spend(uint64_t bytes) {
    if (!ok()) return false;
    if (bytes > budget_) return Fail(Rule::kOverBudget, "the tables", 0, 0);
    budget_ -= bytes;
    return true;
  }

  Table TableAt(uint64_t at, const char* what) {
    if (!Aligned(at, 4, what) || !Within(at, 4, what) || !Spend(8)) return {};
    const int64_t vtable = static_cast<int64_t>(at) - wire::Load<int32_t>(data_ + at);
    if (vtable < 0) {
      Fail(Rule::kVtableBeforeStart, "a vtable", at, 0);
      return {};
    }
    if (!Aligned(static_cast<uint64_t>(vtable), 2, "a vtable") ||
        !Within(static_cast<uint64_t>(vtable), 4, "a vtable")) {
      return {};
    }
    Table table;
    table.position = static_cast<uint32_t>(at);
    table.vtable = static_cast<uint32_t>(vtable);
    table.vtable_size = wire::LoadU16(data_ + table.vtable);
    if (!Aligned(table.vtable_size, 2, "a vtable's size") ||
        !Within(table.vtable, table.vtable_size, "a vtable")) {
      return {};
    }
    table.present = true;
    return table;
  }

  // Position of a stored field of `width` bytes, or 0 when absent (a field
  // can never be at byte 0: the root offset is there).
  uint32_t FieldPosition(const Table& table, int field, size_t width) {
    if (!ok() || !table.present) return 0;
    const uint32_t slot = 4 + 2 * static_cast<uint32_t>(field);
    if (slot + 2 > table.vtable_size) return 0;
    const uint16_t offset = wire::LoadU16(data_ + table.vtable + slot);
    if (offset == 0) return 0;
    const uint64_t at = uint64_t{table.position} + offset;
    if (!Aligned(at, width, "a field") || !Within(at, width, "a field")) return 0;
    return static_cast<uint32_t>(at);
  }

  // The position an offset field points to, or 0 when absent or bad.
  uint32_t OffsetTarget(const Table& table, int field) {
    const uint32_t at = FieldPosition(table, field, 4);
    return at == 0 ? 0 : Follow(at);
  }

  // Follows the uoffset stored at `slot` (checked: inside, aligned).
  uint32_t Follow(uint32_t slot) {
    if (!Aligned(slot, 4, "an offset") || !Within(slot, 4, "an offset")) return 0;
    const uint32_t offset = wire::LoadU32(data_ + slot);
    if (offset == 0 || offset > kMaxBufferSize) {
      Fail(Rule::kBadOffset, "an offset", slot, offset);
      return 0;
    }
    const uint64_t target = uint64_t{slot} + offset;
    if (!Within(target, 1, "an offset's target")) return 0;
    return static_cast<uint32_t>(target);
  }

  Vector VectorAt(uint64_t at, size_t element_size, const char* what) {
    if (!Aligned(at, 4, what) || !Within(at, 4, what)) return {};
    const uint32_t length = wire::LoadU32(data_ + at);
    const uint64_t bytes = uint64_t{length} * element_size;  // < 2^32 * 8: no overflow
    if (!Within(at + 4, bytes, what) || !Spend(bytes)) return {};
    return Vector{static_cast<uint32_t>(at + 4), length};
  }

  const uint8_t* data_;
  size_t size_;
  uint64_t budget_;
  Problem problem_;
};

}  // namespace pteshare::flat

// ByteOwnership: which object owns each byte of a verified flatbuffer, so
// the patcher knows, before writing, which bytes belong to allocation info
// and to nothing else.
//
// FlatBuffers lets objects overlap in a file that still verifies: a hostile
// writer can point an Int value's table at an AllocationDetails table, run
// a string over the tables after it, or share a vtable's bytes with a
// vector. A field write there would also change the other object (a kernel
// argument, a name). The map walks every table, vtable, vector and string
// reachable from the root, once per (offset, type), with the schema's own
// type tables (flatc --reflect-names), and records the byte range of every
// part: a table's soffset, each stored field, a vtable, a vector's length
// and elements, a string with its terminator; plus the root offset and
// identifier and the extended header.
//
// Allocation info is what a rewrite may change: the three fields of an
// AllocationDetails table, a Tensor's allocation_info reference, the
// elements of ExecutionPlan.non_const_buffer_sizes, the references of
// ExecutionPlan.non_const_buffer_sizes and non_const_buffer_device (a plan
// that adds arenas repoints them to appended vectors), and the extended
// header's program_size and segment_base_offset. A byte is "allocation
// only" when exactly one recorded part covers it and that part is
// allocation info. Work and memory are linear in the number of distinct
// objects (the verifier has bounded those by the buffer size).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "rewriter/program/pte_layout.h"

namespace pteshare {

/// A half-open byte range [begin, end) of the file.
struct ByteRange {
  uint64_t begin = 0;
  uint64_t end = 0;
};

class ByteOwnership {
 public:
  /// Maps `program`, the verified flatbuffer [0, program_size) that
  /// `layout` describes. Call only after ReadPteLayout accepted it.
  static ByteOwnership Map(std::span<const uint8_t> program, const PteLayout& layout);
  /// As Map, keeping only the parts that share a byte with one of `ranges`
  /// (sorted, disjoint): every query about bytes inside `ranges` answers as
  /// Map's would, others see only those parts. The walk is the same, the
  /// memory is that of the kept parts: the patcher asks about the bytes it
  /// writes, a few percent of a large flatbuffer's parts.
  static ByteOwnership MapAround(std::span<const uint8_t> program, const PteLayout& layout,
                                 std::vector<ByteRange> ranges);

  /// Whether every byte of [offset, offset + length) is allocation only.
  bool AllocationOnly(uint64_t offset, uint64_t length) const;
  /// What else owns a byte of [offset, offset + length) ("field int_val of
  /// a table", "a string", "nothing"), for an error message.
  std::string OtherOwner(uint64_t offset, uint64_t length) const;
  /// The allocation-only bytes, sorted and disjoint.
  std::vector<ByteRange> AllocationOnlyRanges() const;

  struct Part {
    ByteRange range;
    bool allocation = false;
    const char* what = "";  // "a vtable", a field name, ...
  };

 private:
  // A stretch of bytes covered by the same parts.
  struct Piece {
    ByteRange range;
    uint32_t owners = 0;  // parts covering it
    size_t only = 0;      // index in parts_ of the one part, when owners == 1
  };
  std::vector<Part> parts_;
  std::vector<Piece> pieces_;  // sorted, disjoint, every covered byte
  /// MapAround's ranges; Map keeps every part.
  std::vector<ByteRange> around_;
  /// Per kAroundBucket bytes from 0: the index in around_ of the first range
  /// ending past the bucket's start, so Add searches a bucket's few ranges,
  /// not all of them (a part per 5 bytes, a range per tensor).
  std::vector<uint32_t> around_index_;
  static constexpr uint64_t kAroundBucket = 256;
  /// Bit g: a range meets bytes [g, g + 1) x kGranule. Most parts are
  /// small and far from every range: two bit tests turn them away before
  /// the search (the walk records a part per 5 bytes).
  std::vector<bool> granule_met_;
  static constexpr uint64_t kGranule = 64;
  bool keep_all_ = true;

  // Map and MapAround: records the parts into `map` and cuts the pieces.
  static ByteOwnership Walk(std::span<const uint8_t> program, const PteLayout& layout,
                            ByteOwnership map);
  // Records a part, if it is one to keep.
  void Add(uint64_t begin, uint64_t end, bool allocation, const char* what);

  // Cuts pieces_ from parts_ (Map's last step).
  void Sweep();
  // The pieces that overlap [offset, offset + length).
  std::span<const Piece> Overlapping(uint64_t offset, uint64_t length) const;
  friend class OwnershipWalker;
};

}  // namespace pteshare

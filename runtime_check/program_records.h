// The checker's tables, in the caller's scratch: one record per method and
// per planned tensor, read once from the verified program (method_records.h)
// and then judged by every rule. Records keep positions into the program,
// never copies of it, so a method's values and instructions are read again
// in place where a rule needs them.
#ifndef PTESHARE_RUNTIME_CHECK_PROGRAM_RECORDS_H_
#define PTESHARE_RUNTIME_CHECK_PROGRAM_RECORDS_H_

#include <stddef.h>
#include <stdint.h>

#include "flat_reader.h"
#include "runtime_check/check.h"

namespace pteshare::runtime_check::core::internal {

constexpr uint32_t kNoGroup = 0xffffffffu;
/// Bytes of one name pairing gives: "paired_state." and up to 10 digits.
constexpr uint32_t kPairNameCapacity = 24;

/// A Tensor value with allocation_info (DYNAMIC_UNBOUND ones excluded: the
/// runtime allocates those itself).
struct TensorRecord {
  uint64_t offset = 0;
  uint64_t nbytes = 0;  // only meaningful when `valid`
  /// extra_tensor_info.fully_qualified_name, a name the caller assigned or
  /// one pairing gave; empty when unnamed.
  Text name;
  uint32_t value_index = 0;
  uint32_t memory_id = 0;
  uint32_t table = 0;         // the Tensor table's position, for its shape
  uint32_t group = kNoGroup;  // the shared buffer it is an occurrence of
  /// False when the loader would refuse the tensor (unknown scalar type,
  /// negative dimension, nbytes overflow, memory_id not an arena, end past
  /// 64 bits); such a tensor has a finding and no part in the sharing rules.
  bool valid = false;
  bool has_initial_state = false;  // data_buffer_idx > 0: the loader copies into it
  bool is_input = false;           // the caller writes it
  bool paired = false;             // named by pairing unnamed state

  Placement placement() const { return Placement{memory_id, offset, nbytes}; }
  uint64_t end() const { return offset + nbytes; }
  /// State that lives across calls: an initial state or a name.
  bool is_state() const { return has_initial_state || !name.empty(); }
};

/// (device type << 8 | device index) of an arena; 0 is the CPU.
using DeviceCode = uint16_t;

struct MethodRecord {
  uint32_t index = 0;
  Text name;
  flat::Table plan;     // the ExecutionPlan table
  flat::Vector values;  // EValue tables
  flat::Vector inputs;
  flat::Vector chains;
  flat::Vector arena_sizes;  // int64, entry 0 reserved
  uint32_t arena_count = 0;
  DeviceCode* arena_devices = nullptr;  // [arena_count]
  TensorRecord* tensors = nullptr;      // in value-index order
  uint32_t tensor_count = 0;
  /// The valid non-empty tensors by (arena, offset), with the running
  /// highest end per arena (overlap_check.h searches them).
  uint32_t* by_offset = nullptr;
  uint64_t* highest_end = nullptr;
  uint32_t by_offset_count = 0;
  const uint8_t* bytes = nullptr;  // the flatbuffer

  /// Whether memory_id `id` is an arena with a size that is not negative.
  bool ArenaSizeValid(uint32_t memory_id) const;
  /// Bytes of memory_id `id`; 0 for no arena or a negative size.
  uint64_t ArenaSize(uint32_t memory_id) const;
  DeviceCode ArenaDevice(uint32_t memory_id) const {
    return memory_id >= 1 && memory_id <= arena_count ? arena_devices[memory_id - 1] : 0;
  }
  /// The planned tensor with this value index, or nullptr.
  const TensorRecord* Find(uint32_t value_index) const;
};

/// A shared buffer: its valid occurrences (indices into Program::tensors,
/// in (method, value) order), the first being the reference.
struct GroupRecord {
  Text name;
  uint32_t begin = 0;  // into Program::members
  uint32_t count = 0;
};

/// What the counting pass found, from which the scratch is laid out.
struct Counts {
  uint32_t methods = 0;
  uint32_t tensors = 0;      // planned, all methods
  uint32_t max_tensors = 0;  // in one method
  uint32_t max_values = 0;
  uint32_t arenas = 0;  // all methods
  uint32_t max_arenas = 0;
  uint32_t max_instructions = 0;
  uint32_t max_references = 0;  // value references of one method's instructions
  uint32_t max_unnamed_state = 0;
  uint32_t shared_names = 0;
};

/// The tables in the scratch.
struct Program {
  const uint8_t* bytes = nullptr;  // the flatbuffer
  MethodRecord* methods = nullptr;
  uint32_t method_count = 0;
  TensorRecord* tensors = nullptr;  // every method's, method after method
  uint32_t tensor_count = 0;
  GroupRecord* groups = nullptr;
  uint32_t group_count = 0;
  uint32_t* members = nullptr;
  uint32_t* by_offset = nullptr;        // [tensors]: each method's MethodRecord::by_offset
  uint64_t* highest_end = nullptr;      // [tensors]
  DeviceCode* arena_devices = nullptr;  // every method's, method after method
  char* method_names = nullptr;         // [12 x methods]: "#INDEX" of unnamed methods
  char* pair_names = nullptr;           // [kPairNameCapacity x max_unnamed_state]

  // Work space of one method at a time.
  uint32_t* hits = nullptr;             // [max_tensors]
  uint32_t* inside = nullptr;           // [max_tensors]
  uint8_t* flags = nullptr;             // [max(max_tensors, max_arenas)]
  uint32_t* name_order = nullptr;       // [tensors]: the named ones, by name
  uint32_t* request_order = nullptr;    // [shared_names]: by name
  uint32_t* reference_begin = nullptr;  // [max_instructions + 1]
  uint32_t* references = nullptr;       // [max_references]
  uint32_t* writer_begin = nullptr;     // [max_values + 1]
  uint32_t* writers = nullptr;          // [max_references]
  uint8_t* value_bits = nullptr;        // [max_values / 8 + 1] x 2
  Counts counts;

  const MethodRecord& MethodOf(const TensorRecord& tensor) const;
};

/// Carves the scratch: with `base` null it only counts the bytes (what
/// ScratchBytes says), so the sizes and the layout cannot disagree.
class ScratchLayout {
 public:
  ScratchLayout(void* base, size_t size) : base_(static_cast<uint8_t*>(base)), size_(size) {}

  template <typename T>
  T* Take(size_t count) {
    used_ = (used_ + 7) & ~size_t{7};
    const size_t bytes = count * sizeof(T);
    T* at =
        base_ != nullptr && used_ + bytes <= size_ ? reinterpret_cast<T*>(base_ + used_) : nullptr;
    used_ += bytes;
    return at;
  }
  size_t used() const { return used_; }
  bool fits() const { return base_ != nullptr && used_ <= size_; }

 private:
  uint8_t* base_;
  size_t size_;
  size_t used_ = 0;
};

/// Lays out every table of `counts` in `layout` (see ScratchLayout).
void LayOut(const Counts& counts, ScratchLayout& layout, Program* program);

/// Sends findings to the sink and counts them.
class Findings {
 public:
  Findings(Sink& sink, Result& result) : sink_(sink), result_(result) {}
  void Add(const Finding& finding);

 private:
  Sink& sink_;
  Result& result_;
};

/// A finding of `kind` with its severity set.
Finding NewFinding(FindingKind kind);
/// ... about `method`.
Finding MethodFinding(FindingKind kind, const MethodRecord& method);
/// ... about a tensor of `method`.
Finding TensorFinding(FindingKind kind, const MethodRecord& method, const TensorRecord& tensor);
/// Sets the reference fields to `tensor` of `method`.
void SetReference(Finding* finding, const MethodRecord& method, const TensorRecord& tensor);

/// The tensor's shape, read in place from its table.
Shape ReadShape(flat::Reader& reader, const TensorRecord& tensor);
bool SameBytes(const uint8_t* a, const uint8_t* b, size_t n);
/// Name order: bytes, then length.
int CompareText(const Text& a, const Text& b);
/// Sorts `keys[0, n)` by `less(a, b)` in place (heapsort: no allocation,
/// no recursion, n log n even on hostile input).
template <typename Less>
void SortKeys(uint32_t* keys, uint32_t n, Less less) {
  auto sift = [&](uint32_t root, uint32_t end) {
    while (2 * root + 1 < end) {
      uint32_t child = 2 * root + 1;
      if (child + 1 < end && less(keys[child], keys[child + 1])) ++child;
      if (!less(keys[root], keys[child])) return;
      const uint32_t t = keys[root];
      keys[root] = keys[child];
      keys[child] = t;
      root = child;
    }
  };
  for (uint32_t i = n / 2; i-- > 0;) sift(i, n);
  for (uint32_t end = n; end-- > 1;) {
    const uint32_t t = keys[0];
    keys[0] = keys[end];
    keys[end] = t;
    sift(0, end);
  }
}

}  // namespace pteshare::runtime_check::core::internal

#endif  // PTESHARE_RUNTIME_CHECK_PROGRAM_RECORDS_H_

// ProgramContents: what a program is made of besides its memory plan, in
// plain types: per method the operators its KernelCalls call, its backend
// delegates (which backend, where the processed blob lives, how large it
// is) and the tensors whose data comes from outside the file (a .ptd named
// data map); per segment what the program's tables say it holds; the
// program's named data. What an ExecuTorch engineer asks first ("which
// kernels must be linked, which backends registered, which data file must
// come with it"), and what plan and rewrite need to say that a method's
// memory is its delegate's.
//
// Read from the verified tables only: a blob's size is the segment table's
// entry or the inline vector's length, so no segment byte is ever read
// (the snapshot does not even hold them, pte_file.h). An index that names
// no entry (a delegate's blob, a segment) is recorded, not refused: the
// loader refuses such a program, and inspect shows why.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "rewriter/program/program_view.h"
#include "rewriter/program/pte_layout.h"

namespace pteshare {

/// One operator a method's KernelCalls call, and how often.
struct OperatorUse {
  std::string name;      // "aten::mm"
  std::string overload;  // "out"; empty where the table has none
  uint64_t calls = 0;

  /// "aten::mm.out": the name ExecuTorch looks the kernel up by (the name
  /// alone when the overload is empty).
  std::string FullName() const;
};

/// Where a delegate's processed blob lives: the schema's DataLocation, or
/// kUnknown where the delegate has no `processed` table or a location this
/// build does not know.
enum class BlobLocation : uint8_t { kInline, kSegment, kUnknown };

/// One BackendDelegate of a method.
struct DelegateInfo {
  uint32_t index = 0;   // position in the method's delegates
  std::string backend;  // BackendDelegate.id ("XnnpackBackend"); empty where it has none
  BlobLocation location = BlobLocation::kUnknown;
  /// Program.backend_delegate_data[location_index] (kInline) or
  /// Program.segments[location_index] (kSegment).
  uint32_t location_index = 0;
  /// The blob's bytes; nullopt where location_index names no entry (or the
  /// location is unknown).
  std::optional<uint64_t> blob_size;
  /// The compile specs' keys, in order (their count is the specs' count).
  std::vector<std::string> compile_spec_keys;
  /// DelegateCall instructions that call this delegate.
  uint64_t calls = 0;
};

/// A Tensor whose data the loader takes from a named data map given at
/// load (a .ptd file), by its fully qualified name: extra_tensor_info's
/// location is EXTERNAL.
struct ExternalTensor {
  uint32_t value_index = 0;
  std::string key;  // fully_qualified_name; empty where the table has none (the loader refuses it)
  uint64_t nbytes = 0;
  /// With allocation_info: loaded into planned memory (mutable, e.g. trained
  /// weights); without: a constant the loader maps from the data file.
  bool planned = false;
};

struct MethodContents {
  /// Every KernelCall instruction; the sum of operators' calls plus
  /// calls_without_operator.
  uint64_t kernel_calls = 0;
  /// KernelCalls whose op_index is outside the method's operator table.
  uint64_t calls_without_operator = 0;
  /// Every DelegateCall instruction (also those naming no delegate).
  uint64_t delegate_calls = 0;
  /// The operators called, each full name once, most calls first (then by
  /// name); table entries no instruction calls are left out.
  std::vector<OperatorUse> operators;
  /// In the method's order.
  std::vector<DelegateInfo> delegates;
  /// In value-index order.
  std::vector<ExternalTensor> external_tensors;
};

/// What the program's tables say one segment holds.
enum class SegmentRole : uint8_t {
  kConstantData,  // Program.constant_segment
  kMutableData,   // Program.mutable_data_segments[index]: initial states
  kDelegateBlob,  // a SEGMENT delegate's processed blob
  kNamedData,     // Program.named_data[index]
};

struct SegmentUse {
  SegmentRole role = SegmentRole::kConstantData;
  /// The segment named (Program.segments index).
  uint64_t segment_index = 0;
  /// mutable_data_segments / named_data index, or the delegate's index in
  /// its method.
  uint32_t index = 0;
  /// Constant and mutable data: entries of the SubsegmentOffsets table.
  uint64_t offsets = 0;
  /// kDelegateBlob: the method; otherwise empty.
  std::string method;
  /// kDelegateBlob: the backend id; kNamedData: the key; otherwise empty.
  std::string label;

  /// Constant and mutable data: the buffers the offsets delimit. Entry 0
  /// is reserved (data_buffer_idx 0 means "no data"), so offsets - 1.
  uint64_t buffers() const { return offsets > 0 ? offsets - 1 : 0; }
};

/// One Program.named_data entry: data a backend looks up by key, stored in
/// one of this file's segments.
struct NamedDataEntry {
  std::string key;
  uint32_t segment_index = 0;
  /// The segment's size; nullopt where segment_index names no segment.
  std::optional<uint64_t> size;
};

/// One key of the data file the program needs, over all methods.
struct ExternalKey {
  std::string key;
  uint64_t nbytes = 0;               // as the first tensor with the key says
  std::vector<std::string> methods;  // that reference it, in program order
  /// Some method loads it into planned memory (a mutable value).
  bool planned = false;
};

struct ProgramContents {
  /// Indexed as ProgramView::methods.
  std::vector<MethodContents> methods;
  /// Indexed as PteLayout::segments; empty for a segment no table names.
  std::vector<std::vector<SegmentUse>> segment_uses;
  /// Table references to a segment index past Program.segments (the loader
  /// refuses them).
  std::vector<SegmentUse> dangling_segment_uses;
  std::vector<NamedDataEntry> named_data;
  /// The keys of every method's external tensors, each once, in order of
  /// first use.
  std::vector<ExternalKey> external_keys;
  /// Program.constant_buffer: constants inline in the flatbuffer (older
  /// programs; entry 0 is reserved), and their bytes.
  uint64_t inline_constant_buffers = 0;
  uint64_t inline_constant_bytes = 0;

  /// Bytes the data file must provide: each key's nbytes once.
  uint64_t external_bytes() const;
};

/// What `method` calls and needs, read from its ExecutionPlan in `program`
/// (the verified program `method` was read from).
MethodContents ReadMethodContents(const fb::Program& program, const MethodView& method);

/// The whole program's contents; `view` was read from `program`.
ProgramContents ReadProgramContents(const fb::Program& program, const ProgramView& view);

}  // namespace pteshare

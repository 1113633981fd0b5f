// The load-time checker itself, as an on-device loader links it: C++17, no
// heap, no exceptions, no RTTI, no header of the C++ standard library (it
// builds for a bare-metal Cortex-M with -fno-exceptions -fno-rtti). It reads
// the program in place from (pointer, size), which may be read-only flash:
// nothing is copied, every offset is verified before it is used. Memory
// comes from the caller as one scratch span; ScratchBytes tells how much a
// program needs, and a span too small is a finding, never an overflow.
//
// Findings go to the caller's Sink as plain records (kind, method, value,
// placements, numbers); names are (pointer, size) views into the program,
// the caller's options or the scratch. alias_check.h is the host's report
// built on this: the same checks with one-line messages.
//
// What is checked (docs/design.md, "The runtime checker"):
//  - Check: the placements written in the file. Every shared buffer has one
//    (memory_id, offset, nbytes), one shape and arenas of one device in
//    every method that has it; no other tensor of any method overlaps it
//    unless it lies inside it and the program shows it to be an alias;
//    every planned tensor fits its arena; state of one method that is no
//    shared buffer is overlapped by no tensor of another method.
//  - CheckBindings: the above, plus the memory the application is about to
//    hand each method (ExecuTorch's HierarchicalAllocator spans: planned
//    buffer i serves memory_id i + 1): every shared buffer lands on one
//    absolute address in every bound method, inside the bound buffers.
#ifndef PTESHARE_RUNTIME_CHECK_CHECK_H_
#define PTESHARE_RUNTIME_CHECK_CHECK_H_

#include <stddef.h>
#include <stdint.h>

namespace pteshare::runtime_check {

/// What a finding is about. The meaning of expected / actual is given per
/// kind (the same in the core's Finding and the host report's).
enum class FindingKind : uint8_t {
  // ---- The bytes are not a program we can read (nothing else is checked).
  /// Too short, wrong identifier, bad extended header, verifier failure, or
  /// data not 8-byte aligned in memory. reason: a core::ReadFailure;
  /// expected: 1 when the program is the one inside a bundle.
  kNotAProgram,
  /// The host report could not run the check (out of memory).
  kInternalError,
  /// The scratch span is too small for this program (reason 0) or not
  /// 8-byte aligned (reason 1): nothing was checked. expected: the bytes
  /// needed; actual: the bytes given; detail[0]: the scratch's address.
  kScratchTooSmall,

  // ---- Numbers in one method that the loader would refuse.
  /// Unknown scalar type, negative dimension, or nbytes overflowing 64
  /// bits. actual: the scalar type number when it is unknown.
  kInvalidTensor,
  /// memory_id 0 or past the method's arena list. expected: the method's
  /// arena count; actual: the memory_id.
  kInvalidMemoryId,
  /// A negative entry in non_const_buffer_sizes. placement.memory_id: the
  /// arena; actual: the size as stored (two's complement).
  kInvalidArenaSize,
  /// offset + nbytes runs past the arena. expected: the arena size; actual:
  /// offset + nbytes (UINT64_MAX when that overflows).
  kPastArenaEnd,

  // ---- Sharing, from the placements in the file.
  /// A shared name that no method has.
  kSharedNameNotFound,
  /// A (method, value index) -> name assignment that does not name a
  /// planned tensor. expected: the method's value count; actual: the index.
  kInvalidValueNaming,
  /// The shared buffer is in another arena than in `reference_method`.
  /// expected: reference memory_id; actual: this memory_id.
  kArenaMismatch,
  /// Same arena, other offset. expected: reference offset; actual: offset.
  kOffsetMismatch,
  /// Other size. expected: reference nbytes; actual: nbytes.
  kSizeMismatch,
  /// Same size, but another scalar type, sizes or dim order: the methods
  /// would read each other's state as other numbers.
  kShapeMismatch,
  /// The shared buffer's arena is on another device (type, index) in this
  /// method than in `reference_method`: one set of arenas cannot give it
  /// one memory. placement.memory_id: the arena; expected: the reference's
  /// device type << 8 | index; actual: this method's.
  kDeviceMismatch,
  /// A tensor overlaps a shared buffer without lying inside it. `name` is
  /// the shared buffer, `reference` its placement in this method (or, in a
  /// method without it, the slot it must keep free), or with bindings its
  /// placement in `reference_method`, whose memory the tensor's bytes hit;
  /// `placement` is the overlapping tensor.
  kOverlap,
  /// A tensor lies inside a shared buffer, but the program does not show
  /// it to be an alias of the buffer (docs/design.md, "Alias by evidence"):
  /// a method input, a tensor with its own initial state, or one written by
  /// an instruction that references neither the buffer nor an alias of it.
  kUnprovenAlias,
  /// A tensor of this method overlaps the state (a mutable buffer: initial
  /// state or a name) of another method that is no shared buffer: with one
  /// set of arenas, running this method overwrites that state between the
  /// other's calls. `reference_method`, `reference_value_index`,
  /// `reference`: the state; `name`: its name if it has one.
  kPrivateStateOverlap,

  // ---- Sharing, from the memory the application binds (CheckBindings).
  /// A binding names a method the program does not have.
  kUnknownMethod,
  /// The method needs arena `memory_id` but the binding has no (or a null)
  /// buffer for it. expected: arenas needed; actual: buffers given.
  kArenaNotBound,
  /// The bound buffer is smaller than the method's arena. expected: arena
  /// size; actual: bound size.
  kBindingTooSmall,
  /// The shared buffer's absolute address differs from the one it has in
  /// `reference_method`. expected: reference address; actual: this address.
  kAddressMismatch,

  // ---- Warnings: the sharing holds, but something will surprise.
  /// The shared buffer has an initial state in several methods: loading a
  /// method copies it over the shared memory. actual: how many methods.
  kInitialStateInSeveralMethods,
  /// The shared buffer is in arena > 2: ExecuTorch's
  /// Module(share_memory_arenas=true) shares arenas 1 and 2 only.
  /// actual: the memory_id.
  kArenaNotSharedByModule,
  /// Two or more methods have unnamed state (initial state, no name) that
  /// does not pair (see Options), so its sharing is not checked.
  kUnpairedState,
  /// One memory_id is on one device in `reference_method` and on another
  /// in `method`, and no shared buffer is in it: a loader that binds one
  /// buffer per memory_id to every method cannot serve both. memory_id,
  /// expected, actual: as for kDeviceMismatch.
  kArenaOnTwoDevices,
};

enum class Severity : uint8_t { kError, kWarning };

Severity SeverityOf(FindingKind kind);

/// Stable snake_case name of a kind ("offset_mismatch"), for JSON and logs.
const char* FindingKindName(FindingKind kind);

/// Where a planned tensor lives. Offsets and sizes in bytes.
struct Placement {
  uint32_t memory_id = 0;  // 1-based arena id; 0 = none
  uint64_t offset = 0;
  uint64_t nbytes = 0;
};

/// No value index: the finding is about a method, a name or the file.
constexpr int64_t kNoValue = -1;

/// One buffer the application hands the loader.
struct ArenaBuffer {
  const void* data = nullptr;
  size_t size = 0;
};

namespace core {

/// Bytes that are not copied: a name in the program, the caller's options
/// or the scratch. Not NUL-terminated.
struct Text {
  const char* data = nullptr;
  uint32_t size = 0;

  constexpr Text() = default;
  constexpr Text(const char* chars, uint32_t length) : data(chars), size(length) {}
  /// From a NUL-terminated string.
  explicit Text(const char* chars)
      : data(chars), size(chars == nullptr ? 0 : static_cast<uint32_t>(__builtin_strlen(chars))) {}
  bool empty() const { return size == 0; }
};

bool operator==(const Text& a, const Text& b);
inline bool operator!=(const Text& a, const Text& b) { return !(a == b); }

/// No method index.
constexpr uint32_t kNoMethod = 0xffffffffu;

/// Why the bytes are no program (kNotAProgram's reason). The numbers are in
/// Finding::detail as listed.
enum class ReadFailure : uint8_t {
  kEmpty,
  kMisaligned,        // detail[0]: the address
  kTooSmall,          // detail[0]: the size
  kWrongIdentifier,   // the first 8 bytes are at Finding::bytes
  kHeader,            // detail: problem, length, program_size, size
  kBeyondLimit,       // detail[0]: program_size
  kFlatbuffer,        // detail: rule, at, length, size; detail_text: what; [0, program_size)
  kBundleFlatbuffer,  // the same, for the bundle's own flatbuffer
  kBundleWithoutProgram,
  kBundleMisaligned,  // detail[0]: the program's offset in the bundle
};

/// A tensor's shape as stored (views into the verified program).
struct Shape {
  int8_t scalar_type = 0;
  const uint8_t* sizes = nullptr;  // `rank` int32 LE
  uint32_t rank = 0;
  const uint8_t* dim_order = nullptr;  // `dim_order_size` bytes
  uint32_t dim_order_size = 0;

  int32_t Size(uint32_t i) const;
};

/// One finding, as plain values. Which fields mean something depends on
/// the kind (FindingKind); `reason` and `detail` carry what a message needs
/// beyond them (runtime_check/finding_text.cc writes the messages).
struct Finding {
  FindingKind kind = FindingKind::kNotAProgram;
  Severity severity = Severity::kError;
  uint8_t reason = 0;
  uint32_t method_index = kNoMethod;
  Text method;
  int64_t value_index = kNoValue;
  Text name;         // the shared buffer or state concerned
  Text tensor_name;  // the tensor's own name
  Placement placement;
  uint32_t reference_method_index = kNoMethod;
  Text reference_method;
  int64_t reference_value_index = kNoValue;
  Placement reference;
  uint64_t expected = 0;
  uint64_t actual = 0;
  uint64_t detail[4] = {};
  const char* detail_text = "";
  const uint8_t* bytes = nullptr;
  Shape shape;            // the tensor's, where the message shows it
  Shape reference_shape;  // the reference's
};

/// A method as the check read it.
struct MethodSummary {
  uint32_t index = 0;
  Text name;  // "#INDEX" for a method without a name
  uint32_t arena_count = 0;
  uint32_t planned_tensors = 0;
  /// non_const_buffer_sizes as stored (int64 LE, entry 0 reserved).
  const uint8_t* arena_sizes = nullptr;

  /// Bytes of memory_id `id` (1-based); 0 for no arena or a negative size.
  uint64_t ArenaSize(uint32_t memory_id) const;
};

/// A shared buffer as the check saw it; its occurrences follow it.
struct SharedBufferSummary {
  Text name;
  Placement placement;  // its first occurrence's (methods in program order)
  bool paired = false;  // named by pairing unnamed state
  uint32_t occurrences = 0;
};

struct Occurrence {
  uint32_t method_index = 0;
  Text method;
  uint32_t value_index = 0;
  bool has_initial_state = false;
};

/// Where the check's results go. Every method has a default that ignores
/// them; a loader overrides what it wants (usually OnFinding alone).
class Sink {
 public:
  virtual void OnFinding(const Finding& finding);
  /// Every method, in program order, after the checks of the file.
  virtual void OnMethod(const MethodSummary& method);
  /// Every shared buffer checked, sorted by name, each followed by
  /// OnOccurrence for every method that has it, in program order.
  virtual void OnSharedBuffer(const SharedBufferSummary& buffer);
  virtual void OnOccurrence(const Occurrence& occurrence);

 protected:
  // Not virtual and not public: nothing deletes a sink through this class,
  // and a virtual destructor would pull operator delete into the library.
  ~Sink() = default;
};

/// Names an unnamed planned buffer by position (`--name METHOD:VALUE=NAME`).
struct ValueNaming {
  Text method;
  uint32_t value_index = 0;
  Text name;
};

struct Options {
  /// The buffers that must be shared, by name. None: every named planned
  /// buffer that appears in two or more methods. Names come from
  /// extra_tensor_info.fully_qualified_name, from `value_names`, and from
  /// pairing unnamed state: the k-th unnamed mutable buffer (initial state,
  /// no name) of every method that has any is named `paired_state.K` when
  /// all such methods have as many and the k-th agree in scalar type, sizes
  /// and arena (pteshare's --share-auto pairs them the same way).
  const Text* shared_names = nullptr;
  size_t shared_name_count = 0;
  const ValueNaming* value_names = nullptr;
  size_t value_name_count = 0;
};

/// The memory one method is loaded with: arenas[i] serves memory_id i + 1,
/// as the spans given to ExecuTorch's HierarchicalAllocator (planned
/// buffer i).
struct MethodBinding {
  Text method;
  const ArenaBuffer* arenas = nullptr;
  size_t arena_count = 0;
};

/// Memory for the check's tables; 8-byte aligned. When it is too small and
/// `allocate` is set, the check asks it once for the bytes it needs (a host
/// passes its allocator; a device passes a fixed buffer and no allocate).
struct Scratch {
  void* data = nullptr;
  size_t size = 0;
  void* (*allocate)(size_t bytes, void* context) = nullptr;
  void* context = nullptr;
};

struct Result {
  uint32_t errors = 0;
  uint32_t warnings = 0;
  /// False when the bytes are not a program the checker reads.
  bool readable = true;
  /// False when the check did not run to its end (scratch too small).
  bool completed = true;
  /// What the check needed of the scratch (0 when unreadable).
  size_t scratch_needed = 0;

  bool ok() const { return readable && completed && errors == 0; }
};

/// The scratch bytes Check and CheckBindings need for this program and
/// options (reads the program's counts); 0 when the bytes are no program
/// (the check then says why without scratch).
size_t ScratchBytes(const void* program, size_t size, const Options& options);

/// Checks the placements written in the program. `program` must be 8-byte
/// aligned; `size` is the whole file or at least its flatbuffer. A bundled
/// program (.bpte) may be passed as it is: the program inside is checked.
Result Check(const void* program, size_t size, const Options& options, Scratch scratch, Sink& sink);

/// Check, plus the bindings (methods without one are not loaded and take
/// no part in the address checks). Where a shared buffer lives is judged by
/// its absolute address (kAddressMismatch instead of kArenaMismatch /
/// kOffsetMismatch), so a loader that binds memory to compensate a
/// placement is judged by where the bytes really are.
Result CheckBindings(const void* program, size_t size, const Options& options,
                     const MethodBinding* bindings, size_t binding_count, Scratch scratch,
                     Sink& sink);

}  // namespace core
}  // namespace pteshare::runtime_check

#endif  // PTESHARE_RUNTIME_CHECK_CHECK_H_

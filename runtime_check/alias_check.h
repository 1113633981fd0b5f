// runtime_check: checks that the shared buffers of a compiled ExecuTorch
// program (.pte) really alias across its methods, the way the ExecuTorch
// loader will place them. An application links this into its loader:
//
//   std::vector<uint8_t> pte = ...;  // the whole file (or at least the flatbuffer)
//   runtime_check::Report r = runtime_check::CheckBindings(pte.data(), pte.size(), {}, bindings);
//   if (!r.ok()) for (auto& f : r.findings) log(f.message);
//
// Two checks:
//  - CheckProgram: the placements written in the file. Every shared buffer
//    has one (memory_id, offset, nbytes) in every method that has it; no
//    other tensor of any method overlaps it unless it lies inside it and
//    the program shows it to be an alias (never written, or written only by
//    instructions that also take the buffer or an alias of it); every
//    planned tensor fits its arena.
//  - CheckBindings: the above, plus the memory the application is about to
//    hand each method (one buffer per memory_id, as ExecuTorch's
//    HierarchicalAllocator takes them): every shared buffer must land on
//    the same absolute address in every method, inside the bound buffers.
//
// The bytes may be hostile: the checker finds the flatbuffer itself (the
// optional `eh00` extended header gives its size), runs the FlatBuffers
// verifier over it and checks every number before using it. A bundled
// program (.bpte, identifier BP08) may be passed as it is: its flatbuffer is
// verified and the program inside it is checked. A bad program
// gives findings, never a crash. Nothing is printed and nothing is thrown;
// everything comes back in the Report.
//
// C++17, standard library only; the implementation needs the FlatBuffers
// headers and pteshare's generated schema header.
#ifndef PTESHARE_RUNTIME_CHECK_ALIAS_CHECK_H_
#define PTESHARE_RUNTIME_CHECK_ALIAS_CHECK_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace pteshare::runtime_check {

/// What a finding is about. The meaning of Finding::expected / actual is
/// given per kind.
enum class FindingKind {
  // ---- The bytes are not a program we can read (nothing else is checked).
  /// Too short, wrong identifier, bad extended header, verifier failure, or
  /// data not 8-byte aligned in memory. expected/actual: unused.
  kNotAProgram,
  /// The checker itself failed (out of memory). expected/actual: unused.
  kInternalError,

  // ---- Numbers in one method that the loader would refuse.
  /// Unknown scalar type, negative dimension, or nbytes overflowing 64
  /// bits. actual: the scalar type number when it is unknown; otherwise
  /// the message has the numbers.
  kInvalidTensor,
  /// memory_id 0 or past the method's arena list. expected: the method's
  /// arena count; actual: the memory_id.
  kInvalidMemoryId,
  /// A negative entry in non_const_buffer_sizes. memory_id: the arena;
  /// actual: the size as stored (two's complement).
  kInvalidArenaSize,
  /// offset + nbytes runs past the arena. expected: the arena size; actual:
  /// offset + nbytes (UINT64_MAX when that overflows).
  kPastArenaEnd,

  // ---- Sharing, from the placements in the file.
  /// A shared name that no method has. expected/actual: unused.
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
  /// would read each other's state as other numbers. expected/actual:
  /// unused; the message names both.
  kShapeMismatch,
  /// The shared buffer's arena is on another device (type, index) in this
  /// method than in `reference_method`: one set of arenas cannot give it
  /// one memory. memory_id: the arena; expected: the reference's device
  /// type << 8 | index; actual: this method's.
  kDeviceMismatch,
  /// A tensor overlaps a shared buffer without lying inside it. `name` is
  /// the shared buffer, `reference` its placement in this method (or, in a
  /// method without it, the slot it must keep free), or with bindings its
  /// placement in `reference_method`, whose memory the tensor's bytes hit;
  /// `placement` is the overlapping tensor. expected/actual: unused.
  kOverlap,
  /// A tensor lies inside a shared buffer, but the program does not show
  /// it to be an alias of the buffer (docs/design.md, "Alias by evidence"):
  /// a method input, a tensor with its own initial state, or one written by
  /// an instruction that references neither the buffer nor an alias of it.
  /// It would overwrite the shared state. `name`, `reference`: the buffer;
  /// `placement`: the tensor. expected/actual: unused.
  kUnprovenAlias,
  /// A tensor of this method overlaps the state (a mutable buffer: initial
  /// state or a name) of another method that is no shared buffer: with one
  /// set of arenas, running this method overwrites that state between the
  /// other's calls. `reference_method`, `reference_value_index`,
  /// `reference`: the state; `name`: its name if it has one; `placement`:
  /// the tensor. expected/actual: unused.
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
  /// does not pair (alias_check's automatic choice, see CheckOptions), so
  /// its sharing is not checked. expected/actual: unused.
  kUnpairedState,
};

enum class Severity { kError, kWarning };

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

/// One thing that is wrong (or, for warnings, worth knowing).
struct Finding {
  FindingKind kind = FindingKind::kNotAProgram;
  Severity severity = Severity::kError;
  std::string method;  // empty: not about one method
  int64_t value_index = kNoValue;
  std::string name;              // the shared buffer concerned, or empty
  Placement placement;           // the tensor concerned (memory_id 0: none)
  std::string reference_method;  // where the expected placement comes from
  int64_t reference_value_index = kNoValue;
  Placement reference;    // the shared buffer's expected placement
  uint64_t expected = 0;  // per kind, see FindingKind
  uint64_t actual = 0;
  /// One line, ready to print, e.g. "method decode, value 42
  /// (layers.0.attention.kv_cache.k_cache): offset 491520 + 32768 bytes >
  /// arena 1 size 500000".
  std::string message;
};

/// A shared buffer as the check saw it.
struct SharedBuffer {
  std::string name;
  /// The placement of its first occurrence (methods in program order).
  Placement placement;
  /// Every method that has it, in program order.
  std::vector<std::string> methods;
  /// Methods where it has an initial state (data_buffer_idx > 0).
  std::vector<std::string> methods_with_initial_state;
  /// Named by pairing unnamed state, not by the file or the caller.
  bool paired = false;
};

/// A method's arenas: arena_sizes[i] is the size of memory_id i + 1
/// (non_const_buffer_sizes without its reserved entry 0).
struct MethodArenas {
  std::string name;
  std::vector<uint64_t> arena_sizes;
  uint32_t planned_tensors = 0;
};

struct Report {
  std::vector<Finding> findings;
  /// Every method, in program order (empty when the bytes are unreadable).
  std::vector<MethodArenas> methods;
  /// The shared buffers checked, sorted by name (not-found names omitted).
  std::vector<SharedBuffer> shared;
  /// False when the check could not run to its end (out of memory); the
  /// findings then say why, if there was memory left to say it.
  bool completed = true;

  /// True when the check completed and no finding is an error (warnings
  /// allowed).
  bool ok() const;
  /// False when the bytes are not a program the checker can read.
  bool readable() const;
  size_t error_count() const;
  size_t warning_count() const;
  /// One line: "ok: 4 shared buffers across 2 methods (1 warning)" or
  /// "3 errors, 1 warning: 4 shared buffers across 2 methods".
  std::string Summary() const;
};

/// Names an unnamed planned buffer by position (`--name METHOD:VALUE=NAME`).
struct ValueNaming {
  std::string method;
  uint32_t value_index = 0;
  std::string name;
};

struct CheckOptions {
  /// The buffers that must be shared, by name. Empty: every named planned
  /// buffer that appears in two or more methods. Names come from
  /// extra_tensor_info.fully_qualified_name, from `extra_names`, and from
  /// pairing unnamed state: the k-th unnamed mutable buffer (initial state,
  /// no name) of every method that has any is named `paired_state.K` when
  /// all such methods have as many and the k-th agree in scalar type, sizes
  /// and arena (pteshare's --share-auto pairs them the same way).
  std::vector<std::string> shared_names;
  std::vector<ValueNaming> extra_names;
};

/// Checks the placements written in the program. `data` should be 8-byte
/// aligned (as from mmap or operator new); `size` is the whole file or at
/// least its flatbuffer.
Report CheckProgram(const void* data, size_t size, const CheckOptions& options) noexcept;

/// One buffer the application hands the loader.
struct ArenaBuffer {
  const void* data = nullptr;
  size_t size = 0;
};

/// The memory one method is loaded with: arenas[i] serves memory_id i + 1,
/// as in the span list given to ExecuTorch's HierarchicalAllocator.
struct MethodBinding {
  std::string method;
  std::vector<ArenaBuffer> arenas;
};

/// CheckProgram, plus the bindings: each bound method's buffers must cover
/// its arenas, every shared buffer must have the same absolute address in
/// every bound method that has it, and no tensor of a bound method may
/// overlap a shared buffer's bytes in memory. The address replaces
/// CheckProgram's arena and offset comparison (kAddressMismatch instead of
/// kArenaMismatch / kOffsetMismatch), so a loader that binds memory to
/// compensate a placement is judged by where the bytes really are. Methods
/// without a binding are not loaded and take no part in the address checks.
Report CheckBindings(const void* data, size_t size, const CheckOptions& options,
                     const std::vector<MethodBinding>& bindings) noexcept;

}  // namespace pteshare::runtime_check

#endif  // PTESHARE_RUNTIME_CHECK_ALIAS_CHECK_H_

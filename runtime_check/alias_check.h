// runtime_check's report for hosts: the checks of check.h (the checker
// itself, no heap, no exceptions, as a device links it) with the findings as
// one-line messages, in vectors and strings. An application links this into
// its loader:
//
//   std::vector<uint8_t> pte = ...;  // the whole file (or at least the flatbuffer)
//   runtime_check::Report r = runtime_check::CheckBindings(pte.data(), pte.size(), {}, bindings);
//   if (!r.ok()) for (auto& f : r.findings) log(f.message);
//
// Two checks (check.h says what each rule is):
//  - CheckProgram: the placements written in the file.
//  - CheckBindings: the above, plus the memory the application is about to
//    hand each method (one buffer per memory_id, as ExecuTorch's
//    HierarchicalAllocator takes them): every shared buffer must land on
//    the same absolute address in every method, inside the bound buffers.
//
// The bytes may be hostile: the checker finds the flatbuffer itself (the
// optional `eh00` extended header gives its size), verifies every table of
// it and checks every number before using it. A bundled program (.bpte,
// identifier BP08) may be passed as it is: its flatbuffer is verified and
// the program inside it is checked. A bad program gives findings, never a
// crash. Nothing is printed and nothing is thrown; everything comes back in
// the Report.
//
// C++17, standard library only.
#ifndef PTESHARE_RUNTIME_CHECK_ALIAS_CHECK_H_
#define PTESHARE_RUNTIME_CHECK_ALIAS_CHECK_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "runtime_check/check.h"

namespace pteshare::runtime_check {

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
  /// The scratch core::Check (check.h) needs for this program and these
  /// options: what a firmware that runs the check itself sets aside (0
  /// when the bytes are unreadable).
  size_t scratch_bytes = 0;

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

// The checker's own reading of what each instruction writes, and its own
// judgement of which tensors inside a shared buffer are aliases the program
// shows (the rule is in docs/design.md, "Alias by evidence"; pteshare's
// planner has a separate implementation on purpose: this one must catch a
// bad file whoever wrote it).
//
// Written by an instruction: a KernelCall's repeated tail of args (the
// exporter lists the return values again after the schema args), a value a
// DelegateCall defines (first referenced there, not a method input, no
// initial state), a MoveCall's destination; TensorList items share their
// list's flag. A tensor inside a shared buffer is an alias when it is the
// buffer, or it is no method input, has no initial state of its own, and
// every instruction that writes it (none, for a static view) also
// references the buffer or an alias already accepted.
#ifndef PTESHARE_RUNTIME_CHECK_ALIAS_EVIDENCE_H_
#define PTESHARE_RUNTIME_CHECK_ALIAS_EVIDENCE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "runtime_check/method_layout.h"

namespace pteshare::runtime_check::internal {

/// Per instruction of one method: the values it references and the ones
/// it writes (value indices inside the method's value list).
struct InstructionUse {
  std::vector<uint32_t> references;
  std::vector<uint32_t> writes;
};

/// Every instruction of the method's chains, in order.
std::vector<InstructionUse> ReadInstructionUses(const MethodLayout& method);

/// Why `tensor` (inside the shared buffer `buffer` of the same method) is
/// not an alias the program shows; empty when it is one. `accepted[v]`:
/// value v is the buffer or an alias already accepted.
struct AliasJudge {
  AliasJudge(const MethodLayout& method, const std::vector<InstructionUse>& uses);

  /// Accepts, to a fixed point, the tensors of `inside` (indices into
  /// method.tensors) that the program shows to be aliases of the buffer
  /// `buffer_value`; returns, per element of `inside`, why it is not one
  /// (empty: accepted).
  std::vector<std::string> Judge(uint32_t buffer_value, const std::vector<size_t>& inside) const;

 private:
  const MethodLayout& method_;
  const std::vector<InstructionUse>& uses_;
  /// writers_[v]: instructions that write value v.
  std::vector<std::vector<uint32_t>> writers_;
};

}  // namespace pteshare::runtime_check::internal

#endif  // PTESHARE_RUNTIME_CHECK_ALIAS_EVIDENCE_H_

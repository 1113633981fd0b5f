// Alias evidence: which tensors lying inside a shared buffer's bytes the
// program itself shows to be aliases of that buffer, and which are
// intruders that would overwrite the shared state.
//
// Lying inside a buffer proves nothing: the exporter plans each method on
// its own, and nothing stops a scratch tensor or a method input from being
// placed inside a cache (the runtime then overwrites the cache). A tensor
// inside a shared buffer is accepted as its alias only when the program
// shows it (instruction_effects.h gives what each instruction writes):
//  - it is the buffer itself;
//  - no instruction writes it, it is no method input and has no initial
//    state of its own: a static view of the buffer's bytes;
//  - every instruction that writes it also references the buffer or an
//    alias already accepted (the in-place cache update, the copy-back, a
//    move from the buffer), and it is no method input and has no initial
//    state of its own.
// Everything else inside is an intruder: a method input (the caller writes
// it), a tensor with its own initial state (the loader writes it), or one
// written by an instruction that touches neither the buffer nor its
// aliases. The rule is applied to a fixed point, so an alias of an alias
// counts. The plan verifier and ChooseSharedBuffers use this one rule;
// runtime_check has its own implementation of it (it must judge a file
// whoever wrote it).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "rewriter/program/program_view.h"

namespace pteshare {

/// A shared buffer's value in one method (the method's own placement).
struct BufferInMethod {
  size_t buffer = 0;  // position in the caller's buffer list
  uint32_t value_index = 0;
};

/// A tensor inside a shared buffer that the program does not show to be an
/// alias of it.
struct Intruder {
  uint32_t value_index = 0;
  size_t buffer = 0;
  /// Why: "is a method input", "has an initial state of its own", "is
  /// written by instruction 7, which references neither the buffer nor an
  /// alias of it".
  std::string why;
};

struct SharedAliases {
  /// Indexed by value index: the buffer (BufferInMethod::buffer) the value
  /// is or is an accepted alias of; -1 for none.
  std::vector<int32_t> buffer_of;
  /// In value order.
  std::vector<Intruder> intruders;
};

/// Judges every planned non-empty tensor of `method` that lies inside one of
/// `buffers` (whose placements must not overlap each other). Near-linear:
/// one sort of the buffers, one pass over the instructions per round.
SharedAliases FindSharedAliases(const MethodView& method,
                                const std::vector<BufferInMethod>& buffers);

}  // namespace pteshare

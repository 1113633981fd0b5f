// Choosing the shared buffers: the names a user gave (--share), or every
// named mutable buffer found in two or more methods (--share-auto), plus
// names given to unnamed buffers by position (--name). Everything that makes
// a choice impossible is an input error naming the method, value and
// numbers.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "rewriter/program_view.h"
#include "rewriter/result.h"

namespace pteshare {

/// A name given to a value by position (`--name METHOD:VALUE_INDEX=NAME`).
struct ValueNaming {
  std::string method;
  uint32_t value_index = 0;
  std::string name;
};

struct ShareRequest {
  std::vector<std::string> names;    // --share
  bool share_auto = false;           // --share-auto
  std::vector<ValueNaming> namings;  // --name
  /// A replan may run with no shared buffer at all (it just shrinks arenas).
  bool allow_none = false;
};

/// One buffer that must have the same placement in every method.
struct SharedBuffer {
  std::string name;
  uint32_t memory_id = 0;
  uint64_t nbytes = 0;
  /// Per method (ProgramView order): the value holding it, if the method has it.
  std::vector<std::optional<uint32_t>> value_in_method;
  /// Methods that load an initial state into it.
  std::vector<std::string> methods_with_initial_state;
};

/// The chosen buffers, sorted by name (the front-region order).
struct SharedBufferSet {
  std::vector<SharedBuffer> buffers;
};

/// Resolves `request` against `view` and checks it: every name is a planned
/// tensor in some method, with one size and one arena in all of them, not
/// overlapping another shared buffer, and no other tensor straddles it.
Result<SharedBufferSet> ChooseSharedBuffers(const ProgramView& view, const ShareRequest& request);

}  // namespace pteshare

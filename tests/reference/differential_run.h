// RunSteps: loads every method of a program, binds arenas one of two ways,
// and runs a schedule of method calls (prefill, decode, decode, ...),
// recording after each call its outputs and the bytes of every shared
// buffer. Two runs of the same schedule are compared byte for byte:
//
//   original program, kSeparateArenasCopyState   (what sharing must mean)
//   rewritten program, kSharedArenas             (what sharing does)
//
// The reference gives every method its own arenas and copies each shared
// buffer by name from the method that just ran into every other method: the
// slow, obviously right meaning of "these methods share this state". The
// rewritten program instead gets one set of arena buffers for all methods,
// so shared buffers alias only through their placements, and any other
// tensor placed over them clobbers state the next call reads.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "rewriter/base/result.h"
#include "rewriter/share/shared_buffers.h"
#include "tests/reference/reference_executor.h"

namespace pteshare::reference {

enum class Binding {
  /// One ArenaSet for all methods, each arena as large as the largest
  /// method's. Loading every method copies initial states in method order.
  kSharedArenas,
  /// One ArenaSet per method; shared buffers are synchronised by copying.
  kSeparateArenasCopyState,
};

/// Shared buffer name -> method name -> the value index holding it there.
using SharedBufferIndex = std::map<std::string, std::map<std::string, uint32_t>>;

/// Resolves the buffers a share request names (by fully_qualified_name and
/// by position, as --share / --name do) in every method that has them.
/// share_auto: every name found in two or more methods. Errors name the
/// buffer that no method has.
Result<SharedBufferIndex> ResolveSharedBuffers(const ReferenceProgram& program,
                                               const ShareRequest& request);

/// One method call: the method and the bytes of each of its inputs.
struct StepInput {
  std::string method;
  std::vector<std::vector<uint8_t>> inputs;
};

/// What one call left behind.
struct StepOutcome {
  std::vector<std::vector<uint8_t>> outputs;
  /// Every shared buffer's bytes after the call (by name).
  std::map<std::string, std::vector<uint8_t>> state;
};

struct RunSetup {
  std::shared_ptr<const ReferenceProgram> program;
  Binding binding = Binding::kSharedArenas;
  /// Per method name; nullptr: the program's own placements.
  const std::map<std::string, PlacementOverrides>* overrides = nullptr;
  SharedBufferIndex shared;
};

/// Loads every method (in program order), then runs `steps`. With shared
/// arenas it also requires every shared buffer to have one address in all
/// methods that have it, as the loader-side check would.
Result<std::vector<StepOutcome>> RunSteps(const RunSetup& setup,
                                          const std::vector<StepInput>& steps);

}  // namespace pteshare::reference

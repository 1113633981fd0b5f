// The shared buffers and the rules on their placements (docs/design.md,
// "The runtime checker"):
//  - each shared buffer has one (memory_id, offset, nbytes) and one shape
//    in every method that has it, and arenas on one device;
//  - warnings for sharing that holds but will surprise (initial state in
//    several methods, arenas ExecuTorch's Module does not share, one
//    memory_id on two devices).
#ifndef PTESHARE_RUNTIME_CHECK_SHARED_GROUPS_H_
#define PTESHARE_RUNTIME_CHECK_SHARED_GROUPS_H_

#include "flat_reader.h"
#include "runtime_check/check.h"
#include "runtime_check/program_records.h"

namespace pteshare::runtime_check::core::internal {

/// The groups to check, sorted by name: the options' names, or when none
/// every name found in two or more methods. A requested name no tensor
/// has gets a finding and no group (a name only on refused tensors already
/// has its finding).
void CollectSharedGroups(const Options& options, Program* program, Findings& findings);

/// What CheckSamePlacement compares: a loader that knows the memory it
/// binds judges the location by absolute address instead (binding_check.h).
enum class CompareLocation : uint8_t { kArenaAndOffset, kSizeOnly };

/// Every occurrence must have the reference's size and shape and, unless
/// told otherwise, its arena and offset.
void CheckSamePlacement(flat::Reader& reader, const Program& program, CompareLocation compare,
                        Findings& findings);

/// A shared buffer's arena must be on one device in every method that has
/// that arena and every occurrence's arena on the reference's device; any
/// other memory_id on two devices is a warning.
void CheckArenaDevices(const Program& program, Findings& findings);

/// Warnings: initial state in several methods; arena above 2.
void CheckSharingCaveats(const Program& program, Findings& findings);

/// The methods and the groups, to the sink.
void DescribeProgram(const Program& program, Sink& sink);

}  // namespace pteshare::runtime_check::core::internal

#endif  // PTESHARE_RUNTIME_CHECK_SHARED_GROUPS_H_

// The program-level sharing rules, on placements read by method_layout.h:
//  - each shared buffer has one (memory_id, offset, nbytes) in every method
//    that has it;
//  - no other tensor of any method overlaps a shared buffer's bytes unless
//    it lies entirely inside them (an alias), including methods that do not
//    have the buffer: its slot stays reserved there too;
//  - warnings for sharing that holds but will surprise (initial state in
//    several methods, arenas ExecuTorch's Module does not share).
#ifndef PTESHARE_RUNTIME_CHECK_SHARED_BUFFERS_H_
#define PTESHARE_RUNTIME_CHECK_SHARED_BUFFERS_H_

#include <cstddef>
#include <string>
#include <vector>

#include "runtime_check/alias_check.h"
#include "runtime_check/method_layout.h"

namespace pteshare::runtime_check::internal {

/// One tensor carrying a shared buffer's name: methods[method].tensors[tensor].
struct Occurrence {
  size_t method = 0;
  size_t tensor = 0;
};

/// A shared buffer and every valid planned tensor with its name, in
/// (method, value index) order. The first occurrence is the reference the
/// others must match.
struct SharedGroup {
  std::string name;
  std::vector<Occurrence> occurrences;
};

/// The groups to check, sorted by name: `names`, or when empty every name
/// found in two or more methods. A requested name no tensor has gets a
/// finding and no group.
std::vector<SharedGroup> CollectSharedGroups(const std::vector<MethodLayout>& methods,
                                             const std::vector<std::string>& names,
                                             std::vector<Finding>* findings);

/// What CheckSamePlacement compares: a loader that knows the memory it
/// binds judges the location by absolute address instead (binding_check.h).
enum class CompareLocation { kArenaAndOffset, kSizeOnly };

/// Every occurrence must have the reference's size and, unless told
/// otherwise, its arena and offset.
void CheckSamePlacement(const std::vector<MethodLayout>& methods,
                        const std::vector<SharedGroup>& groups, CompareLocation compare,
                        std::vector<Finding>* findings);

/// The arena of every shared buffer must be on one device in every method
/// that has that arena.
void CheckArenaDevices(const std::vector<MethodLayout>& methods,
                       const std::vector<SharedGroup>& groups, std::vector<Finding>* findings);

/// No tensor of any method may overlap a shared buffer without lying
/// inside it.
void CheckNoOverlap(const std::vector<MethodLayout>& methods,
                    const std::vector<SharedGroup>& groups, std::vector<Finding>* findings);

/// State of one method that is no shared buffer must not be overlapped by
/// any tensor of another method (one set of arenas).
void CheckPrivateState(const std::vector<MethodLayout>& methods,
                       const std::vector<SharedGroup>& groups, std::vector<Finding>* findings);

/// Warnings: initial state in several methods; arena above 2.
void CheckSharingCaveats(const std::vector<MethodLayout>& methods,
                         const std::vector<SharedGroup>& groups, std::vector<Finding>* findings);

/// The groups as the public report describes them.
std::vector<SharedBuffer> DescribeGroups(const std::vector<MethodLayout>& methods,
                                         const std::vector<SharedGroup>& groups);

}  // namespace pteshare::runtime_check::internal

#endif  // PTESHARE_RUNTIME_CHECK_SHARED_BUFFERS_H_

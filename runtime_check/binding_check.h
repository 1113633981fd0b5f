// The load-time check: with the memory the application is about to hand
// each method (one buffer per memory_id), every shared buffer must land on
// one absolute address in every bound method, the buffers must cover the
// arenas, and no tensor may overlap a shared buffer's bytes in memory.
#ifndef PTESHARE_RUNTIME_CHECK_BINDING_CHECK_H_
#define PTESHARE_RUNTIME_CHECK_BINDING_CHECK_H_

#include <vector>

#include "runtime_check/alias_check.h"
#include "runtime_check/method_layout.h"
#include "runtime_check/shared_buffers.h"

namespace pteshare::runtime_check::internal {

void CheckBindingsCoverArenas(const std::vector<MethodLayout>& methods,
                              const std::vector<MethodBinding>& bindings,
                              std::vector<Finding>* findings);

void CheckSharedAddresses(const std::vector<MethodLayout>& methods,
                          const std::vector<SharedGroup>& groups,
                          const std::vector<MethodBinding>& bindings,
                          std::vector<Finding>* findings);

}  // namespace pteshare::runtime_check::internal

#endif  // PTESHARE_RUNTIME_CHECK_BINDING_CHECK_H_

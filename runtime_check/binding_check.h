// The load-time check: with the memory the application is about to hand
// each method (one buffer per memory_id), every shared buffer must land on
// one absolute address in every bound method, the buffers must cover the
// arenas, and no tensor may overlap a shared buffer's bytes in memory.
#ifndef PTESHARE_RUNTIME_CHECK_BINDING_CHECK_H_
#define PTESHARE_RUNTIME_CHECK_BINDING_CHECK_H_

#include "runtime_check/program_records.h"

namespace pteshare::runtime_check::core::internal {

struct Bindings {
  const MethodBinding* items = nullptr;
  size_t count = 0;
};

void CheckBindingsCoverArenas(Program* program, const Bindings& bindings, Findings& findings);

void CheckSharedAddresses(const Program& program, const Bindings& bindings, Findings& findings);

}  // namespace pteshare::runtime_check::core::internal

#endif  // PTESHARE_RUNTIME_CHECK_BINDING_CHECK_H_

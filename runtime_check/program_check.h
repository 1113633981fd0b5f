// The program-level rules on tables already read (program_reader.h): what
// CheckProgram and CheckBindings run after reading, apart so that a test
// can run them on tables read another way (the FlatBuffers-generated code)
// and compare.
#ifndef PTESHARE_RUNTIME_CHECK_PROGRAM_CHECK_H_
#define PTESHARE_RUNTIME_CHECK_PROGRAM_CHECK_H_

#include <vector>

#include "runtime_check/alias_check.h"
#include "runtime_check/method_layout.h"
#include "runtime_check/program_tables.h"
#include "runtime_check/shared_buffers.h"

namespace pteshare::runtime_check::internal {

/// The methods read (pointing into the tables given) and the shared
/// buffers chosen.
struct CheckedProgram {
  std::vector<MethodLayout> methods;
  std::vector<SharedGroup> groups;
};

/// Reads the layouts, names, pairs, chooses the shared buffers and runs
/// the sharing rules; fills report->findings, methods and shared.
CheckedProgram CheckProgramTables(const ProgramTables& tables, const CheckOptions& options,
                                  CompareLocation compare, Report* report);

}  // namespace pteshare::runtime_check::internal

#endif  // PTESHARE_RUNTIME_CHECK_PROGRAM_CHECK_H_

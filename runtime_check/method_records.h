// Reading the program's methods into the checker's records (program_records.h)
// exactly as the ExecuTorch loader reads them, with every number checked
// (findings for the ones the loader would refuse); then the names the
// caller assigns and the names pairing gives unnamed state.
#ifndef PTESHARE_RUNTIME_CHECK_METHOD_RECORDS_H_
#define PTESHARE_RUNTIME_CHECK_METHOD_RECORDS_H_

#include "flat_reader.h"
#include "runtime_check/check.h"
#include "runtime_check/program_records.h"

namespace pteshare::runtime_check::core::internal {

/// The counts the scratch is laid out from (reads the verified program).
Counts CountProgram(flat::Reader& reader, const Options& options);

/// Fills the method and tensor records; a finding for each number the
/// loader would refuse and for each tensor past its arena.
void ReadMethods(flat::Reader& reader, Program* program, Findings& findings);

/// Names planned tensors as the caller asked (a finding for an assignment
/// that names no planned tensor).
void ApplyValueNamings(const Options& options, Program* program, Findings& findings);

/// Pairing unnamed state, the checker's own implementation of the rule
/// pteshare's --share-auto follows (docs/design.md, "Pairing unnamed
/// state"): the k-th unnamed mutable buffer (planned, initial state, no
/// name) of every method that has any is one buffer when every such method
/// has as many and the k-th agree in scalar type, sizes and arena. They are
/// named `paired_state.K` (K zero-padded to one width, at least 3), the
/// names pteshare gives them; otherwise a kUnpairedState warning.
void PairUnnamedState(flat::Reader& reader, Program* program, Findings& findings);

}  // namespace pteshare::runtime_check::core::internal

#endif  // PTESHARE_RUNTIME_CHECK_METHOD_RECORDS_H_

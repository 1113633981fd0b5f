// What `pteshare verify` does with a file and its --json document, for the
// CLI and the Python module's verify() alike: runtime_check's program-level
// check of the placements in the file.
//
// The document (keys always present, in this order):
//   { "file", "ok", "summary", "errors", "warnings",
//     "methods":  [{ "name", "planned_tensors", "arenas": [{ "memory_id", "size" }] }],
//     "shared":   [{ "name", "memory_id", "offset", "nbytes", "methods": [..],
//                    "initial_state_in": [..] }],
//     "findings": [{ "kind", "severity", "method"|null, "value_index"|null, "name"|null,
//                    "placement": { "memory_id", "offset", "nbytes" }|null,
//                    "reference": { "method", "value_index"|null, "memory_id", "offset",
//                                   "nbytes" }|null,
//                    "expected", "actual", "message" }] }
// `kind` is runtime_check::FindingKindName; expected/actual mean what
// alias_check.h says for that kind.
#pragma once

#include <string>

#include "rewriter/base/result.h"
#include "rewriter/open_program.h"
#include "rewriter/program/pte_file.h"
#include "rewriter/share/shared_buffers.h"
#include "runtime_check/alias_check.h"

namespace pteshare::cli {

/// Checks `file` for the buffers `share` names (its names, plus with
/// share_auto every name the automatic choice finds; neither: the
/// checker's own choice), with `share.namings` naming unnamed state (a
/// `paired_state.K=NAME` naming as the values of pair K, NamingsByValue).
/// An input the checker cannot read, or could not finish, is an error
/// (kBadInput); findings are in the report.
Result<runtime_check::Report> CheckForVerify(const OpenedProgram& program,
                                             const ShareRequest& share);

/// The document `pteshare verify --json` prints for `path` (empty: bytes in
/// memory, "file": null).
std::string VerifyJson(const std::string& path, const PteFile& file,
                       const runtime_check::Report& report);

}  // namespace pteshare::cli

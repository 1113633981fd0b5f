// What `pteshare inspect` reports of a program: per method its planned
// tensors and how far they reach into each arena, and the --json document
// (the Python module's inspect() returns the same).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "rewriter/program/program_view.h"
#include "rewriter/program/pte_file.h"

namespace pteshare::cli {

struct MethodSummary {
  size_t planned = 0;
  size_t missing_fields = 0;          // planned tensors whose table lacks a field
  std::vector<uint64_t> highest_end;  // per arena: largest offset + nbytes
};

MethodSummary Summarize(const MethodView& method);

/// The document `pteshare inspect --json` prints for `path` (empty: bytes
/// in memory, "file": null).
std::string InspectJson(const std::string& path, const PteFile& file, const ProgramView& view);

}  // namespace pteshare::cli

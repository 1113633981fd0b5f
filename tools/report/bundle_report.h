// How commands say that they worked on the program inside a bundled
// program (.bpte): one line of text before their own output, a "bundle"
// object (null for a plain .pte) in their JSON.
#pragma once

#include <string>

#include "rewriter/program/pte_file.h"
#include "tools/report/json_writer.h"

namespace pteshare::cli {

/// "FILE: the program inside a bundled program (...)\n", or "" for a .pte.
std::string BundleLine(const std::string& path, const PteFile& file);

/// Writes the key "bundle": null, or where the program lies and how many
/// test cases the bundle holds.
void WriteBundleJson(JsonWriter& json, const PteFile& file);

}  // namespace pteshare::cli

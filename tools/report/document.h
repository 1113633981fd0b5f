// The start of every JSON document pteshare makes (the CLI's --json, the
// Python module's dicts): its format version first.
#pragma once

#include <cstdint>
#include <string>

#include "tools/report/json_writer.h"

namespace pteshare::cli {

/// The shape of every --json document. Raised when a key changes meaning or
/// goes away (new keys do not raise it). 2: a batch rewrite's --json is one
/// object, {"totals", "files": [a document per input]}, not an array.
inline constexpr uint64_t kJsonFormatVersion = 2;

/// Opens a document's top-level object: `{"format_version": N`.
void BeginJsonDocument(JsonWriter& json);

/// `"file": "PATH"`, or `"file": null` for an empty path (a document about
/// bytes in memory, from the Python module; a command always names a file).
void WriteFileField(JsonWriter& json, const std::string& file);

}  // namespace pteshare::cli

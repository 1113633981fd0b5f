// JSON documents: every `--json` output starts with its format version, and
// a command given --json that fails prints a document too (an `error`
// object with the message and the exit status), so a script never has to
// parse stderr.
#pragma once

#include <optional>
#include <string>

#include "tools/report/document.h"
#include "tools/report/json_writer.h"

namespace pteshare::cli {

/// Prints a finished document on stdout and remembers that one was printed.
void PrintJsonDocument(const std::string& document);

/// An error as the error printers (output.h) said it.
struct RecordedError {
  std::string file;  // empty when the error names no file
  std::string message;
};

/// Remembers `error` as this thread's latest (called by PrintFileError and
/// PrintError, so each rewrite job of a batch keeps its own).
void RecordError(RecordedError error);
/// This thread's first error since the last call, if any (and forgets it).
std::optional<RecordedError> TakeRecordedError();

/// `{"format_version", "file", "error": {"message", "exit_status"}}`.
std::string ErrorDocument(const RecordedError& error, int exit_status);

/// End of a run: with --json, a failing run that printed no document prints
/// the error document of its first error.
void FinishJsonRun(bool json, int exit_status);

}  // namespace pteshare::cli

#include "tools/pteshare/json_document.h"

#include <atomic>
#include <cstdio>

namespace pteshare::cli {
namespace {

std::atomic<bool> document_printed{false};
// Per thread: a batch rewrite runs one file per thread, each with its errors.
thread_local std::optional<RecordedError> first_error;

}  // namespace

void PrintJsonDocument(const std::string& document) {
  std::fputs(document.c_str(), stdout);
  document_printed = true;
}

void RecordError(RecordedError error) {
  if (!first_error) first_error = std::move(error);
}

std::optional<RecordedError> TakeRecordedError() {
  std::optional<RecordedError> error = std::move(first_error);
  first_error.reset();
  return error;
}

std::string ErrorDocument(const RecordedError& error, int exit_status) {
  JsonWriter json;
  BeginJsonDocument(json);
  json.Key("file");
  if (error.file.empty()) {
    json.Null();
  } else {
    json.String(error.file);
  }
  json.Key("error")
      .BeginObject()
      .Field("message", error.message)
      .Field("exit_status", exit_status)
      .EndObject()
      .EndObject();
  return json.str();
}

void FinishJsonRun(bool json, int exit_status) {
  if (!json || exit_status == 0 || document_printed) return;
  std::optional<RecordedError> error = TakeRecordedError();
  PrintJsonDocument(
      ErrorDocument(error.value_or(RecordedError{"", "failed with no message"}), exit_status));
}

}  // namespace pteshare::cli

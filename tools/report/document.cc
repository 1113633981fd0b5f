#include "tools/report/document.h"

namespace pteshare::cli {

void BeginJsonDocument(JsonWriter& json) {
  json.BeginObject().Field("format_version", kJsonFormatVersion);
}

void WriteFileField(JsonWriter& json, const std::string& file) {
  json.Key("file");
  if (file.empty()) {
    json.Null();
  } else {
    json.String(file);
  }
}

}  // namespace pteshare::cli

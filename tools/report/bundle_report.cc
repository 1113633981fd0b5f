#include "tools/report/bundle_report.h"

#include "tools/report/numbers.h"

namespace pteshare::cli {

std::string BundleLine(const std::string& path, const PteFile& file) {
  if (!file.bundle()) return "";
  const BundleInfo& b = *file.bundle();
  return path + ": the program inside a bundled program (BP08, " + Grouped(b.test_cases) +
         " test case" + (b.test_cases == 1 ? "" : "s") + " in " + Grouped(b.test_suites) +
         " suite" + (b.test_suites == 1 ? "" : "s") + "): " + Grouped(b.program_size) +
         " bytes at offset " + Grouped(b.program_offset) + " of the " + Grouped(b.file_size) +
         "-byte bundle\n";
}

void WriteBundleJson(JsonWriter& json, const PteFile& file) {
  json.Key("bundle");
  if (!file.bundle()) {
    json.Null();
    return;
  }
  const BundleInfo& b = *file.bundle();
  json.BeginObject()
      .Field("bundle_size", b.file_size)
      .Field("version", b.version)
      .Field("program_offset", b.program_offset)
      .Field("program_size", b.program_size)
      .Field("test_suites", b.test_suites)
      .Field("test_cases", b.test_cases)
      .EndObject();
}

}  // namespace pteshare::cli

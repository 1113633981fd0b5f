#include "rewriter/io/crash_points.h"

#include <unistd.h>

#include <cstdlib>
#include <string>

namespace pteshare {
namespace {

constexpr char kCrashVariable[] = "PTESHARE_TEST_CRASH_AT";

std::string_view CrashPoint() {
  const char* value = std::getenv(kCrashVariable);
  return value ? std::string_view(value) : std::string_view();
}

}  // namespace

void MaybeCrashAt(std::string_view point) {
  if (!point.empty() && CrashPoint() == point) ::_exit(kTestCrashExitStatus);
}

void MaybeCrashAfterPatch(size_t patches_written) {
  MaybeCrashAt("after-patch:" + std::to_string(patches_written));
}

}  // namespace pteshare

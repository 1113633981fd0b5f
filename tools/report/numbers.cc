#include "tools/report/numbers.h"

#include <cstdio>

namespace pteshare::cli {

std::string Counted(uint64_t count, const std::string& one, const std::string& many) {
  return Grouped(count) + " " + (count == 1 ? one : many);
}

std::string HumanBytes(uint64_t bytes) {
  if (bytes < 1024) return std::to_string(bytes) + " B";
  const char* units[] = {"KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  int unit = -1;
  while (value >= 1024 && unit < 3) {
    value /= 1024;
    ++unit;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f %s", value, units[unit]);
  return buf;
}

std::string DeviceName(int8_t device_type, int8_t device_index) {
  switch (device_type) {
    case 0:
      return "CPU";
    case 1:
      return "CUDA:" + std::to_string(device_index);
    default:
      return "device " + std::to_string(device_type) + ":" + std::to_string(device_index);
  }
}

}  // namespace pteshare::cli

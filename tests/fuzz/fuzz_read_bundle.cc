// libFuzzer entry point: properties in bundle_properties.h
#include <cstddef>
#include <cstdint>

#include "tests/fuzz/bundle_properties.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return pteshare::fuzz::RunProperty(data, size, pteshare::fuzz::CheckReadBundle);
}

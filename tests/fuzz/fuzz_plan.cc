// libFuzzer entry point: properties in plan_properties.h (a program's plan)
// and block_plan_properties.h (the block planner on a problem of its own).
#include <cstddef>
#include <cstdint>

#include "tests/fuzz/block_plan_properties.h"
#include "tests/fuzz/plan_properties.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  pteshare::fuzz::RunProperty(data, size, pteshare::fuzz::CheckPlan);
  return pteshare::fuzz::RunProperty(data, size, pteshare::fuzz::CheckBlockPlan);
}

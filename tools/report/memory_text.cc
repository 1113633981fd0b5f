#include "tools/report/memory_text.h"

#include <algorithm>
#include <cstdio>

#include "rewriter/plan/state_arena.h"
#include "tools/report/numbers.h"

namespace pteshare::cli {

std::string MemoryText(const ProgramView& view, const MemoryCost& cost, const std::string& indent,
                       const std::vector<FrontRegion>& fronts) {
  auto device = [&](uint32_t memory_id) {
    for (const MethodView& m : view.methods) {
      if (const Arena* a = m.arena(memory_id)) {
        return DeviceName(static_cast<int8_t>(a->device), a->device_index);
      }
    }
    for (const FrontRegion& f : fronts) {
      if (f.memory_id == memory_id) {
        return DeviceName(static_cast<int8_t>(f.device), f.device_index) + " (new)";
      }
    }
    return std::string("-");
  };
  auto change = [](uint64_t before, uint64_t after) {
    return before == after ? Grouped(after) + " (unchanged)"
                           : Grouped(before) + " -> " + Grouped(after);
  };
  // One method that plans memory: no choice between one set and a set per
  // method to show, only its arenas.
  const bool several = std::count_if(view.methods.begin(), view.methods.end(),
                                     [](const MethodView& m) { return !PlansNothing(m); }) > 1;
  std::string text = indent + (several ? "memory to allocate: one set of arenas for every method "
                                         "(each arena as large as its largest method) vs a set "
                                         "per method (the sum)\n"
                                       : "memory to allocate:\n");
  auto line = [&](const std::string& what, const ArenaCost& a) {
    char buf[512];
    if (several) {
      std::snprintf(buf, sizeof buf, "%s  %-14s one set %s; separate sets %s\n", indent.c_str(),
                    what.c_str(), change(a.one_set_before, a.one_set_after).c_str(),
                    change(a.separate_before, a.separate_after).c_str());
    } else {
      std::snprintf(buf, sizeof buf, "%s  %-14s %s bytes\n", indent.c_str(), what.c_str(),
                    change(a.one_set_before, a.one_set_after).c_str());
    }
    text += buf;
  };
  for (const ArenaCost& a : cost.arenas) {
    line("arena " + std::to_string(a.memory_id) + " " + device(a.memory_id), a);
  }
  if (cost.arenas.size() > 1) line("total", cost.total);
  return text;
}

}  // namespace pteshare::cli

#include "tools/report/memory_text.h"

#include <cstdio>

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
  std::string text = indent +
                     "memory to allocate: one set of arenas for every method (each arena as large "
                     "as its largest method) vs a set per method (the sum)\n";
  auto line = [&](const std::string& what, const ArenaCost& a) {
    char buf[512];
    std::snprintf(buf, sizeof buf, "%s  %-14s one set %s; separate sets %s\n", indent.c_str(),
                  what.c_str(), change(a.one_set_before, a.one_set_after).c_str(),
                  change(a.separate_before, a.separate_after).c_str());
    text += buf;
  };
  for (const ArenaCost& a : cost.arenas) {
    line("arena " + std::to_string(a.memory_id) + " " + device(a.memory_id), a);
  }
  if (cost.arenas.size() > 1) line("total", cost.total);
  return text;
}

}  // namespace pteshare::cli

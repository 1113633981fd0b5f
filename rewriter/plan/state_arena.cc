#include "rewriter/plan/state_arena.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "rewriter/plan/front_region.h"

namespace pteshare {
namespace {

using DeviceKey = std::pair<int8_t, int8_t>;  // (device type, index): CPU sorts first

std::string DeviceText(DeviceKey device) {
  return pteshare::DeviceText(static_cast<DeviceType>(device.first), device.second);
}

// Every non-empty planned tensor of arena `memory_id` lies inside one of
// the method's buffers in `buffers` (all of them in that arena), and the
// method has that arena.
bool HoldsOnlyState(const MethodView& method, const SharedBufferSet& shared,
                    const std::vector<size_t>& buffers, uint32_t memory_id) {
  if (method.arena(memory_id) == nullptr) return false;
  std::vector<Placement> state;
  for (size_t b : buffers) {
    const auto& value = shared.buffers[b].value_in_method[method.index];
    if (value) state.push_back(method.tensor(*value)->placement);
  }
  // ChooseSharedBuffers refuses overlapping buffers: sorted by offset, the
  // last one starting at or below a tensor is the only one that can hold it.
  std::sort(state.begin(), state.end(),
            [](const Placement& a, const Placement& b) { return a.offset < b.offset; });
  return std::all_of(method.tensors.begin(), method.tensors.end(), [&](const TensorValue& t) {
    if (!t.planned || t.nbytes == 0 || t.placement.memory_id != memory_id) return true;
    auto it = std::partition_point(state.begin(), state.end(), [&](const Placement& p) {
      return p.offset <= t.placement.offset;
    });
    return it != state.begin() && t.placement.end() <= std::prev(it)->end();
  });
}

}  // namespace

bool PlansNothing(const MethodView& method) {
  return std::all_of(method.arenas.begin(), method.arenas.end(),
                     [](const Arena& a) { return a.size == 0; }) &&
         std::none_of(method.tensors.begin(), method.tensors.end(),
                      [](const TensorValue& t) { return t.planned && t.nbytes > 0; });
}

Result<std::vector<FrontRegion>> LayOutStateArenas(const ProgramView& view,
                                                   const SharedBufferSet& shared,
                                                   uint64_t alignment) {
  std::map<DeviceKey, std::vector<size_t>> by_device;  // buffers, in name order
  for (size_t b = 0; b < shared.buffers.size(); ++b) {
    const SharedBuffer& buffer = shared.buffers[b];
    std::optional<DeviceKey> device;
    std::string first_method;
    for (const MethodView& method : view.methods) {
      if (!buffer.value_in_method[method.index]) continue;
      const Arena* arena = method.arena(buffer.memory_id);
      if (arena == nullptr) continue;  // refused earlier (CheckInputPlacements)
      const DeviceKey here{static_cast<int8_t>(arena->device), arena->device_index};
      if (!device) {
        device = here;
        first_method = method.name;
      } else if (*device != here) {
        return Error{"shared buffer '" + buffer.name + "' is in arena " +
                     std::to_string(buffer.memory_id) + " on " + DeviceText(*device) +
                     " in method " + first_method + " but on " + DeviceText(here) + " in method " +
                     method.name + ": one state arena cannot be on both"};
      }
    }
    by_device[device.value_or(DeviceKey{0, 0})].push_back(b);
  }

  size_t most_arenas = 0;
  for (const MethodView& method : view.methods) {
    most_arenas = std::max(most_arenas, method.arenas.size());
  }
  uint32_t next_id = static_cast<uint32_t>(most_arenas) + 1;
  std::vector<FrontRegion> regions;
  for (const auto& entry : by_device) {
    // (Named, not bound: a lambda below uses `buffers`, which clang 14
    // cannot capture from a structured binding.)
    const auto& device = entry.first;
    const auto& buffers = entry.second;
    FrontRegion region;
    region.state_arena = true;
    region.device = static_cast<DeviceType>(device.first);
    region.device_index = device.second;
    std::set<uint32_t> sources;
    for (size_t b : buffers) {
      const SharedBuffer& buffer = shared.buffers[b];
      sources.insert(buffer.memory_id);
      AppendSlot(buffer, alignment, &region);
    }
    const uint32_t only = *sources.begin();
    const bool already =
        sources.size() == 1 &&
        std::all_of(view.methods.begin(), view.methods.end(), [&](const MethodView& method) {
          return PlansNothing(method) || HoldsOnlyState(method, shared, buffers, only);
        });
    region.memory_id = already ? only : next_id++;
    regions.push_back(std::move(region));
  }
  std::sort(regions.begin(), regions.end(),
            [](const FrontRegion& a, const FrontRegion& b) { return a.memory_id < b.memory_id; });
  return regions;
}

size_t ArenaCountAfter(const MethodView& method, const std::vector<FrontRegion>& fronts) {
  size_t count = method.arenas.size();
  // A method that plans nothing (the exporter's constant methods:
  // get_max_seq_len and the like) needs no memory to share and keeps the
  // arenas it has: a device table it lacks is not forced on it.
  if (PlansNothing(method)) return count;
  for (const FrontRegion& f : fronts) {
    if (f.state_arena) count = std::max<size_t>(count, f.memory_id);
  }
  return count;
}

}  // namespace pteshare

#include "tools/synth/method_planner.h"

#include <algorithm>
#include <map>
#include <string>

#include "tools/synth/exporter_greedy.h"
#include "tools/synth/value_lifetimes.h"

namespace pteshare::synth {
namespace {

std::string Where(const MethodSpec& method, ValueIndex index) {
  return "method " + method.name + ", value " + std::to_string(index);
}

const Tensor* TensorAt(const MethodSpec& method, ValueIndex index) {
  if (index < 0 || static_cast<size_t>(index) >= method.values.size()) return nullptr;
  return std::get_if<Tensor>(&method.values[index]);
}

/// A tensor the planner must not give memory: constants, tensors asked to
/// stay unplanned, and DYNAMIC_UNBOUND ones the exporter never plans.
bool IsUnplanned(const Tensor& tensor) {
  if (std::holds_alternative<NotPlanned>(tensor.memory)) return true;
  if (tensor.constant_data.has_value()) return true;
  return std::holds_alternative<PlanInArena>(tensor.memory) &&
         tensor.shape_dynamism == TensorShapeDynamism::DYNAMIC_UNBOUND;
}

/// Follows AliasOf links to the tensor that owns the memory. Fails on a
/// cycle or on a base that is not a planned tensor.
Result<ValueIndex> AliasRoot(const MethodSpec& method, ValueIndex index) {
  ValueIndex current = index;
  for (size_t steps = 0; steps <= method.values.size(); ++steps) {
    const Tensor* tensor = TensorAt(method, current);
    const auto* alias = tensor ? std::get_if<AliasOf>(&tensor->memory) : nullptr;
    if (alias == nullptr) return current;
    const Tensor* base = TensorAt(method, alias->base);
    if (base == nullptr) {
      return Error{Where(method, current) + ": alias base " + std::to_string(alias->base) +
                   " is not a tensor value (method has " + std::to_string(method.values.size()) +
                   " values)"};
    }
    if (base->constant_data.has_value() || std::holds_alternative<NotPlanned>(base->memory)) {
      return Error{Where(method, current) + ": alias base " + std::to_string(alias->base) +
                   " is not planned"};
    }
    current = alias->base;
  }
  return Error{Where(method, index) + ": alias chain has a cycle"};
}

}  // namespace

Result<MethodPlacements> PlanMethod(const MethodSpec& method, uint64_t alignment) {
  if (alignment == 0 || (alignment & (alignment - 1)) != 0) {
    return Error{"plan alignment " + std::to_string(alignment) + " is not a power of two"};
  }
  const size_t count = method.values.size();
  MethodPlacements result;
  result.by_value.resize(count);

  // Alias groups plan as one block that lives as long as any member.
  std::vector<Lifetime> lifetimes = ComputeValueLifetimes(method);
  std::vector<ValueIndex> root(count, -1);
  for (size_t v = 0; v < count; ++v) {
    const Tensor* tensor = TensorAt(method, static_cast<ValueIndex>(v));
    if (tensor == nullptr || IsUnplanned(*tensor)) continue;
    Result<ValueIndex> base = AliasRoot(method, static_cast<ValueIndex>(v));
    if (!base.ok()) return base.error();
    root[v] = *base;
    if (*base != static_cast<ValueIndex>(v)) lifetimes[*base].Cover(lifetimes[v]);
  }

  // Greedy per arena over the PlanInArena roots, in value order.
  std::map<MemoryId, std::vector<ValueIndex>> planned_by_arena;
  for (size_t v = 0; v < count; ++v) {
    const Tensor* tensor = TensorAt(method, static_cast<ValueIndex>(v));
    if (tensor == nullptr || root[v] != static_cast<ValueIndex>(v)) continue;
    if (const auto* fixed = std::get_if<FixedPlacement>(&tensor->memory)) {
      if (fixed->memory_id == 0) return Error{Where(method, v) + ": memory_id 0 is reserved"};
      result.by_value[v] =
          ResolvedPlacement{fixed->memory_id, fixed->offset, TensorNbytes(*tensor)};
    } else if (const auto* arena = std::get_if<PlanInArena>(&tensor->memory)) {
      if (arena->memory_id == 0) return Error{Where(method, v) + ": memory_id 0 is reserved"};
      planned_by_arena[arena->memory_id].push_back(static_cast<ValueIndex>(v));
    }
  }
  std::map<MemoryId, uint64_t> arena_size;
  for (const auto& [memory_id, members] : planned_by_arena) {
    std::vector<GreedyRequest> requests;
    for (ValueIndex v : members) {
      requests.push_back(GreedyRequest{TensorNbytes(*TensorAt(method, v)), lifetimes[v]});
    }
    GreedyPlan plan = PlanGreedy(requests, alignment);
    arena_size[memory_id] = plan.arena_size;
    for (size_t i = 0; i < members.size(); ++i) {
      const Tensor& tensor = *TensorAt(method, members[i]);
      result.by_value[members[i]] =
          ResolvedPlacement{memory_id, plan.offsets[i], TensorNbytes(tensor)};
    }
  }

  // Aliases sit at their root's offset plus the sum of relative offsets.
  for (size_t v = 0; v < count; ++v) {
    if (root[v] < 0 || root[v] == static_cast<ValueIndex>(v)) continue;
    ByteOffset relative = 0;
    for (ValueIndex current = static_cast<ValueIndex>(v); current != root[v];) {
      const auto& alias = std::get<AliasOf>(TensorAt(method, current)->memory);
      relative += alias.relative_offset;
      current = alias.base;
    }
    const ResolvedPlacement& base = *result.by_value[root[v]];
    result.by_value[v] = ResolvedPlacement{base.memory_id, base.offset + relative,
                                           TensorNbytes(*TensorAt(method, v))};
  }

  // Arena sizes: greedy's total, raised to cover any hand-placed tensor.
  MemoryId max_id = 1;
  for (const auto& placement : result.by_value) {
    if (!placement) continue;
    max_id = std::max(max_id, placement->memory_id);
    uint64_t& size = arena_size[placement->memory_id];
    size = std::max(size, placement->offset + placement->nbytes);
  }
  result.non_const_buffer_sizes.assign(max_id + 1, 0);
  for (const auto& [memory_id, size] : arena_size) {
    result.non_const_buffer_sizes[memory_id] = static_cast<int64_t>(size);
  }
  if (method.non_const_buffer_sizes) result.non_const_buffer_sizes = *method.non_const_buffer_sizes;
  return result;
}

}  // namespace pteshare::synth

#include "rewriter/shared_buffers.h"

#include <algorithm>
#include <map>
#include <set>

namespace pteshare {
namespace {

std::string Range(const Placement& p) {
  return "[" + std::to_string(p.offset) + ", " + std::to_string(p.end()) + ")";
}

std::string ValueLabel(const MethodView& method, uint32_t value_index) {
  return "method " + method.name + ", value " + std::to_string(value_index);
}

// Per method: name -> the values carrying it, after --name assignments.
using NamesInMethod = std::map<std::string, std::vector<const TensorValue*>>;

Result<std::vector<NamesInMethod>> CollectNames(const ProgramView& view,
                                                const std::vector<ValueNaming>& namings) {
  std::vector<std::map<uint32_t, std::string>> assigned(view.methods.size());
  for (const ValueNaming& naming : namings) {
    const MethodView* method = view.method(naming.method);
    if (method == nullptr) {
      return Error{"--name " + naming.method + ":" + std::to_string(naming.value_index) + "=" +
                   naming.name + ": the program has no method '" + naming.method + "'"};
    }
    const TensorValue* tensor = method->tensor(naming.value_index);
    if (tensor == nullptr) {
      return Error{"--name: " + ValueLabel(*method, naming.value_index) + " is not a tensor"};
    }
    if (!tensor->name.empty() && tensor->name != naming.name) {
      return Error{"--name: " + ValueLabel(*method, naming.value_index) + " is already named '" +
                   std::string(tensor->name) + "'"};
    }
    assigned[method->index][naming.value_index] = naming.name;
  }
  std::vector<NamesInMethod> names(view.methods.size());
  for (const MethodView& method : view.methods) {
    for (const TensorValue& t : method.tensors) {
      auto it = assigned[method.index].find(t.value_index);
      std::string name = it != assigned[method.index].end() ? it->second : std::string(t.name);
      if (!name.empty()) names[method.index][name].push_back(&t);
    }
  }
  return names;
}

// --share-auto: named mutable buffers present in two or more methods.
std::vector<std::string> AutoNames(const std::vector<NamesInMethod>& names) {
  std::map<std::string, int> methods_with;
  for (const NamesInMethod& in_method : names) {
    for (const auto& [name, values] : in_method) {
      bool mutable_buffer = std::any_of(values.begin(), values.end(), [](const TensorValue* t) {
        return t->is_mutable_buffer();
      });
      if (mutable_buffer) ++methods_with[name];
    }
  }
  std::vector<std::string> chosen;
  for (const auto& [name, count] : methods_with) {
    if (count >= 2) chosen.push_back(name);
  }
  return chosen;
}

// One method's value for `name`: several values may carry it only if they
// share one placement (views of the buffer).
Result<const TensorValue*> PickValue(const MethodView& method, const std::string& name,
                                     const std::vector<const TensorValue*>& values) {
  const TensorValue* first = values.front();
  for (const TensorValue* t : values) {
    if (!t->planned) {
      return Error{"shared buffer '" + name + "' (" + ValueLabel(method, t->value_index) +
                   ") is not a memory-planned tensor"};
    }
    if (t->placement != first->placement) {
      return Error{"shared buffer '" + name + "' names two placements in method " + method.name +
                   ": value " + std::to_string(first->value_index) + " arena " +
                   std::to_string(first->placement.memory_id) + " " + Range(first->placement) +
                   " and value " + std::to_string(t->value_index) + " arena " +
                   std::to_string(t->placement.memory_id) + " " + Range(t->placement)};
    }
  }
  if (first->nbytes == 0) {
    return Error{"shared buffer '" + name + "' (" + ValueLabel(method, first->value_index) +
                 ") has zero bytes"};
  }
  if (method.arena(first->placement.memory_id) == nullptr) {
    return Error{"shared buffer '" + name + "' (" + ValueLabel(method, first->value_index) +
                 ") is in arena " + std::to_string(first->placement.memory_id) +
                 ", which the method does not have (it has " +
                 std::to_string(method.arenas.size()) + ")"};
  }
  return first;
}

// In each method: shared buffers must not overlap each other, and any other
// tensor must lie inside a shared buffer (an alias) or outside it.
Status CheckOverlaps(const ProgramView& view, const SharedBufferSet& set) {
  for (const MethodView& method : view.methods) {
    for (size_t i = 0; i < set.buffers.size(); ++i) {
      const SharedBuffer& a = set.buffers[i];
      if (!a.value_in_method[method.index]) continue;
      const Placement& pa = method.tensor(*a.value_in_method[method.index])->placement;
      for (size_t j = i + 1; j < set.buffers.size(); ++j) {
        const SharedBuffer& b = set.buffers[j];
        if (!b.value_in_method[method.index] || b.memory_id != a.memory_id) continue;
        const Placement& pb = method.tensor(*b.value_in_method[method.index])->placement;
        if (pa.offset < pb.end() && pb.offset < pa.end()) {
          return Error{"method " + method.name + ": shared buffers '" + a.name + "' " + Range(pa) +
                       " and '" + b.name + "' " + Range(pb) + " in arena " +
                       std::to_string(a.memory_id) + " overlap"};
        }
      }
      for (const TensorValue& t : method.tensors) {
        if (!t.planned || t.nbytes == 0 || t.placement.memory_id != a.memory_id) continue;
        const Placement& p = t.placement;
        bool overlaps = p.offset < pa.end() && pa.offset < p.end();
        bool inside = p.offset >= pa.offset && p.end() <= pa.end();
        if (overlaps && !inside) {
          return Error{ValueLabel(method, t.value_index) + " " + Range(p) +
                       " straddles shared buffer '" + a.name + "' " + Range(pa) + " in arena " +
                       std::to_string(a.memory_id)};
        }
      }
    }
  }
  return Status::Ok();
}

}  // namespace

Result<SharedBufferSet> ChooseSharedBuffers(const ProgramView& view, const ShareRequest& request) {
  Result<std::vector<NamesInMethod>> names = CollectNames(view, request.namings);
  if (!names.ok()) return names.error();

  std::set<std::string> chosen(request.names.begin(), request.names.end());
  if (request.share_auto) {
    for (std::string& name : AutoNames(*names)) chosen.insert(std::move(name));
  }
  if (chosen.empty() && !request.allow_none) {
    if (request.share_auto) {
      return Error{
          "--share-auto found no named mutable buffer that appears in two or more "
          "methods (name unnamed buffers with --name METHOD:VALUE_INDEX=NAME)"};
    }
    return Error{"no shared buffer chosen: give --share NAME..., or --share-auto"};
  }

  SharedBufferSet set;
  for (const std::string& name : chosen) {  // std::set: sorted-name order
    SharedBuffer buffer;
    buffer.name = name;
    buffer.value_in_method.resize(view.methods.size());
    const MethodView* first_method = nullptr;
    for (const MethodView& method : view.methods) {
      auto it = (*names)[method.index].find(name);
      if (it == (*names)[method.index].end()) continue;
      Result<const TensorValue*> picked = PickValue(method, name, it->second);
      if (!picked.ok()) return picked.error();
      const TensorValue& t = **picked;
      if (first_method == nullptr) {
        first_method = &method;
        buffer.memory_id = t.placement.memory_id;
        buffer.nbytes = t.nbytes;
      } else if (t.nbytes != buffer.nbytes) {
        return Error{"shared buffer '" + name + "' is " + std::to_string(buffer.nbytes) +
                     " bytes in method " + first_method->name + " but " + std::to_string(t.nbytes) +
                     " bytes in method " + method.name};
      } else if (t.placement.memory_id != buffer.memory_id) {
        return Error{"shared buffer '" + name + "' is in arena " +
                     std::to_string(buffer.memory_id) + " in method " + first_method->name +
                     " but in arena " + std::to_string(t.placement.memory_id) + " in method " +
                     method.name};
      }
      buffer.value_in_method[method.index] = t.value_index;
      if (t.has_initial_state) buffer.methods_with_initial_state.push_back(method.name);
    }
    if (first_method == nullptr) {
      return Error{"shared buffer '" + name + "' is not the name of a tensor in any method"};
    }
    set.buffers.push_back(std::move(buffer));
  }
  Status overlaps = CheckOverlaps(view, set);
  if (!overlaps.ok()) return overlaps.error();
  return set;
}

}  // namespace pteshare

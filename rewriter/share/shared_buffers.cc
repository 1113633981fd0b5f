#include "rewriter/share/shared_buffers.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <set>
#include <tuple>
#include <utility>

#include "rewriter/program/instruction_effects.h"
#include "rewriter/share/alias_evidence.h"

namespace pteshare {
namespace {

std::string Range(const Placement& p) {
  return "[" + std::to_string(p.offset) + ", " + std::to_string(p.end()) + ")";
}

// Per method: name -> the values carrying it, after --name assignments.
using NamesInMethod = std::map<std::string, std::vector<const TensorValue*>>;

struct CollectedNames {
  std::vector<NamesInMethod> by_method;
  /// Per method, value index -> the name --name gave it.
  std::vector<std::map<uint32_t, std::string>> assigned;
};

Result<CollectedNames> CollectNames(const ProgramView& view,
                                    const std::vector<ValueNaming>& namings) {
  CollectedNames names;
  names.assigned.resize(view.methods.size());
  // Per method and value: the naming that named it first, for a second
  // that gives another name.
  std::vector<std::map<uint32_t, const ValueNaming*>> named_by(view.methods.size());
  for (const ValueNaming& naming : namings) {
    if (naming.pair) continue;  // PairUnnamedState's
    const MethodView* method = view.method(naming.method);
    if (method == nullptr) {
      return Error{NamingText(naming) + ": the program has no method '" + naming.method + "'"};
    }
    if (naming.value_index >= method->value_count) {
      return Error{NamingText(naming) + ": method " + method->name + " has " +
                   std::to_string(method->value_count) + " values (0 to " +
                   std::to_string(method->value_count == 0 ? 0 : method->value_count - 1) + ")"};
    }
    const TensorValue* tensor = method->tensor(naming.value_index);
    if (tensor == nullptr) {
      return Error{NamingText(naming) + ": " + ValueLabel(method->name, naming.value_index) +
                   " is not a tensor"};
    }
    if (!tensor->name.empty() && tensor->name != naming.name) {
      return Error{NamingText(naming) + ": " + ValueLabel(method->name, naming.value_index) +
                   " is already named '" + std::string(tensor->name) + "'"};
    }
    auto [first, fresh] = named_by[method->index].emplace(naming.value_index, &naming);
    if (!fresh && first->second->name != naming.name) {
      return Error{NamingText(naming) + ": " + ValueLabel(method->name, naming.value_index) +
                   " is already named '" + first->second->name + "' by " +
                   NamingText(*first->second)};
    }
    names.assigned[method->index][naming.value_index] = naming.name;
  }
  names.by_method.resize(view.methods.size());
  for (const MethodView& method : view.methods) {
    for (const TensorValue& t : method.tensors) {
      auto it = names.assigned[method.index].find(t.value_index);
      std::string name =
          it != names.assigned[method.index].end() ? it->second : std::string(t.name);
      if (!name.empty()) names.by_method[method.index][name].push_back(&t);
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

// The unnamed mutable buffers of one method, by value index.
std::vector<const TensorValue*> UnnamedState(const MethodView& method,
                                             const std::map<uint32_t, std::string>& assigned) {
  std::vector<const TensorValue*> state;
  for (const TensorValue& t : method.tensors) {
    if (t.planned && t.nbytes > 0 && t.has_initial_state && t.name.empty() &&
        assigned.count(t.value_index) == 0) {
      state.push_back(&t);
    }
  }
  return state;
}

std::string Describe(const MethodView& method, const TensorValue& t) {
  return method.name + ":" + std::to_string(t.value_index) + " " + t.Shape() + " arena " +
         std::to_string(t.placement.memory_id);
}

// The names `paired_state.K=NAME` namings give, by K; an error for a K
// named twice with two names.
Result<std::map<uint32_t, const ValueNaming*>> PairNames(const std::vector<ValueNaming>& namings) {
  std::map<uint32_t, const ValueNaming*> by_pair;
  for (const ValueNaming& naming : namings) {
    if (!naming.pair) continue;
    auto [first, fresh] = by_pair.emplace(*naming.pair, &naming);
    if (!fresh && first->second->name != naming.name) {
      return Error{NamingText(naming) + ": pair " + std::to_string(*naming.pair) +
                   " is already named '" + first->second->name + "' by " +
                   NamingText(*first->second)};
    }
  }
  return by_pair;
}

// Pairs the k-th unnamed mutable buffer of every method that has any (see
// shared_buffers.h). Pair K is named by a `paired_state.K=NAME` naming, or
// with --share-auto paired_state.K; without --share-auto only the pairs so
// named are kept. Adds the kept pairs' names to `names`.
Result<std::vector<StatePairing>> PairUnnamedState(const ProgramView& view,
                                                   const std::vector<ValueNaming>& namings,
                                                   bool share_auto, CollectedNames* names) {
  Result<std::map<uint32_t, const ValueNaming*>> pair_names = PairNames(namings);
  if (!pair_names.ok()) return pair_names.error();
  const ValueNaming* first_naming = pair_names->empty() ? nullptr : pair_names->begin()->second;
  // Who asked for the pairing, as an error about it starts.
  const std::string asker = share_auto     ? "--share-auto "
                            : first_naming ? NamingText(*first_naming) + ": "
                                           : "";
  std::vector<const MethodView*> with_state;
  std::vector<std::vector<const TensorValue*>> state;
  for (const MethodView& method : view.methods) {
    std::vector<const TensorValue*> s = UnnamedState(method, names->assigned[method.index]);
    if (s.empty()) continue;
    with_state.push_back(&method);
    state.push_back(std::move(s));
  }
  std::vector<StatePairing> pairings;
  if (with_state.size() < 2) {
    if (first_naming == nullptr) return pairings;
    return Error{NamingText(*first_naming) + ": no unnamed state pairs between methods (" +
                 (with_state.empty() ? std::string("no method has unnamed mutable buffers")
                                     : "only method " + with_state[0]->name + " has any") +
                 "); name values with METHOD:VALUE_INDEX=NAME"};
  }
  const MethodView& first = *with_state[0];
  // The --name options that pair the k-th buffers by hand.
  auto by_hand = [&](size_t k) {
    std::string text;
    for (size_t m = 0; m < with_state.size(); ++m) {
      if (k >= state[m].size()) continue;
      text += (text.empty() ? "" : " ") + std::string("--name ") + with_state[m]->name + ":" +
              std::to_string(state[m][k]->value_index) + "=NAME";
    }
    return text;
  };
  for (size_t m = 1; m < with_state.size(); ++m) {
    const size_t n = std::min(state[0].size(), state[m].size());
    for (size_t k = 0; k < n; ++k) {
      const TensorValue& a = *state[0][k];
      const TensorValue& b = *state[m][k];
      if (a.SameShape(b) && a.placement.memory_id == b.placement.memory_id) continue;
      return Error{asker + "cannot pair the unnamed state of methods " + first.name + " and " +
                   with_state[m]->name + ": unnamed mutable buffer " + std::to_string(k) + " is " +
                   Describe(first, a) + " but " + Describe(*with_state[m], b) +
                   "; name the buffers to share by hand, e.g. " + by_hand(k) + " and --share NAME"};
    }
    if (state[0].size() != state[m].size()) {
      const bool first_longer = state[0].size() > state[m].size();
      const MethodView& longer = first_longer ? first : *with_state[m];
      const TensorValue& extra = *(first_longer ? state[0] : state[m])[n];
      return Error{asker + "cannot pair the unnamed state of methods " + first.name + " and " +
                   with_state[m]->name + ": they have " + std::to_string(state[0].size()) +
                   " and " + std::to_string(state[m].size()) +
                   " unnamed mutable buffers (the first without a partner is " +
                   Describe(longer, extra) +
                   "); name the buffers to share by hand with --name METHOD:VALUE=NAME and "
                   "--share NAME"};
    }
  }
  const size_t count = state[0].size();
  if (!pair_names->empty() && pair_names->rbegin()->first >= count) {
    const ValueNaming& past = *pair_names->rbegin()->second;
    return Error{NamingText(past) + ": there " +
                 (count == 1 ? "is 1 pair" : "are " + std::to_string(count) + " pairs") +
                 " of unnamed state, " + PairedStateName(0, count) +
                 (count == 1 ? "" : " to " + PairedStateName(count - 1, count))};
  }
  for (size_t k = 0; k < count; ++k) {
    auto given = pair_names->find(static_cast<uint32_t>(k));
    if (given == pair_names->end() && !share_auto) continue;
    StatePairing pairing;
    pairing.position = static_cast<uint32_t>(k);
    pairing.position_name = given == pair_names->end();
    pairing.name = pairing.position_name ? PairedStateName(k, count) : given->second->name;
    pairing.shape = state[0][k]->Shape();
    pairing.memory_id = state[0][k]->placement.memory_id;
    for (size_t m = 0; m < with_state.size(); ++m) {
      const TensorValue* t = state[m][k];
      pairing.values.emplace_back(with_state[m]->index, t->value_index);
      NamesInMethod& in_method = names->by_method[with_state[m]->index];
      if (in_method.count(pairing.name) != 0) {
        return Error{asker + "the name " + pairing.name + " it would give " +
                     ValueLabel(with_state[m]->name, t->value_index) +
                     " is already a name in that method"};
      }
      in_method[pairing.name].push_back(t);
    }
    pairings.push_back(std::move(pairing));
  }
  return pairings;
}

std::string JoinWords(const std::vector<std::string>& words) {
  std::string text;
  for (const std::string& w : words) text += (text.empty() ? "" : ", ") + w;
  return text;
}

// One method's value for `name`: several values may carry it only if they
// share one placement (views of the buffer).
Result<const TensorValue*> PickValue(const MethodView& method, const std::string& name,
                                     const std::vector<const TensorValue*>& values) {
  const TensorValue* first = values.front();
  for (const TensorValue* t : values) {
    if (!t->planned) {
      return Error{"shared buffer '" + name + "' (" + ValueLabel(method.name, t->value_index) +
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
    return Error{"shared buffer '" + name + "' (" + ValueLabel(method.name, first->value_index) +
                 ") has zero bytes"};
  }
  if (method.arena(first->placement.memory_id) == nullptr) {
    return Error{"shared buffer '" + name + "' (" + ValueLabel(method.name, first->value_index) +
                 ") is in arena " + std::to_string(first->placement.memory_id) +
                 ", which the method does not have (it has " +
                 std::to_string(method.arenas.size()) + ")"};
  }
  return first;
}

// The method's shared buffers with their placements, by (arena, offset).
struct PlacedBuffer {
  Placement placement;
  size_t buffer = 0;
};

std::vector<PlacedBuffer> PlacedBuffers(const MethodView& method, const SharedBufferSet& set) {
  std::vector<PlacedBuffer> placed;
  for (size_t i = 0; i < set.buffers.size(); ++i) {
    const auto& value = set.buffers[i].value_in_method[method.index];
    if (value) placed.push_back({method.tensor(*value)->placement, i});
  }
  std::sort(placed.begin(), placed.end(), [](const PlacedBuffer& a, const PlacedBuffer& b) {
    return a.placement.memory_id != b.placement.memory_id
               ? a.placement.memory_id < b.placement.memory_id
               : a.placement.offset < b.placement.offset;
  });
  return placed;
}

// "shared buffer 'k_cache'" or "private state 'prefill:22'", for messages.
std::string BufferLabel(const SharedBuffer& buffer) {
  return (buffer.private_state ? "private state '" : "shared buffer '") + buffer.name + "'";
}

// An arena that some method has on another device (type or index) than the
// first method that has it: that memory_id is no one memory.
struct SplitArena {
  const MethodView* first = nullptr;  // the first method with the arena
  const MethodView* other = nullptr;  // the first method after it with another device
};

// The arenas on two devices, by memory_id.
std::map<uint32_t, SplitArena> ArenasOnTwoDevices(const ProgramView& view) {
  std::map<uint32_t, const MethodView*> first_with;
  std::map<uint32_t, SplitArena> split;
  for (const MethodView& method : view.methods) {
    for (const Arena& arena : method.arenas) {
      auto [it, first] = first_with.emplace(arena.memory_id, &method);
      if (!first && !arena.SameDevice(*it->second->arena(arena.memory_id))) {
        split.try_emplace(arena.memory_id, SplitArena{it->second, &method});
      }
    }
  }
  return split;
}

// An arena that holds a shared buffer must be on one device in every
// method that has it: one set of arenas is one buffer per memory_id, and a
// buffer cannot be CUDA memory for one method and CPU memory for another.
Status CheckArenaDevices(const SharedBufferSet& set, const std::map<uint32_t, SplitArena>& split) {
  for (const SharedBuffer& buffer : set.buffers) {
    auto it = split.find(buffer.memory_id);
    if (it == split.end()) continue;
    const Arena& first = *it->second.first->arena(buffer.memory_id);
    const Arena& other = *it->second.other->arena(buffer.memory_id);
    return Error{"arena " + std::to_string(buffer.memory_id) + " is on " +
                 DeviceText(first.device, first.device_index) + " in method " +
                 it->second.first->name + " but on " +
                 DeviceText(other.device, other.device_index) + " in method " +
                 it->second.other->name + ", and " + BufferLabel(buffer) +
                 " is in it: one arena cannot be shared across two devices"};
  }
  return Status::Ok();
}

// In each method: shared buffers must not overlap each other; any other
// tensor lies outside every shared buffer or inside one, and inside only as
// an alias the program shows. O(n log n) per method.
Status CheckOverlaps(const ProgramView& view, const SharedBufferSet& set) {
  for (const MethodView& method : view.methods) {
    const std::vector<PlacedBuffer> placed = PlacedBuffers(method, set);
    if (placed.empty()) continue;
    for (size_t i = 1; i < placed.size(); ++i) {
      // Sorted by start: if any two overlap, two neighbours do.
      const PlacedBuffer& a = placed[i - 1];
      const PlacedBuffer& b = placed[i];
      if (a.placement.memory_id == b.placement.memory_id &&
          b.placement.offset < a.placement.end()) {
        return Error{"method " + method.name + ": " + BufferLabel(set.buffers[a.buffer]) + " " +
                     Range(a.placement) + " and " + BufferLabel(set.buffers[b.buffer]) + " " +
                     Range(b.placement) + " in arena " + std::to_string(a.placement.memory_id) +
                     " overlap"};
      }
    }
    for (const TensorValue& t : method.tensors) {
      if (!t.planned || t.nbytes == 0) continue;
      const Placement& p = t.placement;
      // The last buffer starting below p's end is the only one p can
      // overlap without lying outside all of them (the buffers are disjoint).
      auto it = std::lower_bound(
          placed.begin(), placed.end(), p, [](const PlacedBuffer& b, const Placement& x) {
            return b.placement.memory_id != x.memory_id ? b.placement.memory_id < x.memory_id
                                                        : b.placement.offset < x.end();
          });
      if (it == placed.begin()) continue;
      const PlacedBuffer& b = *std::prev(it);
      const Placement& pb = b.placement;
      const bool overlaps = pb.memory_id == p.memory_id && p.offset < pb.end();
      const bool inside = p.offset >= pb.offset && p.end() <= pb.end();
      if (overlaps && !inside) {
        return Error{ValueLabel(method.name, t.value_index) + " " + Range(p) + " straddles " +
                     BufferLabel(set.buffers[b.buffer]) + " " + Range(pb) + " in arena " +
                     std::to_string(pb.memory_id)};
      }
    }
    std::vector<BufferInMethod> buffers;
    for (const PlacedBuffer& b : placed) {
      buffers.push_back({b.buffer, *set.buffers[b.buffer].value_in_method[method.index]});
    }
    const SharedAliases aliases = FindSharedAliases(method, buffers);
    if (!aliases.intruders.empty()) {
      const Intruder& in = aliases.intruders.front();
      const TensorValue& t = *method.tensor(in.value_index);
      const SharedBuffer& b = set.buffers[in.buffer];
      const Placement& pb = method.tensor(*b.value_in_method[method.index])->placement;
      std::string more;
      if (aliases.intruders.size() > 1) {
        more = " (and " + std::to_string(aliases.intruders.size() - 1) + " more like it)";
      }
      return Error{ValueLabel(method.name, in.value_index) + " " + t.Shape() + " at " +
                   Range(t.placement) + " of arena " + std::to_string(pb.memory_id) +
                   " lies inside " + BufferLabel(b) + " " + Range(pb) + " but " + in.why +
                   ": it would overwrite the " + (b.private_state ? "private" : "shared") +
                   " state" + more};
    }
  }
  return Status::Ok();
}

// Once anything is shared the methods run on one set of arenas, so the
// state each method keeps for itself must be out of the others' way too
// (issue 23: a private buffer of prefill and one of decode ended on the same
// bytes; state left out of --share was planned over by the other method).
// Every mutable buffer of a method that no shared buffer of that method
// holds becomes a private buffer of that method; a view inside another
// private buffer (or inside a shared one) goes with it. An arena on another
// device in some method is no one memory to begin with, so its state needs
// no slot: nothing of another method can be there. Labels: the name
// where only this method has it, "NAME@METHOD" where others have the name
// too, "METHOD:VALUE" for unnamed state.
Status AddPrivateState(const ProgramView& view, const CollectedNames& names,
                       const std::map<uint32_t, SplitArena>& split, SharedBufferSet* set) {
  std::vector<SharedBuffer> kept;
  std::set<std::string> left_out;
  for (const MethodView& method : view.methods) {
    // The shared buffers' bytes in this method, by (arena, offset), with
    // the furthest end so far in each arena: a placement lies inside one of
    // them if that end, up to its offset, reaches past its end. (A search,
    // not a look at every buffer per state tensor: 2,048 caches of a
    // 1,024-layer LLM made that 4 M comparisons per method.)
    std::vector<std::pair<Placement, uint64_t>> held;
    for (const SharedBuffer& b : set->buffers) {
      const auto& value = b.value_in_method[method.index];
      if (value) held.push_back({method.tensor(*value)->placement, 0});
    }
    std::sort(held.begin(), held.end(), [](const auto& a, const auto& b) {
      return std::tie(a.first.memory_id, a.first.offset) <
             std::tie(b.first.memory_id, b.first.offset);
    });
    for (size_t i = 0; i < held.size(); ++i) {
      const bool same_arena = i > 0 && held[i - 1].first.memory_id == held[i].first.memory_id;
      held[i].second = std::max(held[i].first.end(), same_arena ? held[i - 1].second : 0);
    }
    auto held_inside = [&](const Placement& p) {
      auto after =
          std::upper_bound(held.begin(), held.end(), p, [](const Placement& x, const auto& h) {
            return std::tie(x.memory_id, x.offset) < std::tie(h.first.memory_id, h.first.offset);
          });
      if (after == held.begin()) return false;
      const auto& last = *std::prev(after);
      return last.first.memory_id == p.memory_id && last.second >= p.end();
    };
    // The private buffers taken so far come in (arena, offset) order (the
    // state is sorted so): all of this arena's start at or before p.
    bool taken = false;
    uint32_t taken_arena = 0;
    uint64_t taken_end = 0;
    std::vector<const TensorValue*> state;
    for (const TensorValue& t : method.tensors) {
      if (t.nbytes > 0 && t.is_mutable_buffer() && split.count(t.placement.memory_id) == 0) {
        state.push_back(&t);
      }
    }
    // Largest first at each offset, so views come after what holds them.
    std::sort(state.begin(), state.end(), [](const TensorValue* a, const TensorValue* b) {
      const Placement& x = a->placement;
      const Placement& y = b->placement;
      if (x.memory_id != y.memory_id) return x.memory_id < y.memory_id;
      if (x.offset != y.offset) return x.offset < y.offset;
      if (x.nbytes != y.nbytes) return x.nbytes > y.nbytes;
      return a->value_index < b->value_index;
    });
    for (const TensorValue* t : state) {
      const Placement& p = t->placement;
      if (held_inside(p) || (taken && taken_arena == p.memory_id && taken_end >= p.end())) {
        continue;
      }
      SharedBuffer buffer;
      if (t->name.empty()) {
        buffer.name = method.name + ":" + std::to_string(t->value_index);
      } else {
        const std::string name(t->name);
        const bool elsewhere =
            std::any_of(view.methods.begin(), view.methods.end(), [&](const MethodView& other) {
              return other.index != method.index && names.by_method[other.index].count(name) != 0;
            });
        buffer.name = elsewhere ? name + "@" + method.name : name;
        if (elsewhere) {
          left_out.insert(name);
          set->left_out_bytes += t->nbytes;
        }
      }
      buffer.memory_id = p.memory_id;
      buffer.nbytes = t->nbytes;
      buffer.value_in_method.resize(view.methods.size());
      buffer.value_in_method[method.index] = t->value_index;
      if (t->has_initial_state) buffer.methods_with_initial_state.push_back(method.name);
      buffer.private_state = true;
      taken_end = taken && taken_arena == p.memory_id ? std::max(taken_end, p.end()) : p.end();
      taken_arena = p.memory_id;
      taken = true;
      kept.push_back(std::move(buffer));
    }
  }
  std::sort(kept.begin(), kept.end(),
            [](const SharedBuffer& a, const SharedBuffer& b) { return a.name < b.name; });
  std::set<std::string> labels;
  for (const SharedBuffer& b : set->buffers) labels.insert(b.name);
  for (SharedBuffer& b : kept) {
    if (!labels.insert(b.name).second) {
      size_t owner = 0;
      while (!b.value_in_method[owner]) ++owner;
      return Error{"private state of method " + view.methods[owner].name + " would be labelled '" +
                   b.name +
                   "', which is also the name of another buffer: refused rather than "
                   "plan two buffers under one label"};
    }
    set->buffers.push_back(std::move(b));
  }
  set->left_out.assign(left_out.begin(), left_out.end());
  return Status::Ok();
}

// Every --name must end up naming a shared buffer: a name that is not is a
// mistake the user should hear about, not an option silently dropped.
Status CheckNamingsUsed(const ProgramView& view, const std::vector<ValueNaming>& namings,
                        const std::set<std::string>& chosen,
                        const std::vector<NamesInMethod>& names) {
  for (const ValueNaming& naming : namings) {
    if (chosen.count(naming.name) != 0) continue;
    std::vector<std::string> in;
    for (const MethodView& method : view.methods) {
      if (names[method.index].count(naming.name) != 0) in.push_back(method.name);
    }
    if (in.size() >= 2) {
      return Error{NamingText(naming) + ": '" + naming.name + "' names buffers of methods " +
                   JoinWords(in) + " but is not shared: --share " + naming.name +
                   ", or use --share-auto"};
    }
    return Error{NamingText(naming) + ": '" + naming.name +
                 "' is not shared: it names a value in method " + JoinWords(in) +
                 " only; give the same name to the buffer in another method, and --share it "
                 "or use --share-auto"};
  }
  return Status::Ok();
}

}  // namespace

std::vector<std::string> MethodsWithState(const ProgramView& view) {
  std::vector<std::string> methods;
  for (const MethodView& method : view.methods) {
    if (std::any_of(method.tensors.begin(), method.tensors.end(),
                    [](const TensorValue& t) { return t.is_mutable_buffer(); })) {
      methods.push_back(method.name);
    }
  }
  return methods;
}

std::string PairedStateName(size_t k, size_t count) {
  const size_t width = std::max<size_t>(3, std::to_string(count == 0 ? 0 : count - 1).size());
  std::string digits = std::to_string(k);
  return std::string(kPairedStatePrefix) +
         std::string(width - std::min(width, digits.size()), '0') + digits;
}

Result<SharedBufferSet> ChooseSharedBuffers(const ProgramView& view, const ShareRequest& request) {
  Result<CollectedNames> collected = CollectNames(view, request.namings);
  if (!collected.ok()) return collected.error();
  SharedBufferSet set;
  std::set<std::string> chosen(request.names.begin(), request.names.end());
  if (request.share_auto) {
    for (std::string& name : AutoNames(collected->by_method)) chosen.insert(std::move(name));
  }
  Result<std::vector<StatePairing>> pairings =
      PairUnnamedState(view, request.namings, request.share_auto, &*collected);
  if (!pairings.ok()) return pairings.error();
  for (const StatePairing& pairing : *pairings) {
    if (request.share_auto) chosen.insert(pairing.name);
  }
  set.pairings = std::move(pairings).value();
  const std::vector<NamesInMethod>& names = collected->by_method;
  Status used = CheckNamingsUsed(view, request.namings, chosen, names);
  if (!used.ok()) return used.error();
  if (chosen.empty() && request.share_auto) {
    const std::vector<std::string> with_state = MethodsWithState(view);
    if (with_state.size() >= 2) {
      return Error{"--share-auto shares nothing, but methods " + JoinWords(with_state) +
                   " have mutable state: no buffer name appears in two of them and their "
                   "unnamed state does not pair; name the buffers to share with --name "
                   "METHOD:VALUE_INDEX=NAME and --share NAME"};
    }
    set.nothing_to_share = with_state.empty()
                               ? "no method has mutable state"
                               : "only method " + with_state.front() + " has mutable state";
    return set;
  }
  if (chosen.empty() && !request.allow_none) {
    return Error{"no shared buffer chosen: give --share NAME..., or --share-auto"};
  }

  for (const std::string& name : chosen) {  // std::set: sorted-name order
    SharedBuffer buffer;
    buffer.name = name;
    buffer.value_in_method.resize(view.methods.size());
    const MethodView* first_method = nullptr;
    const TensorValue* first_tensor = nullptr;
    for (const MethodView& method : view.methods) {
      auto it = names[method.index].find(name);
      if (it == names[method.index].end()) continue;
      Result<const TensorValue*> picked = PickValue(method, name, it->second);
      if (!picked.ok()) return picked.error();
      const TensorValue& t = **picked;
      if (first_method == nullptr) {
        first_method = &method;
        first_tensor = &t;
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
      } else if (!t.SameShape(*first_tensor)) {
        // Equal byte sizes are not enough: FLOAT in one method and INT32
        // in the other, or another dim order, would read each other's
        // state as garbage.
        return Error{"shared buffer '" + name + "' is " + first_tensor->Shape() + " in method " +
                     first_method->name + " but " + t.Shape() + " in method " + method.name +
                     ": one buffer must have one scalar type, sizes and dim order"};
      }
      buffer.value_in_method[method.index] = t.value_index;
      if (t.has_initial_state) buffer.methods_with_initial_state.push_back(method.name);
    }
    if (first_method == nullptr) {
      return Error{"shared buffer '" + name + "' is not the name of a tensor in any method"};
    }
    set.buffers.push_back(std::move(buffer));
  }
  const std::map<uint32_t, SplitArena> split = ArenasOnTwoDevices(view);
  if (!set.buffers.empty()) {
    Status kept = AddPrivateState(view, *collected, split, &set);
    if (!kept.ok()) return kept.error();
  }
  Status devices = CheckArenaDevices(set, split);
  if (!devices.ok()) return devices.error();
  Status overlaps = CheckOverlaps(view, set);
  if (!overlaps.ok()) return overlaps.error();
  return set;
}

std::string NamingText(const ValueNaming& naming) {
  const std::string text =
      naming.pair ? PairedStateName(*naming.pair, 0) + "=" + naming.name
                  : naming.method + ":" + std::to_string(naming.value_index) + "=" + naming.name;
  return naming.origin.empty() ? "--name " + text : naming.origin + ": " + text;
}

std::string PairingLabel(const ProgramView& view, const StatePairing& pairing) {
  if (!pairing.position_name) return pairing.name;
  std::string methods;
  for (const auto& [method, value] : pairing.values) {
    methods += (methods.empty() ? "" : "/") + view.methods[method].name;
  }
  return pairing.name + ": position " + std::to_string(pairing.position) + " of " + methods +
         "; no name in the program";
}

Result<std::vector<ValueNaming>> NamingsByValue(const ProgramView& view,
                                                const std::vector<ValueNaming>& namings) {
  Result<CollectedNames> collected = CollectNames(view, namings);
  if (!collected.ok()) return collected.error();
  Result<std::vector<StatePairing>> pairings =
      PairUnnamedState(view, namings, /*share_auto=*/false, &*collected);
  if (!pairings.ok()) return pairings.error();
  std::vector<ValueNaming> by_value;
  for (const ValueNaming& naming : namings) {
    if (!naming.pair) by_value.push_back(naming);
  }
  for (const StatePairing& pairing : *pairings) {
    for (const auto& [method, value] : pairing.values) {
      by_value.push_back(ValueNaming{view.methods[method].name, value, pairing.name});
    }
  }
  return by_value;
}

std::optional<ValueNaming> ParseValuePosition(std::string_view text) {
  if (text.substr(0, kPairedStatePrefix.size()) == kPairedStatePrefix) {
    ValueNaming naming;
    uint32_t pair = 0;
    const char* first = text.data() + kPairedStatePrefix.size();
    const char* last = text.data() + text.size();
    auto [end, ec] = std::from_chars(first, last, pair);
    if (ec != std::errc() || end != last || first == last) return std::nullopt;
    naming.pair = pair;
    return naming;
  }
  const size_t colon = text.rfind(':');
  if (colon == std::string_view::npos || colon == 0) return std::nullopt;
  ValueNaming naming;
  naming.method = std::string(text.substr(0, colon));
  const char* first = text.data() + colon + 1;
  const char* last = text.data() + text.size();
  auto [end, ec] = std::from_chars(first, last, naming.value_index);
  if (ec != std::errc() || end != last || first == last) return std::nullopt;
  return naming;
}

}  // namespace pteshare

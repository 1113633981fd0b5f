#include "rewriter/share/alias_evidence.h"

#include <algorithm>

namespace pteshare {
namespace {

/// The buffers of one method by (arena, offset), to find the one holding a
/// placement with a binary search.
class BufferIndex {
 public:
  BufferIndex(const MethodView& method, const std::vector<BufferInMethod>& buffers) {
    for (const BufferInMethod& b : buffers) {
      const TensorValue* t = method.tensor(b.value_index);
      if (t != nullptr && t->planned && t->nbytes > 0) entries_.push_back({t->placement, b.buffer});
    }
    std::sort(entries_.begin(), entries_.end(), [](const Entry& a, const Entry& b) {
      return a.placement.memory_id != b.placement.memory_id
                 ? a.placement.memory_id < b.placement.memory_id
                 : a.placement.offset < b.placement.offset;
    });
  }

  /// The buffer whose bytes contain all of `p`, or -1.
  int32_t Containing(const Placement& p) const {
    auto it = std::upper_bound(
        entries_.begin(), entries_.end(), p, [](const Placement& x, const Entry& e) {
          return x.memory_id != e.placement.memory_id ? x.memory_id < e.placement.memory_id
                                                      : x.offset < e.placement.offset;
        });
    if (it == entries_.begin()) return -1;
    --it;
    const Placement& b = it->placement;
    const bool inside = b.memory_id == p.memory_id && b.offset <= p.offset && p.end() <= b.end();
    return inside ? static_cast<int32_t>(it->buffer) : -1;
  }

 private:
  struct Entry {
    Placement placement;
    size_t buffer = 0;
  };
  std::vector<Entry> entries_;
};

}  // namespace

SharedAliases FindSharedAliases(const MethodView& method,
                                const std::vector<BufferInMethod>& buffers) {
  const MethodEffects& effects = method.effects;
  SharedAliases out;
  out.buffer_of.assign(method.value_count, -1);
  const BufferIndex index(method, buffers);
  // candidate[v]: the buffer value v lies inside (not yet accepted), or -1.
  std::vector<int32_t> candidate(method.value_count, -1);
  for (const BufferInMethod& b : buffers) {
    if (b.value_index < method.value_count) {
      out.buffer_of[b.value_index] = static_cast<int32_t>(b.buffer);
    }
  }
  for (const TensorValue& t : method.tensors) {
    if (!t.planned || t.nbytes == 0 || out.buffer_of[t.value_index] >= 0) continue;
    candidate[t.value_index] = index.Containing(t.placement);
  }

  // The instructions that write each candidate.
  std::vector<std::vector<int64_t>> writers(method.value_count);
  for (int64_t time = 0; time < effects.instruction_count(); ++time) {
    auto [touch, end] = effects.TouchesOf(time);
    for (; touch != end; ++touch) {
      std::vector<int64_t>& w = writers[touch->value];
      if (touch->writes && candidate[touch->value] >= 0 && (w.empty() || w.back() != time)) {
        w.push_back(time);
      }
    }
  }
  const std::vector<bool> input = ValueFlags(method.inputs, method.value_count);

  // Does instruction `time` reference buffer `b` or an accepted alias of
  // it, other than `v` itself?
  auto shows_buffer = [&](int64_t time, int32_t b, uint32_t v) {
    auto [touch, end] = effects.TouchesOf(time);
    for (; touch != end; ++touch) {
      if (touch->value != v && out.buffer_of[touch->value] == b) return true;
    }
    return false;
  };
  std::vector<uint32_t> open;  // candidates not yet accepted, by value index
  for (const TensorValue& t : method.tensors) {
    const uint32_t v = t.value_index;
    if (candidate[v] < 0 || input[v] || t.has_initial_state) {
      if (candidate[v] >= 0) open.push_back(v);
      continue;
    }
    if (writers[v].empty()) {
      out.buffer_of[v] = candidate[v];  // a static view
    } else {
      open.push_back(v);
    }
  }
  for (bool changed = true; changed;) {
    changed = false;
    for (uint32_t v : open) {
      if (out.buffer_of[v] >= 0 || input[v] || method.tensor(v)->has_initial_state) continue;
      const bool shown = std::all_of(writers[v].begin(), writers[v].end(), [&](int64_t time) {
        return shows_buffer(time, candidate[v], v);
      });
      if (shown) {
        out.buffer_of[v] = candidate[v];
        changed = true;
      }
    }
  }

  for (uint32_t v : open) {
    if (out.buffer_of[v] >= 0) continue;
    Intruder intruder;
    intruder.value_index = v;
    intruder.buffer = static_cast<size_t>(candidate[v]);
    if (input[v]) {
      intruder.why = "is a method input (the caller writes it)";
    } else if (method.tensor(v)->has_initial_state) {
      intruder.why = "has an initial state of its own (the loader writes it)";
    } else {
      const auto shows = [&](int64_t time) { return shows_buffer(time, candidate[v], v); };
      const int64_t time = *std::find_if_not(writers[v].begin(), writers[v].end(), shows);
      intruder.why = "is written by instruction " + std::to_string(time) +
                     ", which references neither the buffer nor an alias of it";
    }
    out.intruders.push_back(std::move(intruder));
  }
  return out;
}

}  // namespace pteshare

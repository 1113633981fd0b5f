#include "runtime_check/alias_evidence.h"

#include <algorithm>

namespace pteshare::runtime_check::internal {
namespace {

class UseReader {
 public:
  explicit UseReader(const MethodLayout& method)
      : method_(method),
        values_(method.tables->values),
        count_(values_.size()),
        referenced_(count_, false) {}

  std::vector<InstructionUse> Run() && {
    for (const InstructionTable& instruction : method_.tables->instructions) {
      InstructionUse use;
      Read(instruction, &use);
      for (uint32_t v : use.references) referenced_[v] = true;
      uses_.push_back(std::move(use));
    }
    return std::move(uses_);
  }

 private:
  void Read(const InstructionTable& instruction, InstructionUse* use) {
    switch (instruction.kind) {
      case InstructionKind::kKernelCall: {
        const std::vector<int32_t>& args = instruction.args;
        const size_t n = args.size();
        // The longest suffix that repeats the args just before it.
        size_t tail = 0;
        for (size_t k = n / 2; k >= 1 && tail == 0; --k) {
          if (std::equal(args.begin() + static_cast<long>(n - k), args.end(),
                         args.begin() + static_cast<long>(n - 2 * k))) {
            tail = k;
          }
        }
        for (size_t i = 0; i < n; ++i) Add(args[i], i >= n - tail, use);
        return;
      }
      case InstructionKind::kDelegateCall:
        for (int32_t arg : instruction.args) Add(arg, DefinedHere(arg), use);
        return;
      case InstructionKind::kMoveCall:
        Add(instruction.first, false, use);  // move_from
        Add(instruction.second, true, use);  // move_to
        return;
      case InstructionKind::kJumpFalseCall:  // cond_value_index
      case InstructionKind::kFreeCall:       // value_index
        Add(instruction.first, false, use);
        return;
      case InstructionKind::kOther:
        return;
    }
  }

  bool InRange(int64_t v) const { return v >= 0 && static_cast<size_t>(v) < count_; }

  bool DefinedHere(int64_t v) const {
    if (!InRange(v) || referenced_[static_cast<size_t>(v)]) return false;
    const PlannedTensor* t = method_.Find(static_cast<uint32_t>(v));
    return t != nullptr && !t->is_input && !t->has_initial_state;
  }

  void Add(int64_t v, bool writes, InstructionUse* use) {
    if (!InRange(v)) return;
    AddOne(static_cast<uint32_t>(v), writes, use);
    const ValueTable& value = values_[static_cast<size_t>(v)];
    if (value.kind != ValueKind::kTensorList) return;
    for (int32_t item : value.items) {
      if (InRange(item)) AddOne(static_cast<uint32_t>(item), writes, use);
    }
  }

  static void AddOne(uint32_t v, bool writes, InstructionUse* use) {
    use->references.push_back(v);
    if (writes) use->writes.push_back(v);
  }

  const MethodLayout& method_;
  const std::vector<ValueTable>& values_;
  const size_t count_;
  std::vector<bool> referenced_;
  std::vector<InstructionUse> uses_;
};

}  // namespace

std::vector<InstructionUse> ReadInstructionUses(const MethodLayout& method) {
  if (method.tables == nullptr) return {};
  return UseReader(method).Run();
}

AliasJudge::AliasJudge(const MethodLayout& method, const std::vector<InstructionUse>& uses)
    : method_(method), uses_(uses), writers_(method.value_count) {
  for (uint32_t i = 0; i < uses.size(); ++i) {
    for (uint32_t v : uses[i].writes) {
      if (v < writers_.size() && (writers_[v].empty() || writers_[v].back() != i)) {
        writers_[v].push_back(i);
      }
    }
  }
}

std::vector<std::string> AliasJudge::Judge(uint32_t buffer_value,
                                           const std::vector<size_t>& inside) const {
  std::vector<std::string> why(inside.size());
  // Only the buffer and the tensors inside it can be accepted: their values,
  // sorted, with a flag each (not a flag for every value of the method for
  // every buffer, which made a program with thousands of caches quadratic).
  std::vector<uint32_t> members;
  if (buffer_value < method_.value_count) members.push_back(buffer_value);
  for (size_t t : inside) members.push_back(method_.tensors[t].value_index);
  std::sort(members.begin(), members.end());
  members.erase(std::unique(members.begin(), members.end()), members.end());
  std::vector<bool> accepted(members.size(), false);
  auto member = [&](uint32_t v) {
    return static_cast<size_t>(std::lower_bound(members.begin(), members.end(), v) -
                               members.begin());
  };
  auto is_accepted = [&](uint32_t v) {
    const size_t k = member(v);
    return k < members.size() && members[k] == v && accepted[k];
  };
  if (buffer_value < method_.value_count) accepted[member(buffer_value)] = true;
  std::vector<bool> done(inside.size(), false);
  // An instruction shows the buffer when it references it or an accepted
  // alias (other than the tensor being judged).
  auto shows = [&](uint32_t instruction, uint32_t v) {
    const std::vector<uint32_t>& refs = uses_[instruction].references;
    return std::any_of(refs.begin(), refs.end(),
                       [&](uint32_t r) { return r != v && is_accepted(r); });
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t i = 0; i < inside.size(); ++i) {
      const PlannedTensor& t = method_.tensors[inside[i]];
      if (done[i] || t.is_input || t.has_initial_state) continue;
      const std::vector<uint32_t>& w = writers_[t.value_index];
      if (std::all_of(w.begin(), w.end(), [&](uint32_t at) { return shows(at, t.value_index); })) {
        accepted[member(t.value_index)] = true;
        done[i] = changed = true;
      }
    }
  }
  for (size_t i = 0; i < inside.size(); ++i) {
    if (done[i]) continue;
    const PlannedTensor& t = method_.tensors[inside[i]];
    if (t.is_input) {
      why[i] = "is a method input, which the caller writes";
    } else if (t.has_initial_state) {
      why[i] = "has an initial state of its own, which the loader writes";
    } else {
      const std::vector<uint32_t>& w = writers_[t.value_index];
      const auto it =
          std::find_if(w.begin(), w.end(), [&](uint32_t at) { return !shows(at, t.value_index); });
      why[i] = "is written by instruction " + std::to_string(it != w.end() ? *it : 0) +
               ", which references neither the buffer nor an alias of it";
    }
  }
  return why;
}

}  // namespace pteshare::runtime_check::internal

#include "rewriter/patch/table_reuse.h"

#include <algorithm>
#include <bit>
#include <map>
#include <set>
#include <tuple>

namespace pteshare {
namespace {

// The state of the assignment while it is being made. Invariant: every
// reference in users_[t] wants final_value[t]; a reference in no users_ set
// is pending (it has no table yet).
class Assigner {
 public:
  Assigner(const std::vector<TableSlot>& slots, const std::vector<TableReference>& references)
      : slots_(slots), references_(references), users_(slots.size()) {
    out_.final_value.reserve(slots.size());
    for (const TableSlot& slot : slots) out_.final_value.push_back(slot.current);
    for (size_t r = 0; r < references.size(); ++r) users_[references[r].table].insert(r);
  }

  TableAssignment Run() {
    SettleAgreedTables();
    for (size_t t = 0; t < slots_.size(); ++t) AddHost(t);
    PointAtExistingTables();
    TakeOverTables();
    return Finish();
  }

 private:
  using Host = std::pair<uint64_t, size_t>;  // (file offset, slot), ordered by offset

  // Step 1, and the pending references it leaves.
  void SettleAgreedTables() {
    for (size_t t = 0; t < slots_.size(); ++t) {
      if (users_[t].empty()) continue;
      const AllocationValue wanted = references_[*users_[t].begin()].wanted;
      const bool agreed = std::all_of(users_[t].begin(), users_[t].end(),
                                      [&](size_t r) { return references_[r].wanted == wanted; });
      if (agreed && CanHold(slots_[t].stored, wanted)) out_.final_value[t] = wanted;
      for (auto it = users_[t].begin(); it != users_[t].end();) {
        if (references_[*it].wanted == out_.final_value[t]) {
          ++it;
        } else {
          pending_.push_back(*it);
          it = users_[t].erase(it);
        }
      }
    }
    std::sort(pending_.begin(), pending_.end());
  }

  // Step 2.
  void PointAtExistingTables() {
    std::vector<size_t> still;
    for (size_t r : pending_) {
      const std::optional<size_t> host = HighestHost(references_[r].wanted, std::nullopt);
      if (host && slots_[*host].at > references_[r].reference_at) {
        users_[*host].insert(r);
      } else {
        still.push_back(r);
      }
    }
    pending_ = std::move(still);
  }

  // Step 3.
  void TakeOverTables() {
    std::map<AllocationValue, std::vector<size_t>> by_value;
    for (size_t r : pending_) by_value[references_[r].wanted].push_back(r);
    // (furthest reference, value), hardest first.
    std::vector<std::pair<uint64_t, AllocationValue>> order;
    for (const auto& [value, refs] : by_value) {
      uint64_t furthest = 0;
      for (size_t r : refs) furthest = std::max(furthest, references_[r].reference_at);
      order.emplace_back(furthest, value);
    }
    std::sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
      return std::tie(b.first, a.second) < std::tie(a.first, b.second);
    });
    for (const auto& [furthest, value] : order) {
      std::optional<size_t> taken = BestTableFor(value, furthest);
      if (!taken) {
        out_.appended.push_back(value);
        continue;
      }
      TakeOver(*taken, value);
      for (size_t r : by_value[value]) users_[*taken].insert(r);
      ++out_.tables_taken_over;
    }
    std::sort(out_.appended.begin(), out_.appended.end());
  }

  // The table step 3 takes for `value`, all of whose references lie below
  // `furthest` + 1: (no tensor left < tensors can move) then fewest fields
  // stored, then lowest.
  std::optional<size_t> BestTableFor(const AllocationValue& value, uint64_t furthest) const {
    std::optional<size_t> best;
    std::tuple<int, int, uint64_t> best_key;
    for (size_t t = 0; t < slots_.size(); ++t) {
      const TableSlot& slot = slots_[t];
      if (slot.at <= furthest || !CanHold(slot.stored, value)) continue;
      int cost = 0;
      if (!users_[t].empty()) {
        if (!UsersCanMove(t)) continue;
        cost = 1;
      }
      const std::tuple<int, int, uint64_t> key{cost, std::popcount(slot.stored), slot.at};
      if (!best || key < best_key) {
        best = t;
        best_key = key;
      }
    }
    return best;
  }

  // Whether every tensor pointing at `t` could point at another table that
  // says the same value and lies after all of their references.
  bool UsersCanMove(size_t t) const {
    const std::optional<size_t> other = HighestHost(out_.final_value[t], t);
    if (!other) return false;
    for (size_t r : users_[t]) {
      if (references_[r].reference_at >= slots_[*other].at) return false;
    }
    return true;
  }

  void TakeOver(size_t t, const AllocationValue& value) {
    if (!users_[t].empty()) {
      const size_t other = *HighestHost(out_.final_value[t], t);
      users_[other].insert(users_[t].begin(), users_[t].end());
      users_[t].clear();
    }
    hosts_[out_.final_value[t]].erase({slots_[t].at, t});
    out_.final_value[t] = value;
    AddHost(t);
  }

  void AddHost(size_t t) { hosts_[out_.final_value[t]].insert({slots_[t].at, t}); }

  // The highest table saying `value`, other than `except`.
  std::optional<size_t> HighestHost(const AllocationValue& value,
                                    std::optional<size_t> except) const {
    auto it = hosts_.find(value);
    if (it == hosts_.end()) return std::nullopt;
    for (auto host = it->second.rbegin(); host != it->second.rend(); ++host) {
      if (host->second != except) return host->second;
    }
    return std::nullopt;
  }

  TableAssignment Finish() {
    out_.target.assign(references_.size(), std::nullopt);
    for (size_t t = 0; t < slots_.size(); ++t) {
      // A table nobody points at keeps its bytes.
      if (users_[t].empty()) out_.final_value[t] = slots_[t].current;
      for (size_t r : users_[t]) out_.target[r] = t;
    }
    return std::move(out_);
  }

  const std::vector<TableSlot>& slots_;
  const std::vector<TableReference>& references_;
  std::vector<std::set<size_t>> users_;
  std::map<AllocationValue, std::set<Host>> hosts_;
  std::vector<size_t> pending_;
  TableAssignment out_;
};

}  // namespace

TableAssignment AssignTables(const std::vector<TableSlot>& slots,
                             const std::vector<TableReference>& references) {
  return Assigner(slots, references).Run();
}

}  // namespace pteshare

#include "tools/pteshare/plan_report.h"

#include <charconv>
#include <cstdio>

#include "tools/pteshare/command_registry.h"
#include "tools/pteshare/number_option.h"
#include "tools/pteshare/output.h"

namespace pteshare::cli {
namespace {

// "; LB 900, relocate 1,234, replan 1,000 -> replan": what each strategy
// gives the arena, when replan ran.
std::string StrategySizes(const MethodPlan& m, size_t i) {
  if (i >= m.arena_lower_bounds.size() || i >= m.arena_sizes_replan.size()) return "";
  std::string text = "; LB " + Grouped(m.arena_lower_bounds[i]) + ", relocate " +
                     Grouped(m.arena_sizes_relocate[i]) + ", replan ";
  text += m.arena_sizes_replan[i] ? Grouped(*m.arena_sizes_replan[i]) : "-";
  if (i < m.arena_strategies.size()) text += " -> " + m.arena_strategies[i];
  return text;
}

}  // namespace

void PlanningOptions::AddTo(CLI::App* command) {
  command
      ->add_option("--strategy", strategy,
                   "How to make room for the front regions. relocate: shift the other tensors "
                   "by a translation that keeps every overlap (needs no lifetimes; arenas "
                   "without a front stay as they are). replan: plan every arena again from the "
                   "tensors' lifetimes (smaller arenas; never larger than relocate). best: per "
                   "method and arena the smaller of the two")
      ->check(CLI::IsMember({"relocate", "replan", "best"}))
      ->default_str("best");
  command
      ->add_option("--alignment", alignment,
                   "Alignment of the shared slots, a power of two (default: detected from the "
                   "input, the largest power of two >= 16 dividing every planned offset)")
      ->check(UnsignedInteger());
  command
      ->add_option("--arena-limit", arena_limits,
                   "Arena ID may take at most BYTES in every method (repeatable); if no plan "
                   "fits, exit 1 saying by how much it misses")
      ->type_name("ID=BYTES");
}

namespace {

Result<std::pair<uint32_t, uint64_t>> ParseArenaLimit(const std::string& text) {
  const size_t eq = text.find('=');
  uint32_t id = 0;
  uint64_t bytes = 0;
  bool ok = eq != std::string::npos && eq > 0 && eq + 1 < text.size();
  if (ok) {
    auto [id_end, id_ec] = std::from_chars(text.data(), text.data() + eq, id);
    auto [bytes_end, bytes_ec] =
        std::from_chars(text.data() + eq + 1, text.data() + text.size(), bytes);
    ok = id_ec == std::errc() && id_end == text.data() + eq && bytes_ec == std::errc() &&
         bytes_end == text.data() + text.size();
  }
  if (!ok) return Error{"--arena-limit '" + text + "': expected ID=BYTES, e.g. 1=1048576"};
  if (id == 0) return Error{"--arena-limit '" + text + "': arena ids start at 1"};
  return std::make_pair(id, bytes);
}

}  // namespace

Result<PlanOptions> PlanningOptions::ToPlanOptions() const {
  PlanOptions options;
  if (strategy == "relocate") {
    options.strategy = Strategy::kRelocate;
  } else if (strategy == "replan") {
    options.strategy = Strategy::kReplan;
  } else if (strategy == "best") {
    options.strategy = Strategy::kBest;
  } else {
    return Error{"--strategy '" + strategy + "': expected relocate, replan or best"};
  }
  options.alignment = alignment;
  options.compare_strategies = compare_strategies;
  for (const std::string& text : arena_limits) {
    Result<std::pair<uint32_t, uint64_t>> limit = ParseArenaLimit(text);
    if (!limit.ok()) return limit.error();
    auto [it, fresh] = options.arena_limits.insert(*limit);
    if (!fresh && it->second != limit->second) {
      return Error{"--arena-limit: arena " + std::to_string(limit->first) +
                   " is given two limits, " + std::to_string(it->second) + " and " +
                   std::to_string(limit->second)};
    }
  }
  return options;
}

PlanOutcome PlanAndVerify(const std::string& file, const ProgramView& view,
                          const ShareOptions& share, const PlanningOptions& planning) {
  PlanOutcome outcome;
  Result<ShareRequest> request = share.ToRequest();
  Result<PlanOptions> options = planning.ToPlanOptions();
  if (!request.ok() || !options.ok()) {
    PrintFileError(file, request.ok() ? options.error() : request.error());
    outcome.exit_status = kExitBadInput;
    return outcome;
  }
  // Replanning alone shrinks arenas: sharing nothing is a valid request.
  request->allow_none = options->strategy != Strategy::kRelocate;
  Result<PlanInput> input = MakePlan(view, *request, *options);
  if (!input.ok()) {
    PrintFileError(file, input.error());
    outcome.exit_status = kExitBadInput;
    return outcome;
  }
  if (!input->plan.limit_misses.empty()) {
    std::string misses;  // one line, however many methods miss
    for (const std::string& miss : input->plan.limit_misses) {
      misses += (misses.empty() ? "" : "; ") + miss;
    }
    PrintFileError(file, Error{"no plan fits --arena-limit: " + misses});
    outcome.exit_status = kExitFindings;
    outcome.missed_limit = std::move(input).value();
    return outcome;
  }
  if (!input->plan.nothing_to_share.empty()) {
    PrintFileError(
        file,
        Error{"nothing to share: " + input->plan.nothing_to_share +
              (options->strategy == Strategy::kRelocate ? "" : "; the arenas are only replanned")});
  }
  outcome.violations = VerifyPlan(view, input->shared, input->plan);
  outcome.input = std::move(input).value();
  if (!outcome.violations.empty()) {
    for (const PlanViolation& v : outcome.violations) {
      PrintFileError(file, Error{"plan violates " + v.invariant + ": " + v.message});
    }
    PrintFileError(file, Error{"refusing the plan: " + std::to_string(outcome.violations.size()) +
                               " invariant violation(s); this is a pteshare bug, please report "
                               "it with the file"});
    outcome.exit_status = kExitFindings;
  }
  return outcome;
}

std::vector<std::string> PairingLines(const ProgramView& view, const SharedBufferSet& shared) {
  std::vector<std::string> lines;
  for (const StatePairing& pairing : shared.pairings) {
    std::string line;
    for (const auto& [method, value] : pairing.values) {
      line +=
          (line.empty() ? "" : " <-> ") + view.methods[method].name + ":" + std::to_string(value);
    }
    lines.push_back(line + "  " + pairing.shape + "  arena " + std::to_string(pairing.memory_id) +
                    "  (" + pairing.name + ")");
  }
  return lines;
}

std::string MemoryText(const ProgramView& view, const MemoryCost& cost, const std::string& indent) {
  auto device = [&](uint32_t memory_id) {
    for (const MethodView& m : view.methods) {
      if (const Arena* a = m.arena(memory_id)) {
        return DeviceName(static_cast<int8_t>(a->device), a->device_index);
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

void WriteMemoryJson(JsonWriter& json, const MemoryCost& cost) {
  auto fields = [&](const ArenaCost& a) {
    json.Field("one_set_before", a.one_set_before)
        .Field("one_set_after", a.one_set_after)
        .Field("separate_before", a.separate_before)
        .Field("separate_after", a.separate_after);
  };
  json.Key("memory").BeginObject();
  json.Key("arenas").BeginArray();
  for (const ArenaCost& a : cost.arenas) {
    json.BeginObject().Field("memory_id", a.memory_id);
    fields(a);
    json.EndObject();
  }
  json.EndArray();
  json.Key("total").BeginObject();
  fields(cost.total);
  json.EndObject().EndObject();
}

void PrintPlanText(const std::string& file, const ProgramView& view, const PlanOutcome& outcome) {
  const Plan& plan = outcome.input->plan;
  const SharedBufferSet& shared = outcome.input->shared;
  std::printf("%s: plan (strategy %s, alignment %llu)\n", file.c_str(), plan.strategy.c_str(),
              static_cast<unsigned long long>(plan.alignment));
  const std::vector<std::string> pairs = PairingLines(view, shared);
  if (!pairs.empty()) {
    std::printf("  paired %zu unnamed mutable buffer%s by position (--share-auto):\n", pairs.size(),
                pairs.size() == 1 ? "" : "s");
    for (const std::string& pair : pairs) std::printf("    %s\n", pair.c_str());
  }
  for (const FrontRegion& f : plan.fronts) {
    std::printf("  front region of arena %u: [0, %s) bytes, %zu shared buffer%s\n", f.memory_id,
                Grouped(f.size).c_str(), f.slots.size(), f.slots.size() == 1 ? "" : "s");
    for (const FrontSlot& s : f.slots) {
      std::printf("    %-48s offset %s, %s bytes\n", s.name.c_str(), Grouped(s.offset).c_str(),
                  Grouped(s.nbytes).c_str());
    }
  }
  for (const MethodPlan& m : plan.methods) {
    std::printf("\n  method %s: %zu of %zu planned tensors move\n", m.name.c_str(), m.moved_count(),
                m.moves.size());
    for (size_t i = 0; i < m.arena_sizes_before.size(); ++i) {
      const uint32_t id = static_cast<uint32_t>(i + 1);
      const FrontRegion* f = plan.front(id);
      const Arena* arena = view.methods[m.method_index].arena(id);
      std::string change =
          m.arena_sizes_before[i] == m.arena_sizes_after[i]
              ? "unchanged"
              : (m.arena_sizes_after[i] > m.arena_sizes_before[i] ? "+" : "-") +
                    Grouped(m.arena_sizes_after[i] > m.arena_sizes_before[i]
                                ? m.arena_sizes_after[i] - m.arena_sizes_before[i]
                                : m.arena_sizes_before[i] - m.arena_sizes_after[i]);
      std::printf("    arena %u %-7s %s -> %s bytes (%s)%s%s\n", id,
                  DeviceName(static_cast<int8_t>(arena->device), arena->device_index).c_str(),
                  Grouped(m.arena_sizes_before[i]).c_str(), Grouped(m.arena_sizes_after[i]).c_str(),
                  change.c_str(), f ? (", front " + Grouped(f->size)).c_str() : "",
                  StrategySizes(m, i).c_str());
    }
    for (const SharedBuffer& b : shared.buffers) {
      const auto& value = b.value_in_method[m.method_index];
      if (!value) {
        std::printf("    %-48s (not in this method; its slot stays reserved)\n", b.name.c_str());
        continue;
      }
      for (const TensorMove& move : m.moves) {
        if (move.value_index != *value) continue;
        std::printf("    %-48s value %u: offset %s -> %s\n", b.name.c_str(), *value,
                    Grouped(move.before.offset).c_str(), Grouped(move.after.offset).c_str());
      }
    }
  }
  std::printf("\n%s", MemoryText(view, ComputeMemoryCost(plan), "  ").c_str());
  for (const std::string& w : plan.warnings) std::printf("\n  warning: %s", w.c_str());
  if (!plan.warnings.empty()) std::printf("\n");
  if (outcome.violations.empty()) {
    std::printf("\n  verified: I1 I2 I3 I4 I5 I6 hold\n");
  }
}

void WritePlanJson(JsonWriter& json, const ProgramView& view, const PlanOutcome& outcome) {
  const Plan& plan = outcome.input->plan;
  const SharedBufferSet& shared = outcome.input->shared;
  json.Field("strategy", plan.strategy).Field("alignment", plan.alignment);
  json.Key("pairs").BeginArray();
  for (const StatePairing& pairing : shared.pairings) {
    json.BeginObject().Field("name", pairing.name).Field("shape", pairing.shape);
    json.Field("memory_id", pairing.memory_id).Key("values").BeginArray();
    for (const auto& [method, value] : pairing.values) {
      json.BeginObject()
          .Field("method", view.methods[method].name)
          .Field("value_index", value)
          .EndObject();
    }
    json.EndArray().EndObject();
  }
  json.EndArray();
  json.Key("nothing_to_share");
  if (plan.nothing_to_share.empty()) {
    json.Null();
  } else {
    json.String(plan.nothing_to_share);
  }
  json.Key("fronts").BeginArray();
  for (const FrontRegion& f : plan.fronts) {
    json.BeginObject().Field("memory_id", f.memory_id).Field("size", f.size);
    json.Key("slots").BeginArray();
    for (const FrontSlot& s : f.slots) {
      json.BeginObject()
          .Field("name", s.name)
          .Field("offset", s.offset)
          .Field("nbytes", s.nbytes)
          .EndObject();
    }
    json.EndArray().EndObject();
  }
  json.EndArray();
  json.Key("methods").BeginArray();
  for (const MethodPlan& m : plan.methods) {
    json.BeginObject()
        .Field("name", m.name)
        .Field("planned_tensors", static_cast<uint64_t>(m.moves.size()))
        .Field("moved_tensors", static_cast<uint64_t>(m.moved_count()));
    json.Key("arenas").BeginArray();
    for (size_t i = 0; i < m.arena_sizes_before.size(); ++i) {
      const uint32_t id = static_cast<uint32_t>(i + 1);
      const Arena* arena = view.methods[m.method_index].arena(id);
      const FrontRegion* f = plan.front(id);
      json.BeginObject()
          .Field("memory_id", id)
          .Field("device", DeviceName(static_cast<int8_t>(arena->device), arena->device_index))
          .Field("size_before", m.arena_sizes_before[i])
          .Field("size_after", m.arena_sizes_after[i])
          .Field("front", f ? f->size : uint64_t{0});
      if (i < m.arena_strategies.size()) json.Field("strategy", m.arena_strategies[i]);
      if (i < m.arena_lower_bounds.size()) json.Field("lower_bound", m.arena_lower_bounds[i]);
      if (i < m.arena_sizes_relocate.size()) json.Field("size_relocate", m.arena_sizes_relocate[i]);
      if (i < m.arena_sizes_replan.size()) {
        json.Key("size_replan");
        if (m.arena_sizes_replan[i]) {
          json.Uint(*m.arena_sizes_replan[i]);
        } else {
          json.Null();
        }
      }
      json.EndObject();
    }
    json.EndArray();
    json.Key("shared").BeginArray();
    for (const SharedBuffer& b : shared.buffers) {
      const auto& value = b.value_in_method[m.method_index];
      if (!value) continue;
      for (const TensorMove& move : m.moves) {
        if (move.value_index != *value) continue;
        json.BeginObject()
            .Field("name", b.name)
            .Field("value_index", *value)
            .Field("memory_id", move.after.memory_id)
            .Field("offset_before", move.before.offset)
            .Field("offset_after", move.after.offset)
            .Field("nbytes", move.after.nbytes)
            .EndObject();
      }
    }
    json.EndArray().EndObject();
  }
  json.EndArray();
  WriteMemoryJson(json, ComputeMemoryCost(plan));
  json.Key("warnings").BeginArray();
  for (const std::string& w : plan.warnings) json.String(w);
  json.EndArray();
  json.Field("verified", outcome.violations.empty());
  json.Key("violations").BeginArray();
  for (const PlanViolation& v : outcome.violations) {
    json.BeginObject().Field("invariant", v.invariant).Field("message", v.message).EndObject();
  }
  json.EndArray();
}

}  // namespace pteshare::cli

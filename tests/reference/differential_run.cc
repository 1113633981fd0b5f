#include "tests/reference/differential_run.h"

namespace pteshare::reference {
namespace {

/// Name -> value index of every named planned tensor of one method: its
/// fully_qualified_name, or a name the request gives it by position.
std::map<std::string, uint32_t> NamedBuffers(const fb::ExecutionPlan& plan,
                                             const std::string& method,
                                             const std::vector<ValueNaming>& namings) {
  std::map<std::string, uint32_t> named;
  const auto* values = plan.values();
  for (uint32_t v = 0; values != nullptr && v < values->size(); ++v) {
    const fb::Tensor* t = values->Get(v)->val_as_Tensor();
    if (t == nullptr || t->allocation_info() == nullptr || t->extra_tensor_info() == nullptr) {
      continue;
    }
    const auto* fqn = t->extra_tensor_info()->fully_qualified_name();
    if (fqn != nullptr && fqn->size() > 0) named.emplace(fqn->str(), v);
  }
  for (const ValueNaming& naming : namings) {
    if (naming.method == method) named[naming.name] = naming.value_index;
  }
  return named;
}

std::string AddressText(const uint8_t* p) { return std::to_string(reinterpret_cast<uintptr_t>(p)); }

}  // namespace

Result<SharedBufferIndex> ResolveSharedBuffers(const ReferenceProgram& program,
                                               const ShareRequest& request) {
  std::map<std::string, std::map<std::string, uint32_t>> found;  // name -> method -> value
  for (const std::string& method : program.method_names()) {
    for (const auto& [name, value] :
         NamedBuffers(*program.method(method), method, request.namings)) {
      found[name][method] = value;
    }
  }
  std::vector<std::string> wanted = request.names;
  if (request.share_auto) {
    for (const auto& [name, methods] : found) {
      if (methods.size() >= 2) wanted.push_back(name);
    }
  }
  SharedBufferIndex index;
  for (const std::string& name : wanted) {
    auto it = found.find(name);
    if (it == found.end()) return Error{"no method has a buffer named " + name};
    index[name] = it->second;
  }
  return index;
}

Result<std::vector<StepOutcome>> RunSteps(const RunSetup& setup,
                                          const std::vector<StepInput>& steps) {
  const std::vector<std::string> names = setup.program->method_names();
  auto overrides_of = [&](const std::string& method) -> const PlacementOverrides* {
    if (setup.overrides == nullptr) return nullptr;
    auto it = setup.overrides->find(method);
    return it == setup.overrides->end() ? nullptr : &it->second;
  };

  // Arenas first (they must outlive the methods), then load in program order.
  std::vector<std::unique_ptr<ArenaSet>> arenas;
  if (setup.binding == Binding::kSharedArenas) {
    std::vector<std::vector<uint64_t>> sizes;
    for (const std::string& m : names)
      sizes.push_back(setup.program->ArenaSizes(m, overrides_of(m)));
    arenas.push_back(std::make_unique<ArenaSet>(LargestArenaSizes(sizes)));
  } else {
    for (const std::string& m : names) {
      arenas.push_back(std::make_unique<ArenaSet>(setup.program->ArenaSizes(m, overrides_of(m))));
    }
  }
  std::map<std::string, LoadedMethod> methods;
  for (size_t i = 0; i < names.size(); ++i) {
    ArenaSet& bound = *arenas[setup.binding == Binding::kSharedArenas ? 0 : i];
    Result<LoadedMethod> loaded =
        LoadedMethod::Load(setup.program, names[i], bound, overrides_of(names[i]));
    if (!loaded.ok()) return loaded.error();
    methods.emplace(names[i], std::move(loaded).value());
  }

  // The state every method must see: in shared arenas it is the memory
  // itself (one address, checked here); separately it is a copy per name,
  // starting from what loading the methods in order would leave there.
  std::map<std::string, std::vector<uint8_t>> logical;
  for (const auto& [buffer, holders] : setup.shared) {
    const uint8_t* address = nullptr;
    for (const std::string& m : names) {
      auto it = holders.find(m);
      if (it == holders.end()) continue;
      const LoadedMethod& method = methods.at(m);
      if (setup.binding == Binding::kSharedArenas) {
        const uint8_t* here = method.TensorAddress(it->second);
        if (address != nullptr && here != address) {
          return Error{"shared buffer " + buffer + " is at address " + AddressText(here) +
                       " in method " + m + " but at " + AddressText(address) +
                       " in an earlier method"};
        }
        address = here;
      } else if (method.HasInitialState(it->second) || !logical.contains(buffer)) {
        Result<std::vector<uint8_t>> bytes = method.TensorBytes(it->second);
        if (!bytes.ok()) return bytes.error();
        logical[buffer] = std::move(bytes).value();
      }
    }
  }

  std::vector<StepOutcome> outcomes;
  for (size_t s = 0; s < steps.size(); ++s) {
    const StepInput& step = steps[s];
    auto found = methods.find(step.method);
    if (found == methods.end())
      return Error{"step " + std::to_string(s) + ": no method " + step.method};
    LoadedMethod& method = found->second;
    const std::string where = "step " + std::to_string(s) + " (" + step.method + "): ";
    const bool copy_state = setup.binding == Binding::kSeparateArenasCopyState;
    for (const auto& [buffer, holders] : setup.shared) {
      auto it = holders.find(step.method);
      if (copy_state && it != holders.end()) {
        if (Status st = method.WriteTensorBytes(it->second, logical[buffer]); !st) {
          return Error{where + st.error().message};
        }
      }
    }
    if (step.inputs.size() != method.input_count()) {
      return Error{where + std::to_string(step.inputs.size()) + " inputs given, method takes " +
                   std::to_string(method.input_count())};
    }
    for (size_t i = 0; i < step.inputs.size(); ++i) {
      if (Status st = method.SetInput(i, step.inputs[i]); !st)
        return Error{where + st.error().message};
    }
    if (Status st = method.Execute(); !st) return Error{where + st.error().message};

    StepOutcome& outcome = outcomes.emplace_back();
    for (size_t o = 0; o < method.output_count(); ++o) {
      Result<std::vector<uint8_t>> bytes = method.Output(o);
      if (!bytes.ok()) return Error{where + bytes.error().message};
      outcome.outputs.push_back(std::move(bytes).value());
    }
    for (const auto& [buffer, holders] : setup.shared) {
      auto it = holders.find(step.method);
      if (copy_state) {
        if (it != holders.end()) {
          Result<std::vector<uint8_t>> bytes = method.TensorBytes(it->second);
          if (!bytes.ok()) return Error{where + bytes.error().message};
          logical[buffer] = std::move(bytes).value();
        }
        outcome.state[buffer] = logical[buffer];
      } else {
        // Any holder sees the same memory; read it through the first.
        const auto& [holder, value] = *holders.begin();
        Result<std::vector<uint8_t>> bytes = methods.at(holder).TensorBytes(value);
        if (!bytes.ok()) return Error{where + bytes.error().message};
        outcome.state[buffer] = std::move(bytes).value();
      }
    }
  }
  return outcomes;
}

}  // namespace pteshare::reference

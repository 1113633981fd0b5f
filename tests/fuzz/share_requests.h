// The share requests a user would plausibly make for a program, for the
// fuzz targets that plan: --share-auto, every name, the first name, and a
// --name given by position (picked by one byte of the input, so the fuzzer
// can steer it).
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "rewriter/plan/planner.h"
#include "rewriter/program/program_view.h"

namespace pteshare::fuzz {

inline std::vector<ShareRequest> PlausibleRequests(const ProgramView& view, uint8_t choice) {
  std::vector<ShareRequest> requests;
  ShareRequest automatic;
  automatic.share_auto = true;
  requests.push_back(automatic);

  std::set<std::string> names;
  const TensorValue* unnamed = nullptr;
  const MethodView* unnamed_method = nullptr;
  size_t planned_seen = 0;
  for (const MethodView& method : view.methods) {
    for (const TensorValue& t : method.tensors) {
      if (!t.name.empty()) names.emplace(t.name);
      if (t.planned && t.name.empty() && planned_seen++ % 251 == choice % 251u) {
        unnamed = &t;
        unnamed_method = &method;
      }
    }
  }
  if (!names.empty()) {
    ShareRequest all;
    all.names.assign(names.begin(), names.end());
    requests.push_back(all);
    ShareRequest one;
    one.names.push_back(*names.begin());
    requests.push_back(one);
  }
  if (unnamed != nullptr) {
    ShareRequest by_position;
    by_position.namings.push_back({unnamed_method->name, unnamed->value_index, "fuzz.named"});
    by_position.names.push_back("fuzz.named");
    requests.push_back(by_position);
  }
  return requests;
}

/// The request as command-line options, for failure messages.
inline std::string Describe(const ShareRequest& request, const PlanOptions& options) {
  std::string text = request.share_auto ? "--share-auto" : "";
  for (const std::string& name : request.names) text += " --share " + name;
  for (const ValueNaming& n : request.namings) {
    text += " --name " + n.method + ":" + std::to_string(n.value_index) + "=" + n.name;
  }
  return text + " --strategy " + StrategyName(options.strategy) + " --alignment " +
         std::to_string(options.alignment);
}

}  // namespace pteshare::fuzz

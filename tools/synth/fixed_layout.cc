#include "tools/synth/fixed_layout.h"

#include "tools/synth/program_builder.h"

namespace pteshare::synth {

ProgramSpec FixedLayoutSpec(const std::vector<FixedMethod>& methods) {
  ProgramSpec spec;
  for (const FixedMethod& fixed : methods) {
    MethodSpec& method = spec.methods.emplace_back();
    method.name = fixed.name;
    for (const FixedTensor& t : fixed.tensors) {
      Tensor tensor;
      tensor.scalar_type = t.scalar_type;
      tensor.sizes =
          t.sizes.empty() ? std::vector<int32_t>{static_cast<int32_t>(t.nbytes / 4)} : t.sizes;
      tensor.dim_order = t.dim_order;
      tensor.memory = FixedPlacement{t.memory_id, t.offset};
      if (!t.name.empty()) tensor.fully_qualified_name = t.name;
      if (t.initial_state) tensor.initial_state = std::vector<uint8_t>(t.nbytes, 0);
      method.Add(tensor);
    }
    if (!fixed.arena_sizes.empty()) {
      std::vector<int64_t> sizes{0};
      sizes.insert(sizes.end(), fixed.arena_sizes.begin(), fixed.arena_sizes.end());
      method.non_const_buffer_sizes = sizes;
    }
    method.arena_devices = fixed.devices;
  }
  return spec;
}

Result<std::vector<uint8_t>> BuildFixedLayout(const std::vector<FixedMethod>& methods) {
  return BuildProgram(FixedLayoutSpec(methods));
}

}  // namespace pteshare::synth

#include "tools/synth/program_spec.h"

#include "tensor_nbytes.h"

namespace pteshare::synth {

uint64_t ElementSize(ScalarType type) {
  // The loader's rule, shared with rewriter/ and runtime_check/.
  return fb::ElementSize(static_cast<int8_t>(type));
}

// Out of line on purpose: inlined, GCC 12 warns (falsely) that a moved
// std::variant may be uninitialized.
ValueIndex MethodSpec::Add(Value value) {
  values.push_back(std::move(value));
  return static_cast<ValueIndex>(values.size() - 1);
}

void MethodSpec::Emit(Instruction instruction) { instructions.push_back(std::move(instruction)); }

void MethodSpec::Call(OperatorName op, std::vector<ValueIndex> args) {
  Emit(KernelCall{std::move(op), std::move(args)});
}

uint64_t TensorNbytes(const Tensor& tensor) {
  uint64_t count = 1;
  for (int32_t size : tensor.sizes) count *= size < 0 ? 0 : static_cast<uint64_t>(size);
  return count * ElementSize(tensor.scalar_type);
}

}  // namespace pteshare::synth

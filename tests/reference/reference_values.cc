#include "tests/reference/reference_values.h"

#include "tensor_nbytes.h"

namespace pteshare::reference {

uint64_t ScalarTypeSize(fb::ScalarType type) {
  // The loader's rule, shared with rewriter/ and runtime_check/.
  return fb::ElementSize(static_cast<int8_t>(type));
}

uint64_t TensorRef::element_size() const { return ScalarTypeSize(scalar_type); }

}  // namespace pteshare::reference

// Reference kernels: exactly the operators of tools/synth/operators.h,
// each written straight from its documented semantics (float32, fixed loop
// order, no scratch copies of the inputs), plus a stand-in for delegates.
//
// Kernels write their outputs while they still read their inputs, as real
// kernels do: if a bad plan puts an output over an input that is still
// needed, the result changes, and the differential test sees it.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "rewriter/base/result.h"
#include "tests/reference/reference_values.h"

namespace pteshare::reference {

/// A kernel: `args` are value indices (schema arguments, out included,
/// then the returns again). Errors name the operator and the numbers.
using Kernel = Status (*)(std::vector<RuntimeValue>& values, std::span<const int32_t> args);

/// The kernel of operator `name`.`overload`, or nullptr if the vocabulary
/// has no such operator (the loader refuses the method then).
Kernel FindKernel(std::string_view name, std::string_view overload);

/// The aten operators with the portable kernels' float32 semantics
/// (portable_kernels.cc); FindKernel looks there too.
Kernel FindPortableKernel(std::string_view name, std::string_view overload);

/// The delegate stand-in (the builder defines no delegate semantics, so the
/// executor fixes one that is deterministic, reads and writes memory, and
/// can end a loop). Arguments are taken in order by kind:
///  - float32 tensors: the last is the output, the ones before it inputs of
///    its element count: out[i] = 1.0f + in_0[i] + in_1[i] + ... (summed in
///    order). A single float32 tensor is updated in place: x[i] += 1.0f.
///  - Int values: incremented by 1 (a loop counter).
///  - Bool values: set to (first Int argument >= limit), limit = first byte
///    of the delegate's processed blob (1 if empty); true without an Int.
/// Other values and other tensor types are left alone.
Status RunDelegateStandIn(std::span<const uint8_t> processed, std::vector<RuntimeValue>& values,
                          std::span<const int32_t> args);

}  // namespace pteshare::reference

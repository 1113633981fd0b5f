// Small functions that add the values every synthetic program needs to a
// MethodSpec (activations, weights, integer lists) so the synthesizers and
// tests read as the network they describe, not as value bookkeeping.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <vector>

#include "tools/synth/program_spec.h"

namespace pteshare::synth {

/// A float32 tensor the planner places in arena `memory_id`.
ValueIndex AddActivation(MethodSpec& method, std::vector<int32_t> sizes, MemoryId memory_id = 1);

/// A float32 tensor of `floats` elements at a hand-made place (planner
/// bypassed), optionally named.
Tensor PlacedFloats(int32_t floats, MemoryId memory_id, ByteOffset offset,
                    std::optional<std::string> name = std::nullopt);

/// A float32 tensor sharing `base`'s memory (an in-place result or view).
ValueIndex AddAlias(MethodSpec& method, ValueIndex base, std::vector<int32_t> sizes);

/// A constant float32 tensor with `data` (product(sizes) x 4 bytes).
ValueIndex AddConstant(MethodSpec& method, std::vector<int32_t> sizes, std::vector<uint8_t> data);

ValueIndex AddInt(MethodSpec& method, int64_t value);
ValueIndex AddBool(MethodSpec& method, bool value);
ValueIndex AddNull(MethodSpec& method);

/// An IntList plus one Int value per item (the wire stores value indices).
ValueIndex AddIntList(MethodSpec& method, std::initializer_list<int64_t> items);

/// An `.out` KernelCall with one return: args = `args`, out, out (the
/// exporter lists the return value again after the schema arguments).
void CallOut(MethodSpec& method, const OperatorName& op, std::vector<ValueIndex> args,
             ValueIndex out);

/// aten::add.out as the emitter writes it: [a, b, alpha (a new Int 1),
/// out, out].
void CallAdd(MethodSpec& method, ValueIndex a, ValueIndex b, ValueIndex out);

/// aten::embedding.out as the emitter writes it: the schema's defaults
/// (padding_idx -1, scale_grad_by_freq and sparse false) as new values.
void CallEmbedding(MethodSpec& method, ValueIndex weight, ValueIndex indices, ValueIndex out);

/// An OptionalTensorList of `items` (Tensor values, or Null ones for None).
ValueIndex AddOptionalTensorList(MethodSpec& method, std::vector<ValueIndex> items);

/// Deterministic float32 weights: `count` values uniform in [-scale,
/// scale), from a splitmix64 stream keyed by (seed, stream), as
/// little-endian bytes. Same arguments, same bytes, on every machine.
std::vector<uint8_t> RandomFloatBytes(uint64_t seed, uint64_t stream, size_t count, float scale);

}  // namespace pteshare::synth

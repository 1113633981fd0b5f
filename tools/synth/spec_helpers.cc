#include "tools/synth/spec_helpers.h"

#include "tools/synth/operators.h"

#include <cstring>

namespace pteshare::synth {

ValueIndex AddActivation(MethodSpec& method, std::vector<int32_t> sizes, MemoryId memory_id) {
  Tensor tensor;
  tensor.sizes = std::move(sizes);
  tensor.memory = PlanInArena{memory_id};
  return method.Add(std::move(tensor));
}

ValueIndex AddAlias(MethodSpec& method, ValueIndex base, std::vector<int32_t> sizes) {
  Tensor tensor;
  tensor.sizes = std::move(sizes);
  tensor.memory = AliasOf{base, 0};
  return method.Add(std::move(tensor));
}

ValueIndex AddConstant(MethodSpec& method, std::vector<int32_t> sizes, std::vector<uint8_t> data) {
  Tensor tensor;
  tensor.sizes = std::move(sizes);
  tensor.constant_data = std::move(data);
  tensor.memory = NotPlanned{};
  return method.Add(std::move(tensor));
}

ValueIndex AddInt(MethodSpec& method, int64_t value) { return method.Add(Int{value}); }
ValueIndex AddBool(MethodSpec& method, bool value) { return method.Add(Bool{value}); }
ValueIndex AddNull(MethodSpec& method) { return method.Add(Null{}); }

ValueIndex AddIntList(MethodSpec& method, std::initializer_list<int64_t> items) {
  IntList list;
  for (int64_t item : items) list.items.push_back(AddInt(method, item));
  return method.Add(std::move(list));
}

void CallOut(MethodSpec& method, const OperatorName& op, std::vector<ValueIndex> args,
             ValueIndex out) {
  args.push_back(out);
  args.push_back(out);
  method.Call(op, std::move(args));
}

void CallAdd(MethodSpec& method, ValueIndex a, ValueIndex b, ValueIndex out) {
  CallOut(method, ops::kAdd, {a, b, AddInt(method, 1)}, out);
}

void CallEmbedding(MethodSpec& method, ValueIndex weight, ValueIndex indices, ValueIndex out) {
  CallOut(method, ops::kEmbedding,
          {weight, indices, AddInt(method, -1), AddBool(method, false), AddBool(method, false)},
          out);
}

ValueIndex AddOptionalTensorList(MethodSpec& method, std::vector<ValueIndex> items) {
  return method.Add(OptionalTensorList{std::move(items)});
}

std::vector<uint8_t> RandomFloatBytes(uint64_t seed, uint64_t stream, size_t count, float scale) {
  // splitmix64: tiny, well mixed, and fully specified, so the bytes do not
  // depend on the standard library's distributions.
  uint64_t state = seed * 0x9E3779B97F4A7C15ull ^ (stream + 1) * 0xBF58476D1CE4E5B9ull;
  std::vector<uint8_t> bytes(count * sizeof(float));
  for (size_t i = 0; i < count; ++i) {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    // Top 24 bits -> [0, 1) exactly representable, then to [-scale, scale).
    float unit = static_cast<float>(z >> 40) / 16777216.0f;
    float value = (unit * 2.0f - 1.0f) * scale;
    uint32_t raw;
    std::memcpy(&raw, &value, sizeof raw);
    for (int b = 0; b < 4; ++b) bytes[i * 4 + b] = static_cast<uint8_t>(raw >> (8 * b));
  }
  return bytes;
}

Tensor PlacedFloats(int32_t floats, MemoryId memory_id, ByteOffset offset,
                    std::optional<std::string> name) {
  Tensor t;
  t.sizes = {floats};
  t.fully_qualified_name = std::move(name);
  t.memory = FixedPlacement{memory_id, offset};
  return t;
}

}  // namespace pteshare::synth

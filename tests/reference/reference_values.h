// The run-time values of a method in the reference executor: what an EValue
// holds while the method runs, in plain types. Kernels read and write these;
// a tensor is only a view (data pointer, type, sizes) of memory that the
// executor owns or that the application bound (an arena).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "program_generated.h"

namespace pteshare::reference {

/// A tensor as a kernel sees it. `data` points into an arena (planned
/// tensors), into the method's copy of a constant, or into a buffer of its
/// own (unplanned tensors). Row-major (the builder writes dim_order 0..n-1).
struct TensorRef {
  uint8_t* data = nullptr;
  fb::ScalarType scalar_type = fb::ScalarType::FLOAT;
  std::vector<int64_t> sizes;

  uint64_t numel() const {
    uint64_t n = 1;
    for (int64_t s : sizes) n *= static_cast<uint64_t>(s);
    return n;
  }
  uint64_t element_size() const;
  uint64_t nbytes() const { return numel() * element_size(); }
  int64_t dim(int64_t i) const { return sizes[static_cast<size_t>(i < 0 ? i + rank() : i)]; }
  int64_t rank() const { return static_cast<int64_t>(sizes.size()); }
  float* f32() const { return reinterpret_cast<float*>(data); }
  int64_t* i64() const { return reinterpret_cast<int64_t*>(data); }
};

enum class ValueKind {
  kNone,  // an EValue without a value (never used by the builder)
  kNull,
  kInt,
  kBool,
  kDouble,
  kString,
  kTensor,
  kIntList,
  kDoubleList,
  kBoolList,
  kTensorList,
  kOptionalTensorList,
};

/// One EValue. Only the fields of its kind mean anything. List kinds that
/// hold value indices (IntList, TensorList, OptionalTensorList) keep them
/// in `items`, as on the wire; a kernel resolves them against the method's
/// values, so an Int written during the run is seen by every list holding it.
struct RuntimeValue {
  ValueKind kind = ValueKind::kNone;
  int64_t int_value = 0;
  bool bool_value = false;
  double double_value = 0;
  std::string string_value;
  TensorRef tensor;
  std::vector<int64_t> items;
  std::vector<double> doubles;
  std::vector<bool> bools;
};

/// Bytes per element for the types the runtime knows; 0 for others.
uint64_t ScalarTypeSize(fb::ScalarType type);

}  // namespace pteshare::reference

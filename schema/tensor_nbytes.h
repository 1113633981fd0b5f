// How many bytes a tensor occupies, computed exactly as the ExecuTorch
// loader does: product(sizes) x element size. Shared by rewriter/ and
// runtime_check/ (C++17, header-only, no allocation, no exceptions, no
// dependency: it reads the sizes through a template, so the generated
// fb::Tensor and runtime_check's own tables both fit).
#pragma once

#include <stddef.h>
#include <stdint.h>

namespace pteshare::fb {

/// Bytes of one element of `type`, or 0 for a number the runtime does not
/// know (an invalid program). Takes the raw int8 because files may hold
/// values our enum does not name (complex 8-10, bit types 18-21).
constexpr size_t ElementSize(int8_t type) {
  switch (type) {
    case 0:
    case 1:
    case 11:
    case 12:
    case 13:
    case 16:
    case 17:  // byte-sized
    case 18:
    case 19:
    case 20:
    case 21:  // bits types
    case 23:
    case 24:
    case 25:
    case 26:  // float8
      return 1;
    case 2:
    case 5:
    case 15:
    case 22:
    case 27:  // 16-bit
      return 2;
    case 3:
    case 6:
    case 8:
    case 14:
    case 28:  // 32-bit, complex32
      return 4;
    case 4:
    case 7:
    case 9:
    case 29:  // 64-bit, complex64
      return 8;
    case 10:  // complex128
      return 16;
    default:
      return 0;
  }
}

enum class NbytesStatus { kOk, kUnknownScalarType, kNegativeDimension, kOverflow };

struct Nbytes {
  NbytesStatus status = NbytesStatus::kOk;
  uint64_t bytes = 0;
  int32_t bad_dimension = 0;         // the offending size when kNegativeDimension
  uint32_t bad_dimension_index = 0;  // and its position in sizes
};

/// product(sizes) x element size, checked for negative sizes and overflow.
/// `sizes` (anything with size() and operator[], or null: a scalar, one
/// element) as stored; an empty list is a scalar too.
template <typename Sizes>
Nbytes NbytesOf(int8_t scalar_type, const Sizes* sizes) {
  Nbytes result;
  const size_t element = ElementSize(scalar_type);
  if (element == 0) {
    result.status = NbytesStatus::kUnknownScalarType;
    return result;
  }
  uint64_t bytes = element;
  if (sizes != nullptr) {
    for (uint32_t i = 0; i < static_cast<uint32_t>(sizes->size()); ++i) {
      const int32_t dim = (*sizes)[i];
      if (dim < 0) {
        result.status = NbytesStatus::kNegativeDimension;
        result.bad_dimension = dim;
        result.bad_dimension_index = i;
        return result;
      }
      if (__builtin_mul_overflow(bytes, static_cast<uint64_t>(dim), &bytes)) {
        result.status = NbytesStatus::kOverflow;
        return result;
      }
    }
  }
  result.bytes = bytes;
  return result;
}

/// The same for a generated fb::Tensor.
template <typename GeneratedTensor>
Nbytes TensorNbytes(const GeneratedTensor& tensor) {
  return NbytesOf(static_cast<int8_t>(tensor.scalar_type()), tensor.sizes());
}

}  // namespace pteshare::fb

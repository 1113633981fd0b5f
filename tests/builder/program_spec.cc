#include "tests/builder/program_spec.h"

namespace pteshare::builder {

uint64_t ElementSize(ScalarType type) {
  // Numbering and sizes from docs/pte-format.md (ExecuTorch's ScalarType),
  // including the types the runtime knows but our schema does not name.
  switch (static_cast<int>(type)) {
    case 0:   // BYTE
    case 1:   // CHAR
    case 11:  // BOOL
    case 12:  // QINT8
    case 13:  // QUINT8
    case 16:  // QUINT4X2
    case 17:  // QUINT2X4
    case 18:
    case 19:
    case 20:
    case 21:  // bit types
    case 23:
    case 24:
    case 25:
    case 26:  // FLOAT8 kinds
      return 1;
    case 2:   // SHORT
    case 5:   // HALF
    case 15:  // BFLOAT16
    case 22:  // BITS16
    case 27:  // UINT16
      return 2;
    case 3:   // INT
    case 6:   // FLOAT
    case 8:   // COMPLEX_HALF
    case 14:  // QINT32
    case 28:  // UINT32
      return 4;
    case 4:   // LONG
    case 7:   // DOUBLE
    case 9:   // COMPLEX_FLOAT
    case 29:  // UINT64
      return 8;
    case 10:  // COMPLEX_DOUBLE
      return 16;
    default:
      return 0;
  }
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

}  // namespace pteshare::builder

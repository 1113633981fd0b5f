#include "tests/reference/reference_values.h"

namespace pteshare::reference {

uint64_t ScalarTypeSize(fb::ScalarType type) {
  // Sizes from docs/pte-format.md, including the types the runtime knows
  // but the schema does not name.
  switch (static_cast<int>(type)) {
    case 0:
    case 1:
    case 11:
    case 12:
    case 13:
    case 16:
    case 17:
    case 18:
    case 19:
    case 20:
    case 21:
    case 23:
    case 24:
    case 25:
    case 26:
      return 1;
    case 2:
    case 5:
    case 15:
    case 22:
    case 27:
      return 2;
    case 3:
    case 6:
    case 8:
    case 14:
    case 28:
      return 4;
    case 4:
    case 7:
    case 9:
    case 29:
      return 8;
    case 10:
      return 16;
    default:
      return 0;
  }
}

uint64_t TensorRef::element_size() const { return ScalarTypeSize(scalar_type); }

}  // namespace pteshare::reference

// Field ids and union tags of the tables a reader without the generated
// code needs (flat_reader.h), as program.fbs and bundled_program.fbs give
// them: a field's id is its position in its table, a union's tag its
// position in the union plus one (0 is NONE). docs/format.md lists the
// fields and what they mean; tests/program_fields_test.cc checks every
// number here against the flatc-generated header.
//
// C++17, header-only, no dependency.
#pragma once

#include <stdint.h>

namespace pteshare::fields {

struct Program {
  static constexpr int kExecutionPlan = 1;
};

struct ExecutionPlan {
  static constexpr int kName = 0;
  static constexpr int kValues = 2;
  static constexpr int kInputs = 3;
  static constexpr int kChains = 5;
  static constexpr int kNonConstBufferSizes = 8;
  static constexpr int kNonConstBufferDevice = 9;
};

struct NonConstBufferDevice {
  static constexpr int kBufferIdx = 0;    // int: the memory_id
  static constexpr int kDeviceType = 1;   // byte (DeviceType, CPU = 0)
  static constexpr int kDeviceIndex = 2;  // byte
};

struct Chain {
  static constexpr int kInstructions = 2;
};

struct Instruction {
  static constexpr int kArgsType = 0;  // the union's tag
  static constexpr int kArgs = 1;      // and its value
};

/// InstructionArguments' tags.
enum class InstructionTag : uint8_t {
  kNone = 0,
  kKernelCall = 1,
  kDelegateCall = 2,
  kMoveCall = 3,
  kJumpFalseCall = 4,
  kFreeCall = 5,
};

struct KernelCall {
  static constexpr int kArgs = 1;
};
struct DelegateCall {
  static constexpr int kArgs = 1;
};
struct MoveCall {
  static constexpr int kMoveFrom = 0;
  static constexpr int kMoveTo = 1;
};
struct JumpFalseCall {
  static constexpr int kCondValueIndex = 0;
};
struct FreeCall {
  static constexpr int kValueIndex = 0;
};

struct EValue {
  static constexpr int kValType = 0;
  static constexpr int kVal = 1;
};

/// KernelTypes' tags (the ones a reader of placements looks at).
enum class ValueTag : uint8_t {
  kNone = 0,
  kTensor = 5,
  kTensorList = 10,
  kOptionalTensorList = 11,
};

/// TensorList and OptionalTensorList: value indices.
struct TensorList {
  static constexpr int kItems = 0;
};

struct Tensor {
  static constexpr int kScalarType = 0;  // int8
  static constexpr int kSizes = 2;       // [int32]
  static constexpr int kDimOrder = 3;    // [ubyte]
  static constexpr int kDataBufferIdx = 5;
  static constexpr int kAllocationInfo = 6;
  static constexpr int kShapeDynamism = 8;  // int8
  static constexpr int kExtraTensorInfo = 9;
};

/// TensorShapeDynamism::DYNAMIC_UNBOUND: allocated at run time, never
/// planned.
constexpr int8_t kDynamicUnbound = 2;

struct AllocationDetails {
  static constexpr int kMemoryId = 0;
  static constexpr int kMemoryOffsetLow = 1;
  static constexpr int kMemoryOffsetHigh = 2;
};

struct ExtraTensorInfo {
  static constexpr int kFullyQualifiedName = 1;
};

struct BundledProgram {
  static constexpr int kMethodTestSuites = 1;
  static constexpr int kProgram = 2;  // [ubyte], a whole .pte
};

struct BundledMethodTestSuite {
  static constexpr int kMethodName = 0;
  static constexpr int kTestCases = 1;
};

struct BundledMethodTestCase {
  static constexpr int kInputs = 0;           // [Value]
  static constexpr int kExpectedOutputs = 1;  // [Value]
};

struct BundledValue {
  static constexpr int kValType = 0;
  static constexpr int kVal = 1;
};

/// The bundle's ValueUnion tags; Int, Bool and Double hold one scalar
/// (field 0) of 8, 1 and 8 bytes.
enum class BundledValueTag : uint8_t { kNone = 0, kTensor = 1, kInt = 2, kBool = 3, kDouble = 4 };

struct BundledTensor {
  static constexpr int kScalarType = 0;
  static constexpr int kSizes = 1;     // [int32]
  static constexpr int kData = 2;      // [ubyte]
  static constexpr int kDimOrder = 3;  // [ubyte]
};

/// A tensor's place in its arena: the loader joins two 32-bit halves.
constexpr uint64_t AllocationOffset(uint32_t low, uint32_t high) {
  return uint64_t{high} << 32 | low;
}

}  // namespace pteshare::fields

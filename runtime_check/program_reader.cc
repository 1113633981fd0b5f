#include "runtime_check/program_reader.h"

#include "bundle_header.h"
#include "flat_reader.h"
#include "program_fields.h"
#include "pte_header.h"
#include "runtime_check/program_walk.h"

#include "runtime_check/findings.h"

namespace pteshare::runtime_check::internal {
namespace {

namespace f = ::pteshare::fields;
using flat::Reader;
using flat::Table;
using flat::Vector;

// A real file stores each object once, and each reference to a shared one
// costs it a 4-byte slot, so four times its size (and a floor for tiny
// files) is more reading than any real file needs.
uint64_t ReadingBudget(uint64_t size) { return 4 * size + 65536; }

template <typename T>
std::vector<T> Scalars(Reader& reader, const Table& table, int field) {
  const Vector vector = reader.VectorField(table, field, sizeof(T));
  std::vector<T> out;
  out.reserve(vector.length);
  for (uint32_t i = 0; i < vector.length; ++i) out.push_back(reader.Element<T>(vector, i));
  return out;
}

TensorTable ReadTensor(Reader& reader, const Table& tensor) {
  TensorTable out;
  out.scalar_type = reader.Scalar<int8_t>(tensor, f::Tensor::kScalarType, 0);
  out.sizes = Scalars<int32_t>(reader, tensor, f::Tensor::kSizes);
  out.dim_order = Scalars<uint8_t>(reader, tensor, f::Tensor::kDimOrder);
  out.data_buffer_idx = reader.Scalar<uint32_t>(tensor, f::Tensor::kDataBufferIdx, 0);
  out.shape_dynamism = reader.Scalar<int8_t>(tensor, f::Tensor::kShapeDynamism, 0);
  const Table allocation = reader.TableField(tensor, f::Tensor::kAllocationInfo);
  if (allocation.present) {
    out.has_allocation = true;
    out.memory_id = reader.Scalar<uint32_t>(allocation, f::AllocationDetails::kMemoryId, 0);
    out.memory_offset = f::AllocationOffset(
        reader.Scalar<uint32_t>(allocation, f::AllocationDetails::kMemoryOffsetLow, 0),
        reader.Scalar<uint32_t>(allocation, f::AllocationDetails::kMemoryOffsetHigh, 0));
  }
  const Table extra = reader.TableField(tensor, f::Tensor::kExtraTensorInfo);
  if (extra.present) reader.StringField(extra, f::ExtraTensorInfo::kFullyQualifiedName, &out.name);
  return out;
}

ValueTable ReadValue(Reader& reader, const Table& value) {
  ValueTable out;
  const auto tag = static_cast<f::ValueTag>(reader.Scalar<uint8_t>(value, f::EValue::kValType, 0));
  if (tag != f::ValueTag::kTensor && tag != f::ValueTag::kTensorList &&
      tag != f::ValueTag::kOptionalTensorList) {
    return out;
  }
  const Table val = reader.TableField(value, f::EValue::kVal);
  if (!val.present) return out;  // a tag without a value: nothing there
  if (tag == f::ValueTag::kTensor) {
    out.kind = ValueKind::kTensor;
    out.tensor = ReadTensor(reader, val);
  } else {
    out.kind = ValueKind::kTensorList;
    out.items = Scalars<int32_t>(reader, val, f::TensorList::kItems);
  }
  return out;
}

InstructionTable ReadInstruction(Reader& reader, const Table& instruction) {
  InstructionTable out;
  const auto tag = static_cast<f::InstructionTag>(
      reader.Scalar<uint8_t>(instruction, f::Instruction::kArgsType, 0));
  const Table args = reader.TableField(instruction, f::Instruction::kArgs);
  if (!args.present) return out;
  switch (tag) {
    case f::InstructionTag::kKernelCall:
      out.kind = InstructionKind::kKernelCall;
      out.args = Scalars<int32_t>(reader, args, f::KernelCall::kArgs);
      break;
    case f::InstructionTag::kDelegateCall:
      out.kind = InstructionKind::kDelegateCall;
      out.args = Scalars<int32_t>(reader, args, f::DelegateCall::kArgs);
      break;
    case f::InstructionTag::kMoveCall:
      out.kind = InstructionKind::kMoveCall;
      out.first = reader.Scalar<int32_t>(args, f::MoveCall::kMoveFrom, 0);
      out.second = reader.Scalar<int32_t>(args, f::MoveCall::kMoveTo, 0);
      break;
    case f::InstructionTag::kJumpFalseCall:
      out.kind = InstructionKind::kJumpFalseCall;
      out.first = reader.Scalar<int32_t>(args, f::JumpFalseCall::kCondValueIndex, 0);
      break;
    case f::InstructionTag::kFreeCall:
      out.kind = InstructionKind::kFreeCall;
      out.first = reader.Scalar<int32_t>(args, f::FreeCall::kValueIndex, 0);
      break;
    default:
      break;
  }
  return out;
}

MethodTables ReadMethod(Reader& reader, const Table& plan) {
  MethodTables out;
  out.has_name = reader.StringField(plan, f::ExecutionPlan::kName, &out.name);
  const Vector values = reader.VectorField(plan, f::ExecutionPlan::kValues, 4);
  out.values.reserve(values.length);
  for (uint32_t i = 0; i < values.length && reader.ok(); ++i) {
    out.values.push_back(ReadValue(reader, reader.TableElement(values, i)));
  }
  out.inputs = Scalars<int32_t>(reader, plan, f::ExecutionPlan::kInputs);
  const Vector chains = reader.VectorField(plan, f::ExecutionPlan::kChains, 4);
  for (uint32_t c = 0; c < chains.length && reader.ok(); ++c) {
    const Vector instructions =
        reader.VectorField(reader.TableElement(chains, c), f::Chain::kInstructions, 4);
    for (uint32_t i = 0; i < instructions.length && reader.ok(); ++i) {
      out.instructions.push_back(ReadInstruction(reader, reader.TableElement(instructions, i)));
    }
  }
  out.non_const_buffer_sizes =
      Scalars<int64_t>(reader, plan, f::ExecutionPlan::kNonConstBufferSizes);
  const Vector devices = reader.VectorField(plan, f::ExecutionPlan::kNonConstBufferDevice, 4);
  for (uint32_t i = 0; i < devices.length && reader.ok(); ++i) {
    const Table device = reader.TableElement(devices, i);
    out.non_const_buffer_device.push_back(
        {reader.Scalar<int32_t>(device, f::NonConstBufferDevice::kBufferIdx, 0),
         reader.Scalar<int8_t>(device, f::NonConstBufferDevice::kDeviceType, 0),
         reader.Scalar<int8_t>(device, f::NonConstBufferDevice::kDeviceIndex, 0)});
  }
  return out;
}

// The ET12 program [bytes, bytes + size); a bundle is not accepted here,
// so bundles nested in bundles cannot make the reading recurse.
bool ReadPlainProgram(const uint8_t* bytes, size_t size, ProgramTables* out, std::string* problem) {
  if (size == 0) {
    *problem = "the buffer is empty";
    return false;
  }
  if (size < PteConstants::kHeaderOffset) {
    *problem = "the buffer is " + std::to_string(size) +
               " bytes, too small for a FlatBuffers root offset and identifier (8 bytes)";
    return false;
  }
  if (!pte_header::HasProgramIdentifier(bytes, size)) {
    *problem = pte_header::WrongIdentifier(bytes);
    return false;
  }
  ExtendedHeader header;
  uint64_t program_size = 0;
  if (!pte_header::Read(bytes, size, "buffer", &header, problem) ||
      !pte_header::ProgramSize(header, size, "buffer", &program_size, problem)) {
    return false;
  }
  if (program_size > Reader::kMaxBufferSize) {
    *problem = "flatbuffer of " + std::to_string(program_size) +
               " bytes is beyond the FlatBuffers limit of " +
               std::to_string(Reader::kMaxBufferSize) + " bytes";
    return false;
  }
  Reader reader(bytes, static_cast<size_t>(program_size), ReadingBudget(program_size));
  const Vector plans = reader.VectorField(reader.Root(), f::Program::kExecutionPlan, 4);
  out->methods.clear();
  out->methods.reserve(plans.length);
  for (uint32_t i = 0; i < plans.length && reader.ok(); ++i) {
    out->methods.push_back(ReadMethod(reader, reader.TableElement(plans, i)));
  }
  // Then everything else the schema reaches, as the verifier would.
  if (reader.ok()) WalkProgram(reader, reader.Root());
  if (!reader.ok()) {
    *problem = "the flatbuffer [0, " + std::to_string(program_size) +
               ") fails FlatBuffers verification: " + reader.problem();
    out->methods.clear();
    return false;
  }
  return true;
}

// Walks a vector of bundle Values (test inputs or outputs): every table
// and field in bounds, nothing kept.
void WalkBundledValues(Reader& reader, const Table& test_case, int field) {
  const Vector values = reader.VectorField(test_case, field, 4);
  for (uint32_t v = 0; v < values.length && reader.ok(); ++v) {
    const Table value = reader.TableElement(values, v);
    const auto tag = static_cast<f::BundledValueTag>(
        reader.Scalar<uint8_t>(value, f::BundledValue::kValType, 0));
    const Table val = reader.TableField(value, f::BundledValue::kVal);
    switch (tag) {
      case f::BundledValueTag::kTensor:
        (void)reader.Scalar<int8_t>(val, f::BundledTensor::kScalarType, 0);
        (void)reader.VectorField(val, f::BundledTensor::kSizes, 4);
        (void)reader.VectorField(val, f::BundledTensor::kData, 1);
        (void)reader.VectorField(val, f::BundledTensor::kDimOrder, 1);
        break;
      case f::BundledValueTag::kInt:
      case f::BundledValueTag::kDouble:
        (void)reader.Scalar<uint64_t>(val, 0, 0);
        break;
      case f::BundledValueTag::kBool:
        (void)reader.Scalar<uint8_t>(val, 0, 0);
        break;
      default:
        break;
    }
  }
}

// Where the bundle's program lies: [*offset, *offset + *size).
bool LocateBundledProgram(const uint8_t* bytes, size_t size, size_t* offset, size_t* program_size,
                          std::string* problem) {
  Reader reader(bytes, size, ReadingBudget(size));
  const Table root = reader.Root();
  // The test suites are not checked, but every table of them is read (as
  // the FlatBuffers verifier would), so a damaged bundle is refused whole.
  const Vector suites = reader.VectorField(root, f::BundledProgram::kMethodTestSuites, 4);
  for (uint32_t i = 0; i < suites.length && reader.ok(); ++i) {
    const Table suite = reader.TableElement(suites, i);
    std::string name;
    reader.StringField(suite, f::BundledMethodTestSuite::kMethodName, &name);
    const Vector cases = reader.VectorField(suite, f::BundledMethodTestSuite::kTestCases, 4);
    for (uint32_t c = 0; c < cases.length && reader.ok(); ++c) {
      const Table test_case = reader.TableElement(cases, c);
      WalkBundledValues(reader, test_case, f::BundledMethodTestCase::kInputs);
      WalkBundledValues(reader, test_case, f::BundledMethodTestCase::kExpectedOutputs);
    }
  }
  const Vector program = reader.VectorField(root, f::BundledProgram::kProgram, 1);
  if (!reader.ok()) {
    *problem = "bundled program: the bundle's flatbuffer [0, " + std::to_string(size) +
               ") fails FlatBuffers verification: " + reader.problem();
    return false;
  }
  if (program.length == 0) {
    *problem = "bundled program: it holds no program bytes";
    return false;
  }
  if (program.data % bundle::BundleConstants::kProgramAlignment != 0) {
    *problem = "bundled program: the program bytes start at offset " +
               std::to_string(program.data) + ", not a multiple of " +
               std::to_string(bundle::BundleConstants::kProgramAlignment) +
               " as the schema aligns them";
    return false;
  }
  *offset = program.data;
  *program_size = program.length;
  return true;
}

}  // namespace

bool ReadProgramTables(const void* data, size_t size, ProgramTables* out, std::string* problem) {
  const auto* bytes = static_cast<const uint8_t*>(data);
  if (bytes == nullptr || size == 0) {
    *problem = "the buffer is empty";
    return false;
  }
  if (reinterpret_cast<uintptr_t>(bytes) % kRequiredAlignment != 0) {
    *problem = "the buffer at address " + Hex(reinterpret_cast<uintptr_t>(bytes)) + " is not " +
               std::to_string(kRequiredAlignment) +
               "-byte aligned (pass memory from mmap or operator new)";
    return false;
  }
  if (!bundle::HasBundleIdentifier(bytes, size)) return ReadPlainProgram(bytes, size, out, problem);
  // A bundled program (.bpte): the program it holds is what a loader runs.
  size_t offset = 0;
  size_t program_size = 0;
  if (!LocateBundledProgram(bytes, size, &offset, &program_size, problem)) return false;
  if (!ReadPlainProgram(bytes + offset, program_size, out, problem)) {
    *problem = "the program inside the bundle: " + *problem;
    return false;
  }
  return true;
}

}  // namespace pteshare::runtime_check::internal

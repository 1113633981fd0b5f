// runtime_check reads programs with its own bounds-checked reader
// (schema/flat_reader.h, runtime_check/program_reader.cc) so that it links
// no FlatBuffers. Here the same tables are read with the flatc-generated
// code after the FlatBuffers verifier (the rewriter's reader) from every
// corpus file: both readers accept the same files, give the same tables,
// and the checks on either give the same findings. Also: the field ids of
// schema/program_fields.h are the generated ones.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "bundled_program_generated.h"
#include "program_fields.h"
#include "program_generated.h"
#include "rewriter/program/bundle.h"
#include "rewriter/program/pte_layout.h"
#include "runtime_check/alias_check.h"
#include "runtime_check/program_check.h"
#include "runtime_check/program_reader.h"
#include "tests/test_support.h"

namespace pteshare {
namespace {

namespace f = fields;
namespace rc = runtime_check;
using rc::internal::InstructionKind;
using rc::internal::InstructionTable;
using rc::internal::MethodTables;
using rc::internal::ProgramTables;
using rc::internal::TensorTable;
using rc::internal::ValueKind;
using rc::internal::ValueTable;

// A field id as the generated code's vtable offset.
constexpr int Slot(int id) { return 4 + 2 * id; }

static_assert(fb::Program::VT_EXECUTION_PLAN == Slot(f::Program::kExecutionPlan));
static_assert(fb::ExecutionPlan::VT_NAME == Slot(f::ExecutionPlan::kName));
static_assert(fb::ExecutionPlan::VT_VALUES == Slot(f::ExecutionPlan::kValues));
static_assert(fb::ExecutionPlan::VT_INPUTS == Slot(f::ExecutionPlan::kInputs));
static_assert(fb::ExecutionPlan::VT_CHAINS == Slot(f::ExecutionPlan::kChains));
static_assert(fb::ExecutionPlan::VT_NON_CONST_BUFFER_SIZES ==
              Slot(f::ExecutionPlan::kNonConstBufferSizes));
static_assert(fb::Chain::VT_INSTRUCTIONS == Slot(f::Chain::kInstructions));
static_assert(fb::Instruction::VT_INSTR_ARGS_TYPE == Slot(f::Instruction::kArgsType));
static_assert(fb::Instruction::VT_INSTR_ARGS == Slot(f::Instruction::kArgs));
static_assert(fb::KernelCall::VT_ARGS == Slot(f::KernelCall::kArgs));
static_assert(fb::DelegateCall::VT_ARGS == Slot(f::DelegateCall::kArgs));
static_assert(fb::MoveCall::VT_MOVE_FROM == Slot(f::MoveCall::kMoveFrom));
static_assert(fb::MoveCall::VT_MOVE_TO == Slot(f::MoveCall::kMoveTo));
static_assert(fb::JumpFalseCall::VT_COND_VALUE_INDEX == Slot(f::JumpFalseCall::kCondValueIndex));
static_assert(fb::FreeCall::VT_VALUE_INDEX == Slot(f::FreeCall::kValueIndex));
static_assert(fb::EValue::VT_VAL_TYPE == Slot(f::EValue::kValType));
static_assert(fb::EValue::VT_VAL == Slot(f::EValue::kVal));
static_assert(fb::TensorList::VT_ITEMS == Slot(f::TensorList::kItems));
static_assert(fb::OptionalTensorList::VT_ITEMS == Slot(f::TensorList::kItems));
static_assert(fb::Tensor::VT_SCALAR_TYPE == Slot(f::Tensor::kScalarType));
static_assert(fb::Tensor::VT_SIZES == Slot(f::Tensor::kSizes));
static_assert(fb::Tensor::VT_DATA_BUFFER_IDX == Slot(f::Tensor::kDataBufferIdx));
static_assert(fb::Tensor::VT_ALLOCATION_INFO == Slot(f::Tensor::kAllocationInfo));
static_assert(fb::Tensor::VT_SHAPE_DYNAMISM == Slot(f::Tensor::kShapeDynamism));
static_assert(fb::Tensor::VT_EXTRA_TENSOR_INFO == Slot(f::Tensor::kExtraTensorInfo));
static_assert(fb::AllocationDetails::VT_MEMORY_ID == Slot(f::AllocationDetails::kMemoryId));
static_assert(fb::AllocationDetails::VT_MEMORY_OFFSET_LOW ==
              Slot(f::AllocationDetails::kMemoryOffsetLow));
static_assert(fb::AllocationDetails::VT_MEMORY_OFFSET_HIGH ==
              Slot(f::AllocationDetails::kMemoryOffsetHigh));
static_assert(fb::ExtraTensorInfo::VT_FULLY_QUALIFIED_NAME ==
              Slot(f::ExtraTensorInfo::kFullyQualifiedName));
static_assert(bundle::BundledProgram::VT_METHOD_TEST_SUITES ==
              Slot(f::BundledProgram::kMethodTestSuites));
static_assert(bundle::BundledProgram::VT_PROGRAM == Slot(f::BundledProgram::kProgram));
static_assert(bundle::BundledMethodTestSuite::VT_METHOD_NAME ==
              Slot(f::BundledMethodTestSuite::kMethodName));
static_assert(bundle::BundledMethodTestSuite::VT_TEST_CASES ==
              Slot(f::BundledMethodTestSuite::kTestCases));
static_assert(bundle::BundledMethodTestCase::VT_INPUTS == Slot(f::BundledMethodTestCase::kInputs));
static_assert(bundle::BundledMethodTestCase::VT_EXPECTED_OUTPUTS ==
              Slot(f::BundledMethodTestCase::kExpectedOutputs));
static_assert(bundle::Value::VT_VAL_TYPE == Slot(f::BundledValue::kValType));
static_assert(bundle::Value::VT_VAL == Slot(f::BundledValue::kVal));
static_assert(bundle::Tensor::VT_SCALAR_TYPE == Slot(f::BundledTensor::kScalarType));
static_assert(bundle::Tensor::VT_SIZES == Slot(f::BundledTensor::kSizes));
static_assert(bundle::Tensor::VT_DATA == Slot(f::BundledTensor::kData));
static_assert(bundle::Tensor::VT_DIM_ORDER == Slot(f::BundledTensor::kDimOrder));
static_assert(bundle::Int::VT_INT_VAL == Slot(0) && bundle::Bool::VT_BOOL_VAL == Slot(0) &&
              bundle::Double::VT_DOUBLE_VAL == Slot(0));
static_assert(static_cast<int>(bundle::ValueUnion::Tensor) ==
              static_cast<int>(f::BundledValueTag::kTensor));
static_assert(static_cast<int>(bundle::ValueUnion::Int) ==
              static_cast<int>(f::BundledValueTag::kInt));
static_assert(static_cast<int>(bundle::ValueUnion::Bool) ==
              static_cast<int>(f::BundledValueTag::kBool));
static_assert(static_cast<int>(bundle::ValueUnion::Double) ==
              static_cast<int>(f::BundledValueTag::kDouble));
static_assert(static_cast<int>(fb::KernelTypes::Tensor) == static_cast<int>(f::ValueTag::kTensor));
static_assert(static_cast<int>(fb::KernelTypes::TensorList) ==
              static_cast<int>(f::ValueTag::kTensorList));
static_assert(static_cast<int>(fb::KernelTypes::OptionalTensorList) ==
              static_cast<int>(f::ValueTag::kOptionalTensorList));
static_assert(static_cast<int>(fb::InstructionArguments::KernelCall) ==
              static_cast<int>(f::InstructionTag::kKernelCall));
static_assert(static_cast<int>(fb::InstructionArguments::DelegateCall) ==
              static_cast<int>(f::InstructionTag::kDelegateCall));
static_assert(static_cast<int>(fb::InstructionArguments::MoveCall) ==
              static_cast<int>(f::InstructionTag::kMoveCall));
static_assert(static_cast<int>(fb::InstructionArguments::JumpFalseCall) ==
              static_cast<int>(f::InstructionTag::kJumpFalseCall));
static_assert(static_cast<int>(fb::InstructionArguments::FreeCall) ==
              static_cast<int>(f::InstructionTag::kFreeCall));
static_assert(static_cast<int>(fb::TensorShapeDynamism::DYNAMIC_UNBOUND) == f::kDynamicUnbound);

// ---- The same tables through the generated code --------------------------------

template <typename T>
std::vector<T> Copy(const flatbuffers::Vector<T>* v) {
  return v == nullptr ? std::vector<T>{} : std::vector<T>(v->begin(), v->end());
}

TensorTable GeneratedTensor(const fb::Tensor& t) {
  TensorTable out;
  out.scalar_type = static_cast<int8_t>(t.scalar_type());
  out.sizes = Copy(t.sizes());
  out.dim_order = Copy(t.dim_order());
  out.data_buffer_idx = t.data_buffer_idx();
  out.shape_dynamism = static_cast<int8_t>(t.shape_dynamism());
  if (const fb::AllocationDetails* a = t.allocation_info()) {
    out.has_allocation = true;
    out.memory_id = a->memory_id();
    out.memory_offset = uint64_t{a->memory_offset_high()} << 32 | a->memory_offset_low();
  }
  if (t.extra_tensor_info() != nullptr && t.extra_tensor_info()->fully_qualified_name()) {
    out.name = t.extra_tensor_info()->fully_qualified_name()->str();
  }
  return out;
}

ValueTable GeneratedValue(const fb::EValue& v) {
  ValueTable out;
  if (const fb::Tensor* t = v.val_as_Tensor()) {
    out.kind = ValueKind::kTensor;
    out.tensor = GeneratedTensor(*t);
  } else if (const fb::TensorList* list = v.val_as_TensorList()) {
    out.kind = ValueKind::kTensorList;
    out.items = Copy(list->items());
  } else if (const fb::OptionalTensorList* optional = v.val_as_OptionalTensorList()) {
    out.kind = ValueKind::kTensorList;
    out.items = Copy(optional->items());
  }
  return out;
}

InstructionTable GeneratedInstruction(const fb::Instruction& i) {
  InstructionTable out;
  if (const auto* k = i.instr_args_as_KernelCall()) {
    out.kind = InstructionKind::kKernelCall;
    out.args = Copy(k->args());
  } else if (const auto* d = i.instr_args_as_DelegateCall()) {
    out.kind = InstructionKind::kDelegateCall;
    out.args = Copy(d->args());
  } else if (const auto* m = i.instr_args_as_MoveCall()) {
    out.kind = InstructionKind::kMoveCall;
    out.first = m->move_from();
    out.second = m->move_to();
  } else if (const auto* j = i.instr_args_as_JumpFalseCall()) {
    out.kind = InstructionKind::kJumpFalseCall;
    out.first = j->cond_value_index();
  } else if (const auto* free = i.instr_args_as_FreeCall()) {
    out.kind = InstructionKind::kFreeCall;
    out.first = free->value_index();
  }
  return out;
}

ProgramTables GeneratedTables(const fb::Program& program) {
  ProgramTables out;
  if (program.execution_plan() == nullptr) return out;
  for (const fb::ExecutionPlan* plan : *program.execution_plan()) {
    MethodTables m;
    m.has_name = plan->name() != nullptr;
    if (m.has_name) m.name = plan->name()->str();
    if (plan->values() != nullptr) {
      for (const fb::EValue* v : *plan->values()) m.values.push_back(GeneratedValue(*v));
    }
    m.inputs = Copy(plan->inputs());
    if (plan->chains() != nullptr) {
      for (const fb::Chain* chain : *plan->chains()) {
        if (chain->instructions() == nullptr) continue;
        for (const fb::Instruction* i : *chain->instructions()) {
          m.instructions.push_back(GeneratedInstruction(*i));
        }
      }
    }
    if (const auto* sizes = plan->non_const_buffer_sizes()) {
      for (flatbuffers::uoffset_t i = 0; i < sizes->size(); ++i) {
        int64_t size = 0;  // byte-wise: the vector may sit at 4 mod 8
        std::memcpy(&size, sizes->Data() + sizeof(int64_t) * i, sizeof size);
        m.non_const_buffer_sizes.push_back(size);
      }
    }
    if (const auto* devices = plan->non_const_buffer_device()) {
      for (const fb::NonConstBufferDevice* d : *devices) {
        m.non_const_buffer_device.push_back(
            {d->buffer_idx(), static_cast<int8_t>(d->device_type()), d->device_index()});
      }
    }
    out.methods.push_back(std::move(m));
  }
  return out;
}

// The verified program (inside the bundle, for a bundle), or nullptr.
const fb::Program* GeneratedProgram(const std::vector<uint8_t>& bytes) {
  std::span<const uint8_t> program = bytes;
  if (IsBundle(program)) {
    Result<BundleInfo> info = ReadBundle(program);
    if (!info.ok()) return nullptr;
    program = ProgramInBundle(program, *info);
  }
  const fb::Program* root = nullptr;
  // The layout's segment checks are the rewriter's own; the tables are
  // what is compared.
  if (!ReadPteLayout(program, &root).ok()) return nullptr;
  return root;
}

std::string Describe(const rc::Report& report) {
  std::string text = report.Summary() + "\n";
  for (const rc::Finding& f : report.findings) {
    text += std::to_string(static_cast<int>(f.kind)) + " " + f.message + "\n";
  }
  for (const rc::MethodArenas& m : report.methods) {
    text += m.name + " " + std::to_string(m.planned_tensors);
    for (uint64_t s : m.arena_sizes) text += " " + std::to_string(s);
    text += "\n";
  }
  for (const rc::SharedBuffer& s : report.shared) text += "shared " + s.name + "\n";
  return text;
}

TEST(RuntimeCheckReader, ReadsEveryCorpusFileAsTheGeneratedCodeDoes) {
  const std::vector<test_support::ManifestRow> manifest = test_support::CorpusManifest();
  if (manifest.empty()) GTEST_SKIP() << "../shared/corpus is absent: no real programs to compare";
  size_t expected_readable = 0;
  for (const test_support::ManifestRow& row : manifest) {
    if (row.identifier == "ET12" || row.identifier == "BP08") ++expected_readable;
  }
  size_t readable = 0;
  size_t compared_tensors = 0;
  for (const test_support::ManifestRow& row : manifest) {
    SCOPED_TRACE(row.file);
    const std::string text = test_support::ReadFileBytes(test_support::CorpusPath(row));
    const std::vector<uint8_t> bytes(text.begin(), text.end());
    ProgramTables ours;
    std::string problem;
    const bool read = rc::internal::ReadProgramTables(bytes.data(), bytes.size(), &ours, &problem);
    const fb::Program* generated = GeneratedProgram(bytes);
    ASSERT_EQ(read, generated != nullptr) << problem;
    if (!read) continue;
    ++readable;
    const ProgramTables theirs = GeneratedTables(*generated);
    ASSERT_EQ(ours.methods.size(), theirs.methods.size());
    for (size_t m = 0; m < ours.methods.size(); ++m) {
      const MethodTables& a = ours.methods[m];
      const MethodTables& b = theirs.methods[m];
      EXPECT_EQ(a.name, b.name);
      ASSERT_EQ(a.values.size(), b.values.size()) << a.name;
      for (size_t v = 0; v < a.values.size(); ++v) {
        EXPECT_TRUE(a.values[v] == b.values[v]) << a.name << " value " << v;
        if (a.values[v].kind == ValueKind::kTensor) ++compared_tensors;
      }
      EXPECT_EQ(a.inputs, b.inputs) << a.name;
      EXPECT_TRUE(a.instructions == b.instructions) << a.name;
      EXPECT_EQ(a.non_const_buffer_sizes, b.non_const_buffer_sizes) << a.name;
    }
    EXPECT_TRUE(ours == theirs);

    // The checks on the generated tables give what CheckProgram gives.
    const rc::Report report = rc::CheckProgram(bytes.data(), bytes.size(), {});
    rc::Report on_generated;
    rc::internal::CheckProgramTables(theirs, {}, rc::internal::CompareLocation::kArenaAndOffset,
                                     &on_generated);
    EXPECT_EQ(Describe(report), Describe(on_generated));
  }
  EXPECT_EQ(readable, expected_readable) << "MANIFEST.tsv's ET12 and BP08 rows";
  EXPECT_GT(compared_tensors, 0u);
}

}  // namespace
}  // namespace pteshare

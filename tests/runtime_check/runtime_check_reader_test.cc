// runtime_check reads programs with its own bounds-checked reader
// (schema/flat_reader.h, runtime_check/method_records.cc) so that it links
// no FlatBuffers. Here every corpus file is read both ways: the checker's
// records (in a scratch it sized itself) and the flatc-generated code after
// the FlatBuffers verifier (the rewriter's reader). Both accept the same
// files and see the same methods, planned tensors, arenas and devices.
// Also: the field ids of schema/program_fields.h are the generated ones.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "bundled_program_generated.h"
#include "program_fields.h"
#include "program_generated.h"
#include "rewriter/program/bundle.h"
#include "rewriter/program/pte_layout.h"
#include "runtime_check/locate_program.h"
#include "runtime_check/method_records.h"
#include "runtime_check/program_records.h"
#include "tests/test_support.h"

namespace pteshare {
namespace {

namespace f = fields;
namespace core = runtime_check::core;
namespace internal = runtime_check::core::internal;
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

// ---- The same records through the generated code ---------------------------

// One planned tensor as both readers see it.
struct Planned {
  uint32_t value_index = 0;
  uint32_t memory_id = 0;
  uint64_t offset = 0;
  std::string name;
  bool has_initial_state = false;
  bool operator==(const Planned&) const = default;
};

// One method as both readers see it.
struct MethodView {
  std::string name;
  std::vector<Planned> tensors;
  std::vector<int64_t> arena_sizes;     // entry 0 reserved
  std::vector<uint16_t> arena_devices;  // (type << 8 | index) per arena
  bool operator==(const MethodView&) const = default;
};

std::vector<MethodView> Generated(const fb::Program& program) {
  std::vector<MethodView> out;
  if (program.execution_plan() == nullptr) return out;
  uint32_t index = 0;
  for (const fb::ExecutionPlan* plan : *program.execution_plan()) {
    MethodView m;
    m.name = plan->name() != nullptr ? plan->name()->str() : "#" + std::to_string(index);
    ++index;
    if (const auto* sizes = plan->non_const_buffer_sizes()) {
      for (flatbuffers::uoffset_t i = 0; i < sizes->size(); ++i) {
        int64_t size = 0;  // byte-wise: the vector may sit at 4 mod 8
        std::memcpy(&size, sizes->Data() + sizeof(int64_t) * i, sizeof size);
        m.arena_sizes.push_back(size);
      }
    }
    m.arena_devices.assign(m.arena_sizes.empty() ? 0 : m.arena_sizes.size() - 1, 0);
    if (const auto* devices = plan->non_const_buffer_device()) {
      for (const fb::NonConstBufferDevice* d : *devices) {
        // buffer_idx counts arenas as memory ids do (0 is reserved).
        if (d->buffer_idx() >= 1 &&
            static_cast<size_t>(d->buffer_idx()) <= m.arena_devices.size()) {
          m.arena_devices[d->buffer_idx() - 1] =
              static_cast<uint16_t>(static_cast<uint8_t>(d->device_type()) << 8 |
                                    static_cast<uint8_t>(d->device_index()));
        }
      }
    }
    if (plan->values() != nullptr) {
      for (flatbuffers::uoffset_t v = 0; v < plan->values()->size(); ++v) {
        const fb::Tensor* t = plan->values()->Get(v)->val_as_Tensor();
        if (t == nullptr || t->allocation_info() == nullptr ||
            t->shape_dynamism() == fb::TensorShapeDynamism::DYNAMIC_UNBOUND) {
          continue;
        }
        Planned p;
        p.value_index = v;
        p.memory_id = t->allocation_info()->memory_id();
        p.offset = uint64_t{t->allocation_info()->memory_offset_high()} << 32 |
                   t->allocation_info()->memory_offset_low();
        if (t->extra_tensor_info() != nullptr &&
            t->extra_tensor_info()->fully_qualified_name() != nullptr) {
          p.name = t->extra_tensor_info()->fully_qualified_name()->str();
        }
        p.has_initial_state = t->data_buffer_idx() > 0;
        m.tensors.push_back(p);
      }
    }
    out.push_back(std::move(m));
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

std::string Str(const core::Text& text) { return std::string(text.data, text.size); }

// The checker's records, read as core::Check reads them (no names assigned,
// no pairing: the names are the program's own); false when it refuses.
bool Checker(const std::vector<uint8_t>& bytes, std::vector<MethodView>* out) {
  internal::LocatedProgram located;
  core::Finding failure;
  if (!internal::LocateProgram(bytes.data(), bytes.size(), &located, &failure)) return false;
  flat::Reader reader(located.bytes, located.size, internal::RulesReadingBudget(located.size));
  const internal::Counts counts = internal::CountProgram(reader, {});
  EXPECT_TRUE(reader.ok());
  internal::ScratchLayout sizing(nullptr, 0);
  internal::Program program;
  internal::LayOut(counts, sizing, &program);
  std::vector<uint64_t> scratch(sizing.used() / 8 + 1);
  internal::ScratchLayout layout(scratch.data(), scratch.size() * 8);
  internal::LayOut(counts, layout, &program);
  EXPECT_TRUE(layout.fits());
  program.bytes = located.bytes;
  program.method_count = counts.methods;
  program.tensor_count = counts.tensors;
  core::Result result;
  struct : core::Sink {
  } ignore;  // the findings are other tests' subject
  internal::Findings findings(ignore, result);
  internal::ReadMethods(reader, &program, findings);
  for (uint32_t i = 0; i < program.method_count; ++i) {
    const internal::MethodRecord& record = program.methods[i];
    MethodView m;
    m.name = Str(record.name);
    for (uint32_t a = 0; a < record.arena_sizes.length; ++a) {
      m.arena_sizes.push_back(reader.Element<int64_t>(record.arena_sizes, a));
    }
    m.arena_devices.assign(record.arena_devices, record.arena_devices + record.arena_count);
    for (uint32_t t = 0; t < record.tensor_count; ++t) {
      const internal::TensorRecord& tensor = record.tensors[t];
      m.tensors.push_back({tensor.value_index, tensor.memory_id, tensor.offset, Str(tensor.name),
                           tensor.has_initial_state});
    }
    out->push_back(std::move(m));
  }
  return true;
}

TEST(RuntimeCheckReader, ReadsEveryCorpusFileAsTheGeneratedCodeDoes) {
  std::vector<test_support::ManifestRow> rows;  // programs and bundles of programs
  for (const test_support::ManifestRow& row : test_support::CorpusManifest()) {
    if (row.identifier == "ET12" || row.identifier == "BP08") rows.push_back(row);
  }
  if (rows.empty()) GTEST_SKIP() << "../shared/corpus is absent: no real programs to compare";
  size_t compared_tensors = 0;
  size_t compared_methods = 0;
  for (const test_support::ManifestRow& row : rows) {
    SCOPED_TRACE(row.file);
    const std::string text = test_support::ReadFileBytes(test_support::CorpusPath(row));
    const std::vector<uint8_t> bytes(text.begin(), text.end());
    std::vector<MethodView> ours;
    const bool read = Checker(bytes, &ours);
    const fb::Program* generated = GeneratedProgram(bytes);
    ASSERT_TRUE(read) << "the checker refuses a program of the corpus";
    ASSERT_NE(generated, nullptr);
    const std::vector<MethodView> theirs = Generated(*generated);
    ASSERT_EQ(ours.size(), theirs.size());
    for (size_t m = 0; m < ours.size(); ++m) {
      EXPECT_EQ(ours[m].name, theirs[m].name);
      EXPECT_EQ(ours[m].arena_sizes, theirs[m].arena_sizes) << theirs[m].name;
      EXPECT_EQ(ours[m].arena_devices, theirs[m].arena_devices) << theirs[m].name;
      EXPECT_TRUE(ours[m].tensors == theirs[m].tensors) << theirs[m].name;
      compared_tensors += theirs[m].tensors.size();
      ++compared_methods;
    }
  }
  EXPECT_GT(compared_methods, rows.size() - 1);
  EXPECT_GT(compared_tensors, 0u);
}

}  // namespace
}  // namespace pteshare

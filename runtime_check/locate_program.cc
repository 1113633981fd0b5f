#include "runtime_check/locate_program.h"

#include "bundle_header.h"
#include "extended_header.h"
#include "flat_reader.h"
#include "program_fields.h"
#include "runtime_check/program_records.h"
#include "runtime_check/program_walk.h"

namespace pteshare::runtime_check::core::internal {
namespace {

namespace f = ::pteshare::fields;
using flat::Reader;
using flat::Table;
using flat::Vector;

// A real file stores each object once, and each reference to a shared one
// costs it a 4-byte slot, so four times its size (and a floor for tiny
// files) is more reading than any real file needs.
uint64_t VerifyingBudget(uint64_t size) { return 4 * size + 65536; }

Finding NotAProgram(ReadFailure failure) {
  Finding finding = NewFinding(FindingKind::kNotAProgram);
  finding.reason = static_cast<uint8_t>(failure);
  return finding;
}

void SetFlatProblem(const flat::Problem& problem, Finding* finding) {
  finding->detail[0] = static_cast<uint64_t>(problem.rule);
  finding->detail[1] = problem.at;
  finding->detail[2] = problem.length;
  finding->detail[3] = problem.size;
  finding->detail_text = problem.what;
}

// The ET12 program [bytes, bytes + size); a bundle is not accepted here,
// so bundles nested in bundles cannot make the reading recurse.
bool LocatePlainProgram(const uint8_t* bytes, size_t size, LocatedProgram* out, Finding* failure) {
  if (size == 0) {
    *failure = NotAProgram(ReadFailure::kEmpty);
    return false;
  }
  if (size < PteConstants::kHeaderOffset) {
    *failure = NotAProgram(ReadFailure::kTooSmall);
    failure->detail[0] = size;
    return false;
  }
  if (!pte_header::HasProgramIdentifier(bytes, size)) {
    *failure = NotAProgram(ReadFailure::kWrongIdentifier);
    failure->bytes = bytes;
    return false;
  }
  ExtendedHeader header;
  uint64_t program_size = 0;
  const pte_header::HeaderProblem problem =
      pte_header::ParseHeader(bytes, size, &header, &program_size);
  if (problem != pte_header::HeaderProblem::kOk) {
    *failure = NotAProgram(ReadFailure::kHeader);
    failure->detail[0] = static_cast<uint64_t>(problem);
    failure->detail[1] = header.length;
    failure->detail[2] = header.program_size;
    failure->detail[3] = size;
    return false;
  }
  if (program_size > Reader::kMaxBufferSize) {
    *failure = NotAProgram(ReadFailure::kBeyondLimit);
    failure->detail[0] = program_size;
    return false;
  }
  Reader reader(bytes, static_cast<size_t>(program_size), VerifyingBudget(program_size));
  // Every table the schema reaches, as the FlatBuffers verifier would.
  WalkProgram(reader, reader.Root());
  if (!reader.ok()) {
    *failure = NotAProgram(ReadFailure::kFlatbuffer);
    SetFlatProblem(reader.problem(), failure);
    return false;
  }
  out->bytes = bytes;
  out->size = static_cast<size_t>(program_size);
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
                          Finding* failure) {
  Reader reader(bytes, size, VerifyingBudget(size));
  const Table root = reader.Root();
  // The test suites are not checked, but every table of them is read (as
  // the FlatBuffers verifier would), so a damaged bundle is refused whole.
  const Vector suites = reader.VectorField(root, f::BundledProgram::kMethodTestSuites, 4);
  for (uint32_t i = 0; i < suites.length && reader.ok(); ++i) {
    const Table suite = reader.TableElement(suites, i);
    (void)reader.StringField(suite, f::BundledMethodTestSuite::kMethodName);
    const Vector cases = reader.VectorField(suite, f::BundledMethodTestSuite::kTestCases, 4);
    for (uint32_t c = 0; c < cases.length && reader.ok(); ++c) {
      const Table test_case = reader.TableElement(cases, c);
      WalkBundledValues(reader, test_case, f::BundledMethodTestCase::kInputs);
      WalkBundledValues(reader, test_case, f::BundledMethodTestCase::kExpectedOutputs);
    }
  }
  const Vector program = reader.VectorField(root, f::BundledProgram::kProgram, 1);
  if (!reader.ok()) {
    *failure = NotAProgram(ReadFailure::kBundleFlatbuffer);
    SetFlatProblem(reader.problem(), failure);
    return false;
  }
  if (program.length == 0) {
    *failure = NotAProgram(ReadFailure::kBundleWithoutProgram);
    return false;
  }
  if (program.data % bundle::BundleConstants::kProgramAlignment != 0) {
    *failure = NotAProgram(ReadFailure::kBundleMisaligned);
    failure->detail[0] = program.data;
    return false;
  }
  *offset = program.data;
  *program_size = program.length;
  return true;
}

}  // namespace

uint64_t RulesReadingBudget(size_t size) { return 16 * uint64_t{size} + 65536; }

bool LocateProgram(const void* data, size_t size, LocatedProgram* out, Finding* failure) {
  const auto* bytes = static_cast<const uint8_t*>(data);
  if (bytes == nullptr || size == 0) {
    *failure = NotAProgram(ReadFailure::kEmpty);
    return false;
  }
  if (reinterpret_cast<uintptr_t>(bytes) % kRequiredAlignment != 0) {
    *failure = NotAProgram(ReadFailure::kMisaligned);
    failure->detail[0] = reinterpret_cast<uintptr_t>(bytes);
    return false;
  }
  if (!bundle::HasBundleIdentifier(bytes, size)) {
    return LocatePlainProgram(bytes, size, out, failure);
  }
  // A bundled program (.bpte): the program it holds is what a loader runs.
  size_t offset = 0;
  size_t program_size = 0;
  if (!LocateBundledProgram(bytes, size, &offset, &program_size, failure)) return false;
  if (!LocatePlainProgram(bytes + offset, program_size, out, failure)) {
    failure->expected = 1;  // inside a bundle: the message says so
    return false;
  }
  return true;
}

}  // namespace pteshare::runtime_check::core::internal

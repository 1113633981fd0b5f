#include "rewriter/bundle/bundle_builder.h"

#include <cstring>
#include <string>

#include "bundle_bytes.h"
#include "rewriter/program/bundle.h"

namespace pteshare {
namespace {

namespace fbs = flatbuffers;
namespace b = bundle;

// Fields per table in our schema (a union counts twice: type and value).
constexpr int kIntFields = 1, kBoolFields = 1, kDoubleFields = 1, kTensorFields = 4,
              kValueFields = 2, kTestCaseFields = 2, kSuiteFields = 2, kBundleFields = 3;

// Whether `table` stores a field past the first `known` ones: its vtable is
// longer and one of the extra entries is set.
bool HasUnknownField(const fbs::Table& table, int known) {
  const uint8_t* vtable = table.GetVTable();
  const auto vtable_size = fbs::ReadScalar<fbs::voffset_t>(vtable);
  for (size_t at = 4 + 2 * static_cast<size_t>(known); at + 2 <= vtable_size; at += 2) {
    if (fbs::ReadScalar<fbs::voffset_t>(vtable + at) != 0) return true;
  }
  return false;
}

Status KnownFieldsOnly(const void* generated, int known, const std::string& where) {
  if (HasUnknownField(*static_cast<const fbs::Table*>(generated), known)) {
    return Error{"bundled program: " + where +
                 " stores a field this schema does not know (a newer bundle format?); rewriting "
                 "would drop it"};
  }
  return Status::Ok();
}

// Copies of the input's vectors: the same elements, the same presence.
template <typename T>
fbs::Offset<fbs::Vector<T>> CopyScalars(fbs::FlatBufferBuilder& out, const fbs::Vector<T>* v,
                                        size_t force_align = 0) {
  if (v == nullptr) return 0;
  if (force_align != 0) out.ForceVectorAlignment(v->size(), sizeof(T), force_align);
  return out.CreateVector(reinterpret_cast<const T*>(v->Data()), v->size());
}

Result<fbs::Offset<void>> CopyValueBody(fbs::FlatBufferBuilder& out, const b::Value& value,
                                        const std::string& where) {
  // The verifier accepts a union type whose value is absent; there is
  // nothing to copy then, and a reader would find no table.
  if (value.val_type() != b::ValueUnion::NONE && value.val() == nullptr) {
    return Error{"bundled program: " + where + " has value type " +
                 std::to_string(static_cast<int>(value.val_type())) + " but no value"};
  }
  switch (value.val_type()) {
    case b::ValueUnion::NONE:
      return fbs::Offset<void>(0);
    case b::ValueUnion::Tensor: {
      const b::Tensor& t = *value.val_as_Tensor();
      Status known = KnownFieldsOnly(&t, kTensorFields, where + " (tensor)");
      if (!known.ok()) return known.error();
      // Children first: a table cannot be open while vectors are made.
      auto sizes = CopyScalars(out, t.sizes());
      auto data = CopyScalars(out, t.data(), /*force_align=*/16);
      auto dim_order = CopyScalars(out, t.dim_order());
      return b::CreateTensor(out, t.scalar_type(), sizes, data, dim_order).Union();
    }
    case b::ValueUnion::Int: {
      Status known = KnownFieldsOnly(value.val_as_Int(), kIntFields, where + " (int)");
      if (!known.ok()) return known.error();
      return b::CreateInt(out, value.val_as_Int()->int_val()).Union();
    }
    case b::ValueUnion::Bool: {
      Status known = KnownFieldsOnly(value.val_as_Bool(), kBoolFields, where + " (bool)");
      if (!known.ok()) return known.error();
      return b::CreateBool(out, value.val_as_Bool()->bool_val()).Union();
    }
    case b::ValueUnion::Double: {
      Status known = KnownFieldsOnly(value.val_as_Double(), kDoubleFields, where + " (double)");
      if (!known.ok()) return known.error();
      return b::CreateDouble(out, value.val_as_Double()->double_val()).Union();
    }
  }
  return Error{"bundled program: " + where + " has value type " +
               std::to_string(static_cast<int>(value.val_type())) +
               ", which this schema does not know (a newer bundle format?)"};
}

Result<fbs::Offset<fbs::Vector<fbs::Offset<b::Value>>>> CopyValues(
    fbs::FlatBufferBuilder& out, const fbs::Vector<fbs::Offset<b::Value>>* values,
    const std::string& where) {
  if (values == nullptr) return fbs::Offset<fbs::Vector<fbs::Offset<b::Value>>>(0);
  std::vector<fbs::Offset<b::Value>> copies;
  for (fbs::uoffset_t i = 0; i < values->size(); ++i) {
    const std::string here = where + " " + std::to_string(i);
    Status known = KnownFieldsOnly(values->Get(i), kValueFields, here);
    if (!known.ok()) return known.error();
    Result<fbs::Offset<void>> body = CopyValueBody(out, *values->Get(i), here);
    if (!body.ok()) return body.error();
    copies.push_back(b::CreateValue(out, values->Get(i)->val_type(), *body));
  }
  return out.CreateVector(copies);
}

Result<fbs::Offset<b::BundledMethodTestSuite>> CopySuite(fbs::FlatBufferBuilder& out,
                                                         const b::BundledMethodTestSuite& suite,
                                                         const std::string& where) {
  Status known = KnownFieldsOnly(&suite, kSuiteFields, where);
  if (!known.ok()) return known.error();
  std::vector<fbs::Offset<b::BundledMethodTestCase>> cases;
  if (const auto* test_cases = suite.test_cases()) {
    for (fbs::uoffset_t i = 0; i < test_cases->size(); ++i) {
      const b::BundledMethodTestCase& test = *test_cases->Get(i);
      const std::string here = where + ", test case " + std::to_string(i);
      known = KnownFieldsOnly(&test, kTestCaseFields, here);
      if (!known.ok()) return known.error();
      auto inputs = CopyValues(out, test.inputs(), here + ", input");
      if (!inputs.ok()) return inputs.error();
      auto outputs = CopyValues(out, test.expected_outputs(), here + ", expected output");
      if (!outputs.ok()) return outputs.error();
      cases.push_back(b::CreateBundledMethodTestCase(out, *inputs, *outputs));
    }
  }
  auto name = suite.method_name() ? out.CreateString(suite.method_name()) : 0;
  auto case_vector = suite.test_cases() ? out.CreateVector(cases) : 0;
  return b::CreateBundledMethodTestSuite(out, name, case_vector);
}

std::string SuiteWhere(const b::BundledMethodTestSuite& suite, size_t index) {
  return "test suite " + std::to_string(index) +
         (suite.method_name() ? " (" + suite.method_name()->str() + ")" : std::string());
}

// Byte comparison of two optional vectors: same presence, same bytes.
template <typename T>
bool SameBytes(const fbs::Vector<T>* old_vector, const fbs::Vector<T>* new_vector) {
  if (old_vector == nullptr || new_vector == nullptr) {
    return old_vector == nullptr && new_vector == nullptr;
  }
  return old_vector->size() == new_vector->size() &&
         std::memcmp(old_vector->Data(), new_vector->Data(), old_vector->size() * sizeof(T)) == 0;
}

bool SameValue(const b::Value& old_value, const b::Value& new_value) {
  if (old_value.val_type() != new_value.val_type()) return false;
  // NONE says nothing (a body stored with it is meaningless and not copied).
  if (old_value.val_type() == b::ValueUnion::NONE) return true;
  if ((old_value.val() == nullptr) != (new_value.val() == nullptr)) return false;
  if (old_value.val() == nullptr) return true;
  switch (old_value.val_type()) {
    case b::ValueUnion::Tensor: {
      const b::Tensor &x = *old_value.val_as_Tensor(), &y = *new_value.val_as_Tensor();
      return x.scalar_type() == y.scalar_type() && SameBytes(x.sizes(), y.sizes()) &&
             SameBytes(x.data(), y.data()) && SameBytes(x.dim_order(), y.dim_order());
    }
    case b::ValueUnion::Int:
      return old_value.val_as_Int()->int_val() == new_value.val_as_Int()->int_val();
    case b::ValueUnion::Bool:
      return old_value.val_as_Bool()->bool_val() == new_value.val_as_Bool()->bool_val();
    case b::ValueUnion::Double: {  // the bits, so a NaN equals itself
      const double x = old_value.val_as_Double()->double_val();
      const double y = new_value.val_as_Double()->double_val();
      return std::memcmp(&x, &y, sizeof x) == 0;
    }
    default:
      return true;  // NONE (an unknown type is never copied)
  }
}

Status CompareValues(const fbs::Vector<fbs::Offset<b::Value>>* old_values,
                     const fbs::Vector<fbs::Offset<b::Value>>* new_values,
                     const std::string& where) {
  if ((old_values == nullptr) != (new_values == nullptr) ||
      (old_values && old_values->size() != new_values->size())) {
    return Error{where + "s differ in number"};
  }
  for (fbs::uoffset_t i = 0; old_values && i < old_values->size(); ++i) {
    if (!SameValue(*old_values->Get(i), *new_values->Get(i)))
      return Error{where + " " + std::to_string(i) + " differs"};
  }
  return Status::Ok();
}

}  // namespace

Result<std::vector<uint8_t>> RebuildBundle(std::span<const uint8_t> old_bundle,
                                           std::span<const uint8_t> program) {
  Result<BundleInfo> info = ReadBundle(old_bundle);
  if (!info.ok()) return info.error();
  const b::BundledProgram& root = *b::GetBundledProgram(old_bundle.data());
  Status known = KnownFieldsOnly(&root, kBundleFields, "the bundle's root table");
  if (!known.ok()) return known.error();

  fbs::FlatBufferBuilder out(program.size() + old_bundle.size() - info->program_size + 1024);
  // FlatBufferBuilder writes back to front: the suites made first end up
  // last in the file, after the program, as the exporter has them.
  std::vector<fbs::Offset<b::BundledMethodTestSuite>> suites;
  if (const auto* old_suites = root.method_test_suites()) {
    for (fbs::uoffset_t i = 0; i < old_suites->size(); ++i) {
      auto suite = CopySuite(out, *old_suites->Get(i), SuiteWhere(*old_suites->Get(i), i));
      if (!suite.ok()) return suite.error();
      suites.push_back(*suite);
    }
  }
  auto suite_vector = root.method_test_suites() ? out.CreateVector(suites) : 0;
  out.ForceVectorAlignment(program.size(), 1, bundle::BundleConstants::kProgramAlignment);
  auto program_vector = out.CreateVector(program.data(), program.size());
  b::FinishBundledProgramBuffer(
      out, b::CreateBundledProgram(out, root.version(), suite_vector, program_vector));
  return std::vector<uint8_t>(out.GetBufferPointer(), out.GetBufferPointer() + out.GetSize());
}

Status CheckTestCasesKept(std::span<const uint8_t> old_bundle,
                          std::span<const uint8_t> new_bundle) {
  for (std::span<const uint8_t> bytes : {old_bundle, new_bundle}) {
    Result<BundleInfo> info = ReadBundle(bytes);
    if (!info.ok()) return info.error();
  }
  const b::BundledProgram& a = *b::GetBundledProgram(old_bundle.data());
  const b::BundledProgram& n = *b::GetBundledProgram(new_bundle.data());
  const auto fail = [](const std::string& what) {
    return Status(Error{"the new bundle does not keep the test cases: " + what});
  };
  if (a.version() != n.version()) return fail("the version differs");
  const auto *old_suites = a.method_test_suites(), *new_suites = n.method_test_suites();
  if ((old_suites == nullptr) != (new_suites == nullptr) ||
      (old_suites && old_suites->size() != new_suites->size())) {
    return fail("the number of test suites differs");
  }
  for (fbs::uoffset_t s = 0; old_suites && s < old_suites->size(); ++s) {
    const b::BundledMethodTestSuite &x = *old_suites->Get(s), &y = *new_suites->Get(s);
    const std::string where = SuiteWhere(x, s);
    if ((x.method_name() == nullptr) != (y.method_name() == nullptr) ||
        (x.method_name() && x.method_name()->str() != y.method_name()->str())) {
      return fail(where + ": the method name differs");
    }
    const auto *xc = x.test_cases(), *yc = y.test_cases();
    if ((xc == nullptr) != (yc == nullptr) || (xc && xc->size() != yc->size())) {
      return fail(where + ": the number of test cases differs");
    }
    for (fbs::uoffset_t c = 0; xc && c < xc->size(); ++c) {
      const std::string here = where + ", test case " + std::to_string(c);
      Status same = CompareValues(xc->Get(c)->inputs(), yc->Get(c)->inputs(), here + ", input");
      if (same.ok()) {
        same = CompareValues(xc->Get(c)->expected_outputs(), yc->Get(c)->expected_outputs(),
                             here + ", expected output");
      }
      if (!same.ok()) return fail(same.error().message);
    }
  }
  return Status::Ok();
}

}  // namespace pteshare

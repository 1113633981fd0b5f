// Bundled programs (.bpte) made in tests: a program wrapped the way
// ExecuTorch's bundler wraps it (root, program aligned to 32, then one
// test suite), or with one thing wrong, for the malformed-bundle tests.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "bundled_program_generated.h"
#include "tests/test_support.h"

namespace pteshare::test_support {

/// Rows of MANIFEST.tsv that are bundled programs (BP08); CorpusManifestTotals
/// counts them among its not_programs.
inline size_t CorpusBundleCount() {
  size_t bundles = 0;
  for (const ManifestRow& row : CorpusManifest()) bundles += row.identifier == "BP08";
  return bundles;
}

/// The .bpte files of ../shared/corpus, sorted (empty when it is absent).
inline std::vector<std::filesystem::path> CorpusBundleFiles() {
  std::vector<std::filesystem::path> bundles;
  for (const std::filesystem::path& path : CorpusFiles()) {
    if (path.extension() == ".bpte") bundles.push_back(path);
  }
  return bundles;
}

/// A real program to wrap: the smallest one of the corpus (callers skip
/// when ../shared is absent).
inline std::vector<uint8_t> SmallCorpusProgram() {
  return ReadBytes(SharedDir() / "corpus" / "pytorch__executorch__add.pte");
}

struct BundleSpec {
  bool with_program = true;
  /// force_align of the program vector; 0 forces none (4 bytes, uoffset).
  size_t program_alignment = 32;
  /// The expected Int output also stores a field our schema lacks (id 1).
  bool unknown_int_field = false;
  /// Nonzero: the input's union type code, one the schema does not know.
  uint8_t unknown_value_type = 0;
  /// The input says it is a tensor but holds no value (the verifier lets
  /// that through).
  bool tensor_without_value = false;
  /// The input's type is NONE but a tensor body is stored with it.
  bool none_with_body = false;
  /// Added to the input tensor's first data byte (to tell bundles apart).
  uint8_t data_bias = 0;
  /// The root's version, the suite's method name, how many (equal) test
  /// cases it holds and the Int every case expects.
  uint32_t version = 1;
  std::string method_name = "forward";
  size_t test_cases = 1;
  int64_t expected_int = 42;
};

/// One suite "forward" with one case (as BundleSpec says): a FLOAT[2]
/// tensor input (8 data bytes, dim order [0]) and an Int expected output
/// (42), around `program`.
inline std::vector<uint8_t> MakeBundle(std::span<const uint8_t> program,
                                       const BundleSpec& spec = {}) {
  namespace bf = pteshare::bundle;
  flatbuffers::FlatBufferBuilder fbb;
  std::vector<flatbuffers::Offset<bf::BundledMethodTestCase>> cases;
  for (size_t c = 0; c < spec.test_cases; ++c) {
    std::vector<flatbuffers::Offset<bf::Value>> inputs, outputs;
    {
      const std::vector<int32_t> sizes = {2};
      std::vector<uint8_t> data = {0, 0, 128, 63, 0, 0, 0, 64};  // 1.0f, 2.0f
      data[0] = static_cast<uint8_t>(data[0] + spec.data_bias);
      const std::vector<uint8_t> dim_order = {0};
      auto sizes_vector = fbb.CreateVector(sizes);
      fbb.ForceVectorAlignment(data.size(), 1, 16);
      auto data_vector = fbb.CreateVector(data);
      auto dim_vector = fbb.CreateVector(dim_order);
      auto tensor =
          bf::CreateTensor(fbb, fb::ScalarType::FLOAT, sizes_vector, data_vector, dim_vector);
      const auto type = spec.unknown_value_type != 0
                            ? static_cast<bf::ValueUnion>(spec.unknown_value_type)
                        : spec.none_with_body ? bf::ValueUnion::NONE
                                              : bf::ValueUnion::Tensor;
      inputs.push_back(bf::CreateValue(fbb, type, spec.tensor_without_value ? 0 : tensor.Union()));
    }
    {
      flatbuffers::Offset<bf::Int> answer;
      if (spec.unknown_int_field) {
        const auto start = fbb.StartTable();
        fbb.AddElement<int64_t>(bf::Int::VT_INT_VAL, spec.expected_int, 0);
        fbb.AddElement<int32_t>(bf::Int::VT_INT_VAL + 2, 7, 0);  // field id 1
        answer = flatbuffers::Offset<bf::Int>(fbb.EndTable(start));
      } else {
        answer = bf::CreateInt(fbb, spec.expected_int);
      }
      outputs.push_back(bf::CreateValue(fbb, bf::ValueUnion::Int, answer.Union()));
    }
    cases.push_back(
        bf::CreateBundledMethodTestCase(fbb, fbb.CreateVector(inputs), fbb.CreateVector(outputs)));
  }
  auto suite = bf::CreateBundledMethodTestSuite(fbb, fbb.CreateString(spec.method_name),
                                                fbb.CreateVector(cases));
  std::vector<flatbuffers::Offset<bf::BundledMethodTestSuite>> suites = {suite};
  auto suite_vector = fbb.CreateVector(suites);
  flatbuffers::Offset<flatbuffers::Vector<uint8_t>> program_vector = 0;
  if (spec.with_program) {
    if (spec.program_alignment != 0) {
      fbb.ForceVectorAlignment(program.size(), 1, spec.program_alignment);
    }
    program_vector = fbb.CreateVector(program.data(), program.size());
  }
  bf::FinishBundledProgramBuffer(
      fbb, bf::CreateBundledProgram(fbb, spec.version, suite_vector, program_vector));
  return {fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize()};
}

}  // namespace pteshare::test_support

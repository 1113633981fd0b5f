// What every fuzz property check shares: reading bytes the way pteshare
// reads a file (layout, FlatBuffers verifier, ProgramView), and stopping
// loudly when a property that must hold does not. A failed property is a
// bug in pteshare: the fuzz target aborts so libFuzzer keeps the input (which
// then goes to tests/bad_inputs/), and tests/rewriter/bad_input_corpus_test.cc runs
// the same checks on every committed input.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <span>
#include <string>

#include "rewriter/program/program_view.h"
#include "rewriter/program/pte_layout.h"

namespace pteshare::fuzz {

/// A property that must hold and did not: a bug in pteshare.
struct PropertyViolation {
  std::string what;
};

/// Stops the check. The fuzz targets turn this into an abort (RunProperty),
/// so libFuzzer keeps the input; the regression test reports it instead.
[[noreturn]] inline void Fail(const std::string& what) { throw PropertyViolation{what}; }

/// Runs `check` on libFuzzer's bytes; a violated property aborts the run.
template <typename Check>
int RunProperty(const uint8_t* data, size_t size, Check check) {
  try {
    check(std::span<const uint8_t>(data, size));
  } catch (const PropertyViolation& v) {
    // Names come from the input and may hold any byte, NUL included.
    std::string printable;
    for (char c : v.what) {
      const auto byte = static_cast<unsigned char>(c);
      if (byte >= 0x20 && byte < 0x7f) {
        printable += c;
      } else {
        char escaped[8];
        std::snprintf(escaped, sizeof escaped, "\\x%02x", byte);
        printable += escaped;
      }
    }
    std::fprintf(stderr, "pteshare fuzz: property violated: %s\n", printable.c_str());
    std::fflush(stderr);
    std::abort();
  }
  return 0;
}

/// The ProgramView of `bytes`, or nothing when the reader refuses them (the
/// expected outcome for most mutated inputs). The view points into `bytes`.
inline std::optional<ProgramView> ReadView(std::span<const uint8_t> bytes) {
  const fb::Program* program = nullptr;
  Result<PteLayout> layout = ReadPteLayout(bytes, &program);
  if (!layout.ok()) return std::nullopt;
  if (program == nullptr) Fail("ReadPteLayout succeeded without a root table");
  Result<ProgramView> view = ReadProgramView(*program, *layout);
  if (!view.ok()) return std::nullopt;
  return std::move(view).value();
}

}  // namespace pteshare::fuzz

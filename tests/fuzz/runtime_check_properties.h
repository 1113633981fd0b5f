// Fuzz properties: the load-time checker, which an application runs on bytes it
// has not verified. CheckProgram with the automatic choice, with the names it
// found, and with a name given by position; then CheckBindings with every
// method bound to one set of arenas, as pteshare-selfcheck binds them; then
// the core (check.h) in a heap block of exactly ScratchBytes (ASan sees a
// byte past it) and in one byte less (a finding, nothing else). The
// arena pointers are made-up addresses: the checker compares addresses and
// never touches the memory, so no gigabyte arena is allocated. Properties:
// no crash or sanitizer report; unreadable bytes give a not_a_program
// finding; every finding has a message.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "runtime_check/alias_check.h"
#include "runtime_check/check.h"
#include "tests/fuzz/fuzz_support.h"

namespace pteshare::fuzz {
namespace rc = runtime_check;

namespace detail {

inline void CheckReport(const rc::Report& report, const char* what) {
  for (const rc::Finding& f : report.findings) {
    if (f.message.empty()) Fail(std::string(what) + ": a finding without a message");
  }
  if (!report.readable() && report.findings.empty()) {
    Fail(std::string(what) + ": unreadable bytes without a finding saying why");
  }
  (void)report.Summary();
}

// Every method bound to the same buffers, one per memory_id, each as large
// as the largest method needs (self_check_main.cc), at fake addresses 1 TiB
// apart.
inline std::vector<rc::MethodBinding> SharedBindings(const rc::Report& program) {
  std::vector<uint64_t> sizes;
  for (const rc::MethodArenas& method : program.methods) {
    sizes.resize(std::max(sizes.size(), method.arena_sizes.size()), 0);
    for (size_t i = 0; i < method.arena_sizes.size(); ++i) {
      sizes[i] = std::max(sizes[i], method.arena_sizes[i]);
    }
  }
  std::vector<rc::ArenaBuffer> arenas;
  for (size_t i = 0; i < sizes.size(); ++i) {
    const uintptr_t address = (uintptr_t{1} << 40) * (i + 1);
    arenas.push_back({reinterpret_cast<const void*>(address), static_cast<size_t>(sizes[i])});
  }
  std::vector<rc::MethodBinding> bindings;
  for (const rc::MethodArenas& method : program.methods) bindings.push_back({method.name, arenas});
  // A binding for a method the program lacks, and one with a missing arena.
  bindings.push_back({"fuzz.no_such_method", arenas});
  if (!bindings.empty() && !arenas.empty() && program.methods.size() > 1) {
    bindings[1].arenas.back() = {nullptr, 0};
  }
  return bindings;
}

// core::Check in exactly the scratch it asks for, then one byte less.
inline void CheckCoreScratch(std::span<const uint8_t> bytes, const rc::Report& report) {
  struct Counting : rc::core::Sink {
    std::vector<rc::FindingKind> kinds;
    void OnFinding(const rc::core::Finding& f) override { kinds.push_back(f.kind); }
  };
  const size_t needed = rc::core::ScratchBytes(bytes.data(), bytes.size(), {});
  if (needed == 0) Fail("ScratchBytes is 0 for a program CheckProgram reads");
  // operator new aligns to 16; the block ends where the scratch ends.
  std::vector<uint8_t> exact(needed);
  Counting sink;
  const rc::core::Result result =
      rc::core::Check(bytes.data(), bytes.size(), {}, {exact.data(), exact.size()}, sink);
  if (!result.completed) Fail("core::Check did not complete in the scratch ScratchBytes gave");
  if (result.errors != report.error_count()) Fail("core::Check and CheckProgram count apart");
  std::vector<uint8_t> short_by_one(needed - 1);
  Counting refused;
  const rc::core::Result too_small = rc::core::Check(
      bytes.data(), bytes.size(), {}, {short_by_one.data(), short_by_one.size()}, refused);
  if (too_small.completed || refused.kinds.size() != 1 ||
      refused.kinds[0] != rc::FindingKind::kScratchTooSmall) {
    Fail("a scratch one byte short is not the one kScratchTooSmall finding");
  }
}

}  // namespace detail

/// The properties above on `bytes` (fuzz_runtime_check.cc).
inline void CheckRuntimeCheck(std::span<const uint8_t> bytes) {
  rc::Report automatic = rc::CheckProgram(bytes.data(), bytes.size(), rc::CheckOptions{});
  detail::CheckReport(automatic, "CheckProgram (automatic)");
  if (!automatic.readable()) return;
  detail::CheckCoreScratch(bytes, automatic);

  rc::CheckOptions named;
  for (const rc::SharedBuffer& shared : automatic.shared) named.shared_names.push_back(shared.name);
  named.shared_names.push_back("fuzz.not_in_the_program");
  if (!automatic.methods.empty()) {
    const uint32_t index = !bytes.empty() ? bytes.back() : 0;
    named.extra_names.push_back({automatic.methods.front().name, index, "fuzz.named"});
    named.shared_names.push_back("fuzz.named");
  }
  detail::CheckReport(rc::CheckProgram(bytes.data(), bytes.size(), named), "CheckProgram (names)");

  const std::vector<rc::MethodBinding> bindings = detail::SharedBindings(automatic);
  detail::CheckReport(rc::CheckBindings(bytes.data(), bytes.size(), rc::CheckOptions{}, bindings),
                      "CheckBindings");
  detail::CheckReport(rc::CheckBindings(bytes.data(), bytes.size(), named, bindings),
                      "CheckBindings (names)");

  // The same bytes one byte off 8-byte alignment must be refused, not read.
  if (bytes.size() > 1) {
    std::vector<uint8_t> shifted(bytes.size() + 1);
    std::copy(bytes.begin(), bytes.end(), shifted.begin() + 1);
    rc::Report misaligned = rc::CheckProgram(shifted.data() + 1, bytes.size(), rc::CheckOptions{});
    detail::CheckReport(misaligned, "CheckProgram (misaligned)");
  }
}

}  // namespace pteshare::fuzz

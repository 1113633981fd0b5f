// What a firmware loader adds before it loads the methods of a program that
// share state (a KV cache between prefill and decode): the check of
// check.h over the very spans it hands ExecuTorch's HierarchicalAllocator.
// No heap, no exceptions, the program read in place from flash; the README
// ("On a microcontroller") shows this file whole, and .ci/mcu-size builds
// it for a Cortex-M55 through add_subdirectory, as a firmware's build does.
//
// Where the arguments come from in an ExecuTorch loader:
//   pte, pte_size        the bytes Program::load read (a FileDataLoader or
//                        BufferDataLoader over flash); 8-byte aligned
//   method_names         program->get_method_name(i) for the methods it loads
//   planned, planned_count
//                        the Span<uint8_t>s of the HierarchicalAllocator
//                        (planned[i] serves memory_id i + 1), sized from
//                        MethodMeta::memory_planned_buffer_size(i) of the
//                        method that needs most
#include <stddef.h>
#include <stdint.h>

#include "runtime_check/check.h"

namespace core = pteshare::runtime_check::core;
using pteshare::runtime_check::ArenaBuffer;
using pteshare::runtime_check::FindingKindName;
using pteshare::runtime_check::Severity;

// What the check may use; pteshare-selfcheck prints what a program needs
// ("N bytes of check scratch") and core::ScratchBytes computes it. Too small
// is a finding (kScratchTooSmall), never an overflow.
#ifndef FIRMWARE_CHECK_SCRATCH_BYTES
#define FIRMWARE_CHECK_SCRATCH_BYTES (24 * 1024)
#endif
alignas(8) static uint8_t g_check_scratch[FIRMWARE_CHECK_SCRATCH_BYTES];

// The firmware's own log (ET_LOG in an ExecuTorch application).
extern "C" void firmware_log(const char* format, ...);

namespace {

constexpr size_t kMaxMethods = 8;

// Logs each finding as it is found: nothing is kept.
class LogFindings final : public core::Sink {
 public:
  void OnFinding(const core::Finding& f) override {
    firmware_log("pteshare %s %s: method %.*s value %ld buffer %.*s expected %llu actual %llu",
                 f.severity == Severity::kError ? "error" : "warning", FindingKindName(f.kind),
                 static_cast<int>(f.method.size), f.method.data, static_cast<long>(f.value_index),
                 static_cast<int>(f.name.size), f.name.data,
                 static_cast<unsigned long long>(f.expected),
                 static_cast<unsigned long long>(f.actual));
  }
};

}  // namespace

// True when every shared buffer lands on one address in every method bound
// to `planned` and nothing else touches it: the methods may then be loaded
// with one MemoryManager over these spans. False: do not share (load each
// method with memory of its own), and the log says why.
extern "C" bool firmware_shared_state_is_sound(const void* pte, size_t pte_size,
                                               const char* const* method_names, size_t method_count,
                                               const ArenaBuffer* planned, size_t planned_count) {
  if (method_count > kMaxMethods) return false;
  core::MethodBinding bindings[kMaxMethods];
  for (size_t m = 0; m < method_count; ++m) {
    bindings[m] = core::MethodBinding{core::Text(method_names[m]), planned, planned_count};
  }
  LogFindings log;
  const core::Result result =
      core::CheckBindings(pte, pte_size, core::Options{}, bindings, method_count,
                          core::Scratch{g_check_scratch, sizeof g_check_scratch}, log);
  return result.ok();
}

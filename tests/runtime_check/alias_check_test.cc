// runtime_check's alias checker: each defect a shared-state program can
// have gives exactly its finding, with the numbers; clean programs pass;
// hostile bytes give findings, never a crash.
#include "runtime_check/alias_check.h"

#include <gtest/gtest.h>

#include <algorithm>

#include <cstring>
#include <string>
#include <vector>

#include "program_generated.h"
#include "tests/test_support.h"
#include "tools/synth/operators.h"
#include "tools/synth/program_builder.h"
#include "tools/synth/spec_helpers.h"

namespace pteshare::runtime_check {
namespace {

namespace b = pteshare::synth;

constexpr char kKCache[] = "layers.0.k_cache";
constexpr char kVCache[] = "layers.0.v_cache";

// A float32 tensor of `floats` elements at a fixed place.
b::Tensor At(int32_t floats, b::MemoryId memory_id, uint64_t offset,
             std::optional<std::string> name = std::nullopt) {
  return b::PlacedFloats(floats, memory_id, offset, std::move(name));
}

// prefill and decode share a KV cache at the front of arena 1 (k at 0,
// v at 2048, 1024 bytes each, gaps so a shifted buffer hits nothing);
// activations from 4096. `score` has no cache but uses arena 1.
// Value 0 = k_cache, 1 = v_cache, 2 and 3 activations in every method
// that has caches.
struct KvProgram {
  b::ProgramSpec spec;
  b::MethodSpec& prefill() { return spec.methods[0]; }
  b::MethodSpec& decode() { return spec.methods[1]; }
  b::MethodSpec& score() { return spec.methods[2]; }
  b::Tensor& decode_k() { return std::get<b::Tensor>(decode().values[0]); }
  b::Tensor& prefill_k() { return std::get<b::Tensor>(prefill().values[0]); }

  KvProgram() {
    for (const char* name : {"prefill", "decode"}) {
      b::MethodSpec& m = spec.methods.emplace_back();
      m.name = name;
      m.Add(At(256, 1, 0, kKCache));
      m.Add(At(256, 1, 2048, kVCache));
      b::ValueIndex x = m.Add(At(16, 1, 4096));
      b::ValueIndex y = m.Add(At(16, 1, 4160));
      b::CallOut(m, b::ops::kRelu, {x}, y);
      m.inputs = {x};
      m.outputs = {y};
    }
    b::MethodSpec& m = spec.methods.emplace_back();
    m.name = "score";
    b::ValueIndex x = m.Add(At(16, 1, 4096));
    b::ValueIndex y = m.Add(At(16, 1, 4160));
    b::CallOut(m, b::ops::kRelu, {x}, y);
    m.inputs = {x};
    m.outputs = {y};
  }

  std::vector<uint8_t> Build(const b::BuildOptions& options = {}) const {
    Result<std::vector<uint8_t>> bytes = b::BuildProgram(spec, options);
    EXPECT_TRUE(bytes.ok()) << bytes.error().message;
    return bytes.ok() ? std::move(bytes).value() : std::vector<uint8_t>{};
  }
};

Report Check(const std::vector<uint8_t>& bytes, std::vector<std::string> names = {}) {
  CheckOptions options;
  options.shared_names = std::move(names);
  return CheckProgram(bytes.data(), bytes.size(), options);
}

std::string Describe(const Report& report) {
  std::string text = report.Summary() + "\n";
  for (const Finding& f : report.findings) {
    text += std::string(FindingKindName(f.kind)) + ": " + f.message + "\n";
  }
  return text;
}

// The one finding of `report`, which must have exactly one.
Finding OnlyFinding(const Report& report) {
  EXPECT_EQ(report.findings.size(), 1u) << Describe(report);
  return report.findings.empty() ? Finding{} : report.findings.front();
}

// Writable access to a built program's tables, for defects the builder
// refuses to write (memory_id 0, a negative arena size).
const fb::Tensor* TensorIn(std::vector<uint8_t>& bytes, int method, int value) {
  const fb::Program* program = fb::GetProgram(bytes.data());
  return program->execution_plan()->Get(method)->values()->Get(value)->val_as_Tensor();
}

template <typename T>
void SetField(const void* table, flatbuffers::voffset_t field, T value) {
  auto* writable = reinterpret_cast<flatbuffers::Table*>(const_cast<void*>(table));
  ASSERT_TRUE(writable->SetField<T>(field, value, T{})) << "field not present in the table";
}

// ---- Clean programs -----------------------------------------------------------

TEST(AliasCheck, CleanProgramPassesWithEveryBufferSharedAutomatically) {
  KvProgram kv;
  Report report = Check(kv.Build());
  EXPECT_TRUE(report.ok()) << Describe(report);
  EXPECT_TRUE(report.findings.empty()) << Describe(report);
  ASSERT_EQ(report.shared.size(), 2u);
  EXPECT_EQ(report.shared[0].name, kKCache);
  EXPECT_EQ(report.shared[0].placement.memory_id, 1u);
  EXPECT_EQ(report.shared[0].placement.offset, 0u);
  EXPECT_EQ(report.shared[0].placement.nbytes, 1024u);
  EXPECT_EQ(report.shared[0].methods, (std::vector<std::string>{"prefill", "decode"}));
  EXPECT_EQ(report.shared[1].placement.offset, 2048u);
  ASSERT_EQ(report.methods.size(), 3u);
  EXPECT_EQ(report.methods[0].arena_sizes, (std::vector<uint64_t>{4224}));
  EXPECT_EQ(report.Summary(), "ok: 2 shared buffers across 3 methods");
}

TEST(AliasCheck, CleanProgramPassesWithNamedBuffersAndWithoutExtendedHeader) {
  KvProgram kv;
  b::BuildOptions legacy;
  legacy.extended_header = false;
  Report report = Check(kv.Build(legacy), {kVCache});
  EXPECT_TRUE(report.ok()) << Describe(report);
  ASSERT_EQ(report.shared.size(), 1u);
  EXPECT_EQ(report.shared[0].name, kVCache);
}

TEST(AliasCheck, AliasInsideSharedBufferIsAllowed) {
  KvProgram kv;
  // A static view of the cache (no instruction writes it) in a method that
  // has the cache.
  kv.decode().Add(At(128, 1, 512));
  Report report = Check(kv.Build());
  EXPECT_TRUE(report.ok()) << Describe(report);
}

TEST(AliasCheck, TensorInsideTheSlotOfAMethodWithoutTheBufferOverlapsIt) {
  KvProgram kv;
  // score has no k cache, so nothing of it can be an alias: with one set of
  // arenas its tensor would overwrite prefill's and decode's cache.
  kv.score().Add(At(256, 1, 0));
  Report report = Check(kv.Build());
  ASSERT_EQ(report.error_count(), 1u) << Describe(report);
  EXPECT_EQ(report.findings[0].kind, FindingKind::kOverlap);
  EXPECT_EQ(report.findings[0].method, "score");
}

TEST(AliasCheck, DynamicUnboundTensorIsNotPlanned) {
  KvProgram kv;
  // The runtime allocates it itself, whatever allocation_info says.
  b::Tensor unbound = At(16, 1, 1000);
  unbound.shape_dynamism = fb::TensorShapeDynamism::DYNAMIC_UNBOUND;
  kv.score().Add(unbound);
  // A dynamic-bound one is planned at its upper bound: 64 bytes inside k.
  b::Tensor bound = At(16, 1, 64);
  bound.shape_dynamism = fb::TensorShapeDynamism::DYNAMIC_BOUND;
  kv.score().Add(bound);
  Report report = Check(kv.Build());
  // Planned: it is judged (score lacks k, so it overlaps k's slot); the
  // unbound one is not.
  ASSERT_EQ(report.error_count(), 1u) << Describe(report);
  EXPECT_EQ(report.findings[0].kind, FindingKind::kOverlap);
  EXPECT_EQ(report.findings[0].value_index, 3);
  EXPECT_EQ(report.methods[2].planned_tensors, 3u);
}

TEST(AliasCheck, SingleMethodBufferIsNotSharedAutomatically) {
  KvProgram kv;
  kv.score().Add(At(16, 1, 8192, "only.in.score"));
  Report report = Check(kv.Build());
  EXPECT_TRUE(report.ok()) << Describe(report);
  EXPECT_EQ(report.shared.size(), 2u);
}

// ---- Each defect, exactly its finding -------------------------------------------

TEST(AliasCheck, SharedBufferOneAlignmentStepOffInOneMethod) {
  KvProgram kv;
  kv.decode_k().memory = b::FixedPlacement{1, 16};
  Finding f = OnlyFinding(Check(kv.Build()));
  EXPECT_EQ(f.kind, FindingKind::kOffsetMismatch);
  EXPECT_EQ(f.severity, Severity::kError);
  EXPECT_EQ(f.method, "decode");
  EXPECT_EQ(f.value_index, 0);
  EXPECT_EQ(f.name, kKCache);
  EXPECT_EQ(f.expected, 0u);
  EXPECT_EQ(f.actual, 16u);
  EXPECT_EQ(f.reference_method, "prefill");
  EXPECT_EQ(f.message,
            "method decode, value 0 (layers.0.k_cache): at offset 16 in arena 1, but at offset 0 "
            "in method prefill (value 0)");
}

TEST(AliasCheck, SharedBufferWithADifferentSize) {
  KvProgram kv;
  kv.decode_k().sizes = {128};
  Finding f = OnlyFinding(Check(kv.Build()));
  EXPECT_EQ(f.kind, FindingKind::kSizeMismatch);
  EXPECT_EQ(f.method, "decode");
  EXPECT_EQ(f.expected, 1024u);
  EXPECT_EQ(f.actual, 512u);
  EXPECT_EQ(f.placement.nbytes, 512u);
  EXPECT_EQ(f.reference.nbytes, 1024u);
}

// Issue 23: one name of the same byte size but another type or dim order
// in another method passed as shared.
TEST(AliasCheck, SharedBufferWithTheSameSizeButAnotherTypeOrDimOrder) {
  KvProgram as_int;
  as_int.decode_k().scalar_type = b::ScalarType::INT;
  Finding f = OnlyFinding(Check(as_int.Build()));
  EXPECT_EQ(f.kind, FindingKind::kShapeMismatch);
  EXPECT_EQ(f.method, "decode");
  EXPECT_EQ(f.message,
            "method decode, value 0 (layers.0.k_cache): scalar type 3 [256] dim order 0, but "
            "scalar type 6 [256] dim order 0 in method prefill (value 0) (one buffer, read as "
            "other numbers)");
  KvProgram transposed;
  transposed.prefill_k().sizes = transposed.decode_k().sizes = {16, 16};
  transposed.decode_k().dim_order = {1, 0};
  EXPECT_EQ(OnlyFinding(Check(transposed.Build())).kind, FindingKind::kShapeMismatch);
}

// Issue 23: arena 1 on CUDA in two methods and on the CPU in a third that
// uses it: the caches in it were reported shared.
TEST(AliasCheck, AnArenaOnAnotherDeviceInAnotherMethod) {
  KvProgram kv;
  kv.prefill().arena_devices = {b::ArenaDevice{1, b::DeviceType::CUDA, 0}};
  kv.decode().arena_devices = kv.prefill().arena_devices;
  Report report = Check(kv.Build());
  Finding f = OnlyFinding(report);
  EXPECT_EQ(f.kind, FindingKind::kDeviceMismatch);
  EXPECT_EQ(f.method, "score");
  EXPECT_EQ(f.placement.memory_id, 1u);
  EXPECT_EQ(f.expected, 1u << 8);
  EXPECT_EQ(f.actual, 0u);
  EXPECT_EQ(f.message,
            "method score: arena 1 is on device type 0:0, but on device type 1:0 in method "
            "prefill, and shared buffer layers.0.k_cache is in it (one arena cannot be one memory "
            "on two devices)");
}

// Issue 25: one memory_id on the CPU in one method and on a GPU in another,
// with no shared buffer in it: nothing is wrong in the program, but a
// loader that binds one buffer per memory_id cannot serve both (a warning).
TEST(AliasCheck, AnArenaOnTwoDevicesThatSharesNothingIsAWarning) {
  KvProgram kv;
  kv.score().arena_devices = {b::ArenaDevice{1, b::DeviceType::CUDA, 0}};
  for (b::MethodSpec* m : {&kv.prefill(), &kv.decode()}) {
    for (b::Value& v : m->values) {
      if (auto* t = std::get_if<b::Tensor>(&v)) t->fully_qualified_name.reset();
    }
  }
  const Report report = Check(kv.Build());
  const Finding f = OnlyFinding(report);
  EXPECT_EQ(f.kind, FindingKind::kArenaOnTwoDevices);
  EXPECT_EQ(f.severity, Severity::kWarning);
  EXPECT_TRUE(report.ok()) << "a warning";
  EXPECT_EQ(f.method, "score");
  EXPECT_EQ(f.placement.memory_id, 1u);
  EXPECT_EQ(f.message,
            "method score: arena 1 is on device type 1:0, but on device type 0:0 in method "
            "prefill: a loader that binds one buffer per memory_id to every method cannot serve "
            "both");
}

// Issue 25: an occurrence of a shared buffer in another arena, on another
// device: both the arena and the device are findings.
TEST(AliasCheck, AnOccurrenceInAnArenaOnAnotherDevice) {
  KvProgram kv;
  kv.decode_k() = At(256, 2, 0, kKCache);
  kv.decode().arena_devices = {b::ArenaDevice{2, b::DeviceType::CUDA, 0}};
  const Report report = Check(kv.Build(), {kKCache});
  std::vector<FindingKind> kinds;
  for (const Finding& f : report.findings) kinds.push_back(f.kind);
  EXPECT_EQ(kinds,
            (std::vector<FindingKind>{FindingKind::kArenaMismatch, FindingKind::kDeviceMismatch}))
      << Describe(report);
}

// Issue 25: the caches in a state arena of their own on a device (what
// `rewrite --layout arena` gives a program with device arenas) are checked
// like any arena: clean when every method puts it on that device, a device
// mismatch when one does not.
TEST(AliasCheck, AStateArenaOnADeviceIsCheckedLikeAnyArena) {
  KvProgram kv;
  for (b::MethodSpec* m : {&kv.prefill(), &kv.decode()}) {
    std::get<b::Tensor>(m->values[0]) = At(256, 2, 0, kKCache);
    std::get<b::Tensor>(m->values[1]) = At(256, 2, 1024, kVCache);
    m->arena_devices = {b::ArenaDevice{2, b::DeviceType::CUDA, 0}};
  }
  const Report clean = Check(kv.Build());
  EXPECT_TRUE(clean.findings.empty()) << Describe(clean);
  EXPECT_EQ(clean.shared.size(), 2u);

  kv.decode().arena_devices.clear();  // decode's arena 2 on the CPU
  const Report split = Check(kv.Build());
  const Finding f = OnlyFinding(split);
  EXPECT_EQ(f.kind, FindingKind::kDeviceMismatch);
  EXPECT_EQ(f.method, "decode");
  EXPECT_EQ(f.placement.memory_id, 2u);
}

// Issue 23: the checker read only the tables it needs, so a file corrupt
// elsewhere (here an operator name without its NUL terminator) was "ok" to
// the self-check while verify refused it; 155 of 564 corpus mutations that
// verify refused were. Every table the schema reaches is walked now.
TEST(AliasCheck, AFlatbufferCorruptWhereTheCheckerNeedsNothingIsNoProgram) {
  KvProgram kv;
  std::vector<uint8_t> bytes = kv.Build();
  const std::string name = "aten::relu";
  auto at = std::search(bytes.begin(), bytes.end(), name.begin(), name.end());
  ASSERT_NE(at, bytes.end());
  ASSERT_EQ(*(at + static_cast<ptrdiff_t>(name.size())), 0) << "the terminator";
  *(at + static_cast<ptrdiff_t>(name.size())) = 'x';
  const Report report = Check(bytes);
  EXPECT_FALSE(report.readable()) << Describe(report);
  ASSERT_FALSE(report.findings.empty());
  EXPECT_EQ(report.findings[0].kind, FindingKind::kNotAProgram);
  EXPECT_NE(report.findings[0].message.find("is not NUL-terminated"), std::string::npos)
      << report.findings[0].message;
}

TEST(AliasCheck, SharedBufferInDifferentArenas) {
  KvProgram kv;
  kv.decode_k().memory = b::FixedPlacement{2, 0};
  Finding f = OnlyFinding(Check(kv.Build()));
  EXPECT_EQ(f.kind, FindingKind::kArenaMismatch);
  EXPECT_EQ(f.method, "decode");
  EXPECT_EQ(f.expected, 1u);
  EXPECT_EQ(f.actual, 2u);
}

TEST(AliasCheck, ActivationOverlapsFrontRegionOfMethodWithoutTheBuffer) {
  KvProgram kv;
  b::ValueIndex intruder = kv.score().Add(At(16, 1, 1000));  // [1000, 1064) crosses k's end
  Finding f = OnlyFinding(Check(kv.Build()));
  EXPECT_EQ(f.kind, FindingKind::kOverlap);
  EXPECT_EQ(f.method, "score");
  EXPECT_EQ(f.value_index, intruder);
  EXPECT_EQ(f.name, kKCache);
  EXPECT_EQ(f.placement.offset, 1000u);
  EXPECT_EQ(f.placement.nbytes, 64u);
  EXPECT_EQ(f.reference.offset, 0u);
  EXPECT_EQ(f.reference.nbytes, 1024u);
  EXPECT_EQ(f.reference_method, "prefill");
}

TEST(AliasCheck, ActivationOverlapsSharedBufferInMethodThatHasIt) {
  KvProgram kv;
  kv.decode().Add(At(32, 1, 2000));  // [2000, 2128) crosses v's start
  Finding f = OnlyFinding(Check(kv.Build()));
  EXPECT_EQ(f.kind, FindingKind::kOverlap);
  EXPECT_EQ(f.method, "decode");
  EXPECT_EQ(f.name, kVCache);
  EXPECT_EQ(f.reference_method, "decode");
}

TEST(AliasCheck, TensorPastItsArenaEnd) {
  KvProgram kv;
  kv.decode().non_const_buffer_sizes = std::vector<int64_t>{0, 4200};  // y ends at 4224
  Finding f = OnlyFinding(Check(kv.Build()));
  EXPECT_EQ(f.kind, FindingKind::kPastArenaEnd);
  EXPECT_EQ(f.method, "decode");
  EXPECT_EQ(f.value_index, 3);
  EXPECT_EQ(f.expected, 4200u);
  EXPECT_EQ(f.actual, 4224u);
  EXPECT_EQ(f.message, "method decode, value 3: offset 4160 + 64 bytes > arena 1 size 4200");
}

TEST(AliasCheck, SharedBufferPastItsArenaEndNamesTheBuffer) {
  KvProgram kv;
  kv.decode_k().memory = b::FixedPlacement{1, 491520};
  kv.decode_k().sizes = {8192};  // 32768 bytes
  kv.decode().non_const_buffer_sizes = std::vector<int64_t>{0, 500000};
  Report report = Check(kv.Build(), {kKCache});
  ASSERT_FALSE(report.ok());
  bool found = false;
  for (const Finding& f : report.findings) {
    if (f.kind != FindingKind::kPastArenaEnd) continue;
    found = true;
    EXPECT_EQ(f.message,
              "method decode, value 0 (layers.0.k_cache): offset 491520 + 32768 bytes > arena 1 "
              "size 500000");
  }
  EXPECT_TRUE(found) << Describe(report);
}

TEST(AliasCheck, SharedNameFoundInNoMethodIsAnError) {
  KvProgram kv;
  Finding f = OnlyFinding(Check(kv.Build(), {kKCache, "no.such.buffer"}));
  EXPECT_EQ(f.kind, FindingKind::kSharedNameNotFound);
  EXPECT_EQ(f.name, "no.such.buffer");
}

TEST(AliasCheck, ValueNamingSharesUnnamedBuffers) {
  KvProgram kv;
  // Unnamed state at the same place in both methods, named by position.
  kv.prefill().Add(At(16, 1, 8192));
  kv.decode().Add(At(16, 1, 8192));
  CheckOptions options;
  options.shared_names = {"state"};
  options.extra_names = {{"prefill", 4, "state"}, {"decode", 4, "state"}};
  std::vector<uint8_t> bytes = kv.Build();
  Report report = CheckProgram(bytes.data(), bytes.size(), options);
  EXPECT_TRUE(report.ok()) << Describe(report);
  ASSERT_EQ(report.shared.size(), 1u);
  EXPECT_EQ(report.shared[0].placement.offset, 8192u);

  options.extra_names = {{"prefill", 4, "state"}, {"decode", 2, "state"}};
  Finding f = OnlyFinding(CheckProgram(bytes.data(), bytes.size(), options));
  EXPECT_EQ(f.kind, FindingKind::kOffsetMismatch);
  EXPECT_EQ(f.expected, 8192u);
  EXPECT_EQ(f.actual, 4096u);
}

TEST(AliasCheck, ValueNamingToNoPlannedTensorIsAnError) {
  KvProgram kv;
  CheckOptions options;
  options.extra_names = {{"decode", 99, "x"}};
  std::vector<uint8_t> bytes = kv.Build();
  Finding f = OnlyFinding(CheckProgram(bytes.data(), bytes.size(), options));
  EXPECT_EQ(f.kind, FindingKind::kInvalidValueNaming);
  EXPECT_EQ(f.expected, 4u);
  EXPECT_EQ(f.actual, 99u);
}

// ---- Warnings -------------------------------------------------------------------

TEST(AliasCheck, InitialStateInSeveralMethodsIsAWarning) {
  KvProgram kv;
  std::get<b::Tensor>(kv.prefill().values[0]).initial_state = std::vector<uint8_t>(1024, 1);
  kv.decode_k().initial_state = std::vector<uint8_t>(1024, 1);
  Report report = Check(kv.Build());
  EXPECT_TRUE(report.ok()) << Describe(report);
  Finding f = OnlyFinding(report);
  EXPECT_EQ(f.kind, FindingKind::kInitialStateInSeveralMethods);
  EXPECT_EQ(f.severity, Severity::kWarning);
  EXPECT_EQ(f.actual, 2u);
  EXPECT_EQ(report.shared[0].methods_with_initial_state,
            (std::vector<std::string>{"prefill", "decode"}));
}

TEST(AliasCheck, SharedBufferAboveArenaTwoIsAWarning) {
  KvProgram kv;
  std::get<b::Tensor>(kv.prefill().values[0]).memory = b::FixedPlacement{3, 0};
  kv.decode_k().memory = b::FixedPlacement{3, 0};
  Report report = Check(kv.Build());
  EXPECT_TRUE(report.ok()) << Describe(report);
  Finding f = OnlyFinding(report);
  EXPECT_EQ(f.kind, FindingKind::kArenaNotSharedByModule);
  EXPECT_EQ(f.actual, 3u);
}

// ---- Bindings: the load-time check ------------------------------------------------

struct Arenas {
  std::vector<uint8_t> arena1 = std::vector<uint8_t>(8192);
  std::vector<ArenaBuffer> spans() { return {{arena1.data(), arena1.size()}}; }
};

TEST(AliasCheck, SameMemoryForEveryMethodPasses) {
  KvProgram kv;
  std::vector<uint8_t> bytes = kv.Build();
  Arenas shared;
  std::vector<MethodBinding> bindings = {
      {"prefill", shared.spans()}, {"decode", shared.spans()}, {"score", shared.spans()}};
  Report report = CheckBindings(bytes.data(), bytes.size(), {}, bindings);
  EXPECT_TRUE(report.ok()) << Describe(report);
}

TEST(AliasCheck, DifferentMemoryForOneMethodIsCaught) {
  KvProgram kv;
  std::vector<uint8_t> bytes = kv.Build();
  Arenas shared, other;
  std::vector<MethodBinding> bindings = {{"prefill", shared.spans()}, {"decode", other.spans()}};
  CheckOptions options;
  options.shared_names = {kKCache};
  Finding f = OnlyFinding(CheckBindings(bytes.data(), bytes.size(), options, bindings));
  EXPECT_EQ(f.kind, FindingKind::kAddressMismatch);
  EXPECT_EQ(f.method, "decode");
  EXPECT_EQ(f.reference_method, "prefill");
  EXPECT_EQ(f.expected, reinterpret_cast<uintptr_t>(shared.arena1.data()));
  EXPECT_EQ(f.actual, reinterpret_cast<uintptr_t>(other.arena1.data()));
}

TEST(AliasCheck, MethodWithoutBufferBoundOverSharedBytesIsCaught) {
  KvProgram kv;
  std::vector<uint8_t> bytes = kv.Build();
  // prefill's arena 1 starts at byte 4096 of `memory`, so its v_cache is
  // [6144, 7168). score's arena starts at 3040: its x (offset 4096, 64
  // bytes) is [7136, 7200), across v_cache's end. The offsets alone are
  // fine; only the addresses show it.
  std::vector<uint8_t> memory(16384);
  std::vector<MethodBinding> bindings = {{"prefill", {{memory.data() + 4096, 8192}}},
                                         {"score", {{memory.data() + 3040, 4224}}}};
  CheckOptions options;
  options.shared_names = {kVCache};
  Finding f = OnlyFinding(CheckBindings(bytes.data(), bytes.size(), options, bindings));
  EXPECT_EQ(f.kind, FindingKind::kOverlap);
  EXPECT_EQ(f.method, "score");
  EXPECT_EQ(f.value_index, 0);
  EXPECT_EQ(f.name, kVCache);
}

TEST(AliasCheck, ShiftedBufferBoundToSameMemoryIsOneAddressFinding) {
  KvProgram kv;
  kv.decode_k().memory = b::FixedPlacement{1, 16};
  std::vector<uint8_t> bytes = kv.Build();
  Arenas shared;
  std::vector<MethodBinding> bindings = {{"prefill", shared.spans()}, {"decode", shared.spans()}};
  // The address replaces the offset comparison: one finding, not two.
  Finding f = OnlyFinding(CheckBindings(bytes.data(), bytes.size(), {}, bindings));
  EXPECT_EQ(f.kind, FindingKind::kAddressMismatch);
  EXPECT_EQ(f.actual - f.expected, 16u);
  EXPECT_EQ(f.placement.offset, 16u);
  EXPECT_EQ(f.reference.offset, 0u);
}

TEST(AliasCheck, BindingTooSmallIsCaught) {
  KvProgram kv;
  std::vector<uint8_t> bytes = kv.Build();
  Arenas shared;
  std::vector<MethodBinding> bindings = {{"prefill", shared.spans()},
                                         {"decode", {{shared.arena1.data(), 4000}}}};
  Finding f = OnlyFinding(CheckBindings(bytes.data(), bytes.size(), {}, bindings));
  EXPECT_EQ(f.kind, FindingKind::kBindingTooSmall);
  EXPECT_EQ(f.method, "decode");
  EXPECT_EQ(f.placement.memory_id, 1u);
  EXPECT_EQ(f.expected, 4224u);
  EXPECT_EQ(f.actual, 4000u);
  EXPECT_EQ(f.message,
            "method decode: arena 1 is bound to a buffer of 4000 bytes, the method needs 4224");
}

TEST(AliasCheck, MissingArenaAndUnknownMethodAreCaught) {
  KvProgram kv;
  std::vector<uint8_t> bytes = kv.Build();
  Arenas shared;
  std::vector<MethodBinding> bindings = {
      {"prefill", shared.spans()}, {"decode", {}}, {"no_such_method", shared.spans()}};
  Report report = CheckBindings(bytes.data(), bytes.size(), {}, bindings);
  ASSERT_EQ(report.findings.size(), 2u) << Describe(report);
  EXPECT_EQ(report.findings[0].kind, FindingKind::kUnknownMethod);
  EXPECT_EQ(report.findings[1].kind, FindingKind::kArenaNotBound);
  EXPECT_EQ(report.findings[1].method, "decode");
}

// ---- Numbers the loader would refuse ------------------------------------------------

TEST(AliasCheck, UnknownScalarTypeAndNegativeDimensionAreFindings) {
  KvProgram kv;
  b::Tensor odd = At(16, 1, 8192);
  odd.scalar_type = static_cast<fb::ScalarType>(99);
  kv.score().Add(odd);
  b::Tensor negative = At(16, 1, 8192);
  negative.sizes = {4, -1};
  kv.score().Add(negative);
  Report report = Check(kv.Build());
  ASSERT_EQ(report.findings.size(), 2u) << Describe(report);
  EXPECT_EQ(report.findings[0].kind, FindingKind::kInvalidTensor);
  EXPECT_EQ(report.findings[0].message,
            "method score, value 2: scalar type 99 is not one the runtime knows");
  EXPECT_EQ(report.findings[1].kind, FindingKind::kInvalidTensor);
  EXPECT_EQ(report.findings[1].message,
            "method score, value 3: dimension 1 of sizes [4, -1] is negative");
}

TEST(AliasCheck, SizesProductOverflowIsAFinding) {
  KvProgram kv;
  b::Tensor huge = At(16, 1, 8192);
  huge.sizes = {65536, 65536, 65536, 65536};
  kv.score().Add(huge);
  Finding f = OnlyFinding(Check(kv.Build()));
  EXPECT_EQ(f.kind, FindingKind::kInvalidTensor);
  EXPECT_NE(f.message.find("overflows 64 bits"), std::string::npos) << f.message;
}

TEST(AliasCheck, MemoryIdZeroAndPastTheArenaListAreFindings) {
  KvProgram kv;
  kv.score().Add(At(16, 9, 0));
  kv.score().non_const_buffer_sizes = std::vector<int64_t>{0, 4224};
  std::vector<uint8_t> bytes = kv.Build();
  SetField<uint32_t>(TensorIn(bytes, 1, 2)->allocation_info(), fb::AllocationDetails::VT_MEMORY_ID,
                     0);
  Report report = Check(bytes);
  ASSERT_EQ(report.findings.size(), 2u) << Describe(report);
  EXPECT_EQ(report.findings[0].kind, FindingKind::kInvalidMemoryId);
  EXPECT_EQ(report.findings[0].method, "decode");
  EXPECT_EQ(report.findings[0].actual, 0u);
  EXPECT_EQ(report.findings[1].kind, FindingKind::kInvalidMemoryId);
  EXPECT_EQ(report.findings[1].method, "score");
  EXPECT_EQ(report.findings[1].expected, 1u);
  EXPECT_EQ(report.findings[1].actual, 9u);
}

TEST(AliasCheck, OffsetHighWordAndNegativeArenaSizeAreChecked) {
  KvProgram kv;
  b::BuildOptions all_fields;
  all_fields.force_defaults = true;  // memory_offset_high present, patchable
  std::vector<uint8_t> bytes = kv.Build(all_fields);
  SetField<uint32_t>(TensorIn(bytes, 2, 0)->allocation_info(),
                     fb::AllocationDetails::VT_MEMORY_OFFSET_HIGH, 0xffffffffu);
  const fb::Program* program = fb::GetProgram(bytes.data());
  auto* sizes = const_cast<flatbuffers::Vector<int64_t>*>(
      program->execution_plan()->Get(1)->non_const_buffer_sizes());
  sizes->Mutate(1, -5);
  Report report = Check(bytes);
  ASSERT_EQ(report.findings.size(), 2u) << Describe(report);
  EXPECT_EQ(report.findings[0].kind, FindingKind::kInvalidArenaSize);
  EXPECT_EQ(report.findings[0].message, "method decode: arena 1 size -5 is negative");
  EXPECT_EQ(report.findings[1].kind, FindingKind::kPastArenaEnd);
  EXPECT_EQ(report.findings[1].placement.offset, 0xffffffffull << 32 | 4096);
}

// ---- Hostile bytes ----------------------------------------------------------------

TEST(AliasCheck, NotAProgramGivesOneFinding) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"", "the buffer is empty"},
      {"abc", "the buffer is 3 bytes, too small"},
      {std::string("PK\x03\x04....rest", 12), "ZIP archive"},
      {std::string("\x10\0\0\0BP08", 8) + std::string(64, '\0'),
       "bundled program: it holds no program bytes"},
      {std::string("\x10\0\0\0ET12eh00", 12) + std::string(64, '\0'), "extended header length 0"},
      // Root offset past the end.
      {std::string("\xf0\0\0\0ET12", 8) + std::string(64, '\0'), "fails FlatBuffers verification"},
  };
  for (const auto& [bytes, expected] : cases) {
    std::vector<uint8_t> aligned(bytes.begin(), bytes.end());
    Report report = Check(aligned);
    ASSERT_EQ(report.findings.size(), 1u) << expected;
    EXPECT_EQ(report.findings[0].kind, FindingKind::kNotAProgram);
    EXPECT_FALSE(report.readable());
    EXPECT_FALSE(report.ok());
    EXPECT_NE(report.findings[0].message.find(expected), std::string::npos)
        << report.findings[0].message;
  }
}

TEST(AliasCheck, ProgramSizeBeyondTheBufferIsRefused) {
  KvProgram kv;
  std::vector<uint8_t> bytes = kv.Build();
  uint64_t too_big = bytes.size() + 1;
  std::memcpy(bytes.data() + 16, &too_big, 8);
  Finding f = OnlyFinding(Check(bytes));
  EXPECT_EQ(f.kind, FindingKind::kNotAProgram);
  EXPECT_NE(f.message.find("is larger than the buffer"), std::string::npos) << f.message;
}

TEST(AliasCheck, UnalignedBufferIsRefusedNotRead) {
  KvProgram kv;
  std::vector<uint8_t> bytes = kv.Build();
  std::vector<uint8_t> shifted(bytes.size() + 1);
  std::memcpy(shifted.data() + 1, bytes.data(), bytes.size());
  Report report = CheckProgram(shifted.data() + 1, bytes.size(), {});
  EXPECT_FALSE(report.readable());
}

// Every prefix and many single-byte corruptions of a real-looking program:
// findings or a pass, never a crash (run under the sanitizer build too).
TEST(AliasCheck, TruncatedAndCorruptedProgramsNeverCrash) {
  KvProgram kv;
  std::get<b::Tensor>(kv.prefill().values[0]).initial_state = std::vector<uint8_t>(1024, 7);
  std::vector<uint8_t> bytes = kv.Build();
  Arenas arenas;
  std::vector<MethodBinding> bindings = {{"prefill", arenas.spans()}, {"decode", arenas.spans()}};
  for (size_t length = 0; length < bytes.size(); length += 1 + length / 64) {
    std::vector<uint8_t> prefix(bytes.begin(), bytes.begin() + static_cast<long>(length));
    (void)CheckBindings(prefix.data(), prefix.size(), {}, bindings);
  }
  uint64_t state = 0x9e3779b97f4a7c15ull;
  for (int round = 0; round < 3000; ++round) {
    std::vector<uint8_t> corrupt = bytes;
    for (int flips = 0; flips < 1 + round % 4; ++flips) {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      corrupt[(state >> 33) % corrupt.size()] ^= static_cast<uint8_t>(1u << ((state >> 20) & 7));
    }
    Report report = CheckBindings(corrupt.data(), corrupt.size(), {}, bindings);
    EXPECT_FALSE(report.Summary().empty());
  }
}

TEST(AliasCheck, EveryCorpusFileRunsThroughTheChecker) {
  std::vector<std::filesystem::path> files = test_support::CorpusFiles();
  if (files.empty()) GTEST_SKIP() << "../shared/corpus is absent: no real programs to check";
  size_t readable = 0;
  for (const auto& path : files) {
    std::string text = test_support::ReadFileBytes(path);
    std::vector<uint8_t> bytes(text.begin(), text.end());
    Report report = Check(bytes);
    ASSERT_FALSE(report.Summary().empty());
    if (!report.readable()) {
      // Not a program (ZIPs, an older format): one clear finding. Bundled
      // programs are read: the checker finds the program inside.
      ASSERT_EQ(report.findings.size(), 1u) << path;
      EXPECT_EQ(report.findings[0].kind, FindingKind::kNotAProgram) << path;
      continue;
    }
    ++readable;
    // No real file shares state across methods, and every placement fits.
    EXPECT_TRUE(report.ok()) << path << "\n" << Describe(report);
  }
  EXPECT_GT(readable, 90u);
}

}  // namespace
}  // namespace pteshare::runtime_check

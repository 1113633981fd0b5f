// Lifetimes and alias groups on small hand-made programs: every rule of
// lifetimes.h with its exact ranges and groups. Tensors are hand-placed
// (FixedPlacement) so a test decides which bytes they share.
#include "rewriter/plan/lifetimes.h"

#include <gtest/gtest.h>

#include "rewriter/open_program.h"
#include "rewriter/plan/planner.h"
#include "rewriter/verify/plan_verifier.h"
#include "tests/plan_options.h"
#include "tests/program_fixture.h"
#include "tests/test_support.h"
#include "tools/synth/operators.h"
#include "tools/synth/spec_helpers.h"

namespace pteshare {
namespace {

using synth::AliasOf;
using synth::CallOut;
using synth::FixedPlacement;
using synth::MethodSpec;
using synth::ProgramSpec;
using synth::Tensor;
using synth::ValueIndex;
namespace ops = synth::ops;

/// A float32 tensor of `floats` elements at `offset` of arena `memory_id`.
ValueIndex At(MethodSpec& m, uint64_t offset, int32_t floats = 4, uint32_t memory_id = 1) {
  return m.Add(Tensor{.sizes = {floats}, .memory = FixedPlacement{memory_id, offset}});
}

struct Built {
  std::unique_ptr<test_support::LoadedProgram> program;
  MethodLifetimes lifetimes;
};

Built Compute(const MethodSpec& method, const std::vector<uint32_t>& always_live = {}) {
  ProgramSpec spec;
  spec.methods.push_back(method);
  Built built{test_support::Load(spec), {}};
  if (built.program) {
    built.lifetimes = ComputeLifetimes(built.program->view.methods[0], always_live);
  }
  return built;
}

LiveRange Range(int64_t first, int64_t last) { return LiveRange{first, last}; }

bool SameGroup(const MethodLifetimes& l, ValueIndex a, ValueIndex b) {
  return l.group_of[a] >= 0 && l.group_of[a] == l.group_of[b];
}

TEST(Lifetimes, KernelCallArgsGiveFirstAndLastUse) {
  MethodSpec m;
  m.name = "forward";
  ValueIndex a = At(m, 0), b = At(m, 16), c = At(m, 32), d = At(m, 48), e = At(m, 64);
  CallOut(m, ops::kAdd, {a, b}, c);  // 0
  CallOut(m, ops::kRelu, {c}, d);    // 1
  CallOut(m, ops::kMul, {d, a}, e);  // 2
  m.inputs = {a, b};
  m.outputs = {e};
  Built built = Compute(m);
  ASSERT_TRUE(built.program);
  const MethodLifetimes& l = built.lifetimes;
  EXPECT_EQ(l.instruction_count, 3);
  EXPECT_EQ(l.live[a], Range(0, 2));
  EXPECT_EQ(l.live[b], Range(0, 0));
  EXPECT_EQ(l.live[c], Range(0, 1));
  EXPECT_EQ(l.live[d], Range(1, 2));
  EXPECT_EQ(l.live[e], Range(2, 2));
  EXPECT_EQ(l.groups.size(), 5u);  // disjoint bytes: one group each
  // Busiest instruction: 0 and 2 hold three 16-byte tensors each.
  EXPECT_EQ(l.lower_bound, (std::vector<uint64_t>{48}));
}

TEST(Lifetimes, InputsLiveFromTheStartOutputsToTheEnd) {
  MethodSpec m;
  m.name = "forward";
  ValueIndex u = At(m, 0), x = At(m, 16), t = At(m, 32), y = At(m, 48), z = At(m, 64);
  CallOut(m, ops::kRelu, {u}, t);    // 0
  CallOut(m, ops::kAdd, {t, x}, y);  // 1: x first used here
  CallOut(m, ops::kRelu, {t}, z);    // 2
  m.inputs = {u, x};
  m.outputs = {y};  // written at 1, read by the caller after the last instruction
  Built built = Compute(m);
  ASSERT_TRUE(built.program);
  const MethodLifetimes& l = built.lifetimes;
  EXPECT_EQ(l.live[u], Range(0, 0));
  EXPECT_EQ(l.live[x], Range(0, 1));
  EXPECT_EQ(l.live[t], Range(0, 2));
  EXPECT_EQ(l.live[y], Range(1, 2));
  EXPECT_EQ(l.live[z], Range(2, 2));
}

TEST(Lifetimes, RepeatedTailIsWrittenSoSamePlacementLaterIsNotAView) {
  MethodSpec m;
  m.name = "forward";
  ValueIndex x = At(m, 256), y = At(m, 272), z = At(m, 288);
  ValueIndex old_value = At(m, 0);
  ValueIndex reuse = At(m, 0);             // same bytes, written by its first call
  CallOut(m, ops::kRelu, {x}, old_value);  // 0
  CallOut(m, ops::kRelu, {old_value}, y);  // 1
  CallOut(m, ops::kRelu, {y}, reuse);      // 2: args [y, reuse, reuse]
  CallOut(m, ops::kRelu, {reuse}, z);      // 3
  m.inputs = {x};
  m.outputs = {z};
  Built built = Compute(m);
  ASSERT_TRUE(built.program);
  const MethodLifetimes& l = built.lifetimes;
  EXPECT_EQ(l.live[old_value], Range(0, 1));
  EXPECT_EQ(l.live[reuse], Range(2, 3));
  EXPECT_FALSE(SameGroup(l, old_value, reuse));
}

TEST(Lifetimes, WithoutARepeatedTailTheFirstUseIsARead) {
  // args [y, reuse]: nothing repeats, so nothing says the call writes
  // `reuse`: it is taken for a view of the earlier value at its bytes.
  MethodSpec m;
  m.name = "forward";
  ValueIndex x = At(m, 256), y = At(m, 272), z = At(m, 288);
  ValueIndex old_value = At(m, 0);
  ValueIndex reuse = At(m, 0);
  CallOut(m, ops::kRelu, {x}, old_value);  // 0
  CallOut(m, ops::kRelu, {old_value}, y);  // 1
  m.Call(ops::kRelu, {y, reuse});          // 2
  CallOut(m, ops::kRelu, {reuse}, z);      // 3
  m.inputs = {x};
  m.outputs = {z};
  Built built = Compute(m);
  ASSERT_TRUE(built.program);
  const MethodLifetimes& l = built.lifetimes;
  EXPECT_TRUE(SameGroup(l, old_value, reuse));
  EXPECT_EQ(l.groups[l.group_of[reuse]].live, Range(0, 3));
}

TEST(Lifetimes, TwoReturnValuesAreBothWritten) {
  MethodSpec m;
  m.name = "forward";
  ValueIndex x = At(m, 256);
  ValueIndex a = At(m, 0), b = At(m, 16);
  ValueIndex a2 = At(m, 0), b2 = At(m, 16);  // reuse a's and b's bytes later
  m.Call(ops::kAdd, {x, a, b, a, b});        // 0: returns (a, b)
  m.Call(ops::kAdd, {a, b, x});              // 1
  m.Call(ops::kAdd, {x, a2, b2, a2, b2});    // 2: returns (a2, b2)
  m.inputs = {x};
  m.outputs = {a2, b2};
  Built built = Compute(m);
  ASSERT_TRUE(built.program);
  const MethodLifetimes& l = built.lifetimes;
  EXPECT_FALSE(SameGroup(l, a, a2));
  EXPECT_FALSE(SameGroup(l, b, b2));
  EXPECT_EQ(l.live[a2], Range(2, 2));
}

TEST(Lifetimes, ListItemsAndDelegateArgsAreReferences) {
  MethodSpec m;
  m.name = "forward";
  ValueIndex x = At(m, 0), a = At(m, 16), b = At(m, 32), c = At(m, 48, 8), d = At(m, 80),
             e = At(m, 96);
  ValueIndex list = m.Add(synth::TensorList{{a, b}});
  ValueIndex optional = m.Add(synth::OptionalTensorList{{d, synth::AddNull(m)}});
  m.delegates.push_back(synth::Delegate{"Backend", {1}, {}});
  CallOut(m, ops::kRelu, {x}, a);                         // 0
  CallOut(m, ops::kRelu, {x}, b);                         // 1
  CallOut(m, ops::kCat, {list, synth::AddInt(m, 0)}, c);  // 2: reads a and b
  CallOut(m, ops::kRelu, {c}, d);                         // 3
  m.Emit(synth::DelegateCall{0, {optional, e}});          // 4: reads d, writes e
  CallOut(m, ops::kRelu, {e}, x);                         // 5
  m.inputs = {x};
  Built built = Compute(m);
  ASSERT_TRUE(built.program);
  const MethodLifetimes& l = built.lifetimes;
  EXPECT_EQ(l.live[a], Range(0, 2));
  EXPECT_EQ(l.live[b], Range(1, 2));
  EXPECT_EQ(l.live[c], Range(2, 3));
  EXPECT_EQ(l.live[d], Range(3, 4));
  EXPECT_EQ(l.live[e], Range(4, 5));
  EXPECT_EQ(l.live[x], Range(0, 5));
}

TEST(Lifetimes, MoveCallPutsDestinationInTheSourcesGroup) {
  MethodSpec m;
  m.name = "forward";
  ValueIndex x = At(m, 0), acc = At(m, 16), y = At(m, 48);
  ValueIndex moved = m.Add(Tensor{.sizes = {4}, .memory = AliasOf{acc, 0}});
  ValueIndex elsewhere = At(m, 64);           // a destination with its own bytes
  CallOut(m, ops::kRelu, {x}, acc);           // 0
  m.Emit(synth::MoveCall{acc, moved});        // 1
  m.Emit(synth::MoveCall{moved, elsewhere});  // 2
  CallOut(m, ops::kRelu, {elsewhere}, y);     // 3
  m.inputs = {x};
  m.outputs = {y};
  Built built = Compute(m);
  ASSERT_TRUE(built.program);
  const MethodLifetimes& l = built.lifetimes;
  EXPECT_TRUE(SameGroup(l, acc, moved));
  EXPECT_TRUE(SameGroup(l, acc, elsewhere));
  // The source's bytes must last as long as any value moved from it is used.
  EXPECT_EQ(l.live[acc], Range(0, 3));
  EXPECT_EQ(l.live[elsewhere], Range(0, 3));
  const AliasGroup& g = l.groups[l.group_of[acc]];
  EXPECT_EQ(g.members,
            (std::vector<uint32_t>{static_cast<uint32_t>(acc), static_cast<uint32_t>(moved),
                                   static_cast<uint32_t>(elsewhere)}));
  EXPECT_EQ(g.offset, 16u);
  EXPECT_EQ(g.end, 80u);
}

TEST(Lifetimes, BackwardJumpKeepsTheLoopBodyLiveAcrossTheLoop) {
  MethodSpec m;
  m.name = "loop";
  ValueIndex x = At(m, 0), a = At(m, 16), c = At(m, 32), d = At(m, 48), e = At(m, 64);
  ValueIndex done = synth::AddBool(m, false);
  CallOut(m, ops::kRelu, {x}, a);         // 0
  CallOut(m, ops::kAdd, {a, a}, c);       // 1 <- loop start
  CallOut(m, ops::kRelu, {c}, d);         // 2
  m.Emit(synth::JumpFalseCall{done, 1});  // 3 -> back to 1
  CallOut(m, ops::kRelu, {d}, e);         // 4
  m.inputs = {x};
  m.outputs = {e};
  Built built = Compute(m);
  ASSERT_TRUE(built.program);
  const MethodLifetimes& l = built.lifetimes;
  EXPECT_EQ(l.live[x], Range(0, 0));
  EXPECT_EQ(l.live[a], Range(0, 3));  // read on every iteration
  EXPECT_EQ(l.live[c], Range(1, 3));
  EXPECT_EQ(l.live[d], Range(1, 4));
  EXPECT_EQ(l.live[e], Range(4, 4));
}

TEST(Lifetimes, StaticViewJoinsTheLatestEarlierValueWithItsPlacement) {
  MethodSpec m;
  m.name = "forward";
  ValueIndex x = At(m, 256), y = At(m, 272), w = At(m, 288), s = At(m, 304);
  ValueIndex base = At(m, 0, 16);
  ValueIndex view = At(m, 0, 16);      // same placement and size, no instruction links them
  ValueIndex slice = At(m, 16, 4);     // a view at an offset into the base
  CallOut(m, ops::kRelu, {x}, base);   // 0
  CallOut(m, ops::kRelu, {x}, y);      // 1
  CallOut(m, ops::kRelu, {y}, x);      // 2
  CallOut(m, ops::kRelu, {view}, w);   // 3: first use of the view reads it
  CallOut(m, ops::kRelu, {slice}, s);  // 4
  m.inputs = {x};
  m.outputs = {w, s};
  Built built = Compute(m);
  ASSERT_TRUE(built.program);
  const MethodLifetimes& l = built.lifetimes;
  EXPECT_EQ(l.live[base], Range(0, 0));
  EXPECT_EQ(l.live[view], Range(3, 3));
  EXPECT_TRUE(SameGroup(l, base, view));
  EXPECT_TRUE(SameGroup(l, base, slice));
  const AliasGroup& g = l.groups[l.group_of[base]];
  EXPECT_EQ(g.live, Range(0, 4));  // the base's bytes stay until the views are read
  EXPECT_EQ(g.offset, 0u);
  EXPECT_EQ(g.end, 64u);
}

// Issue 23: a view whose first use reads and writes it (an in-place op,
// add.out(view, y, out=view)) was planned as a fresh tensor, so replan
// moved it off its base and the op read other bytes.
TEST(Lifetimes, AStaticViewFirstUsedInPlaceIsReadSoItStaysWithItsBase) {
  MethodSpec m;
  m.name = "forward";
  ValueIndex x = At(m, 256), y = At(m, 272), w = At(m, 288);
  ValueIndex base = At(m, 0, 4);
  ValueIndex view = At(m, 0, 4);           // the base's placement; nothing links them
  CallOut(m, ops::kRelu, {x}, base);       // 0: the base is written
  CallOut(m, ops::kRelu, {base}, y);       // 1: its last use
  CallOut(m, ops::kAdd, {view, y}, view);  // 2: in place: reads and writes the view
  CallOut(m, ops::kRelu, {view}, w);       // 3
  m.inputs = {x};
  m.outputs = {w};
  Built built = Compute(m);
  ASSERT_TRUE(built.program);
  const MethodLifetimes& l = built.lifetimes;
  EXPECT_TRUE(SameGroup(l, base, view));
  EXPECT_EQ(l.groups[l.group_of[view]].live, Range(0, 3));
}

TEST(Lifetimes, StaticViewJoinsTheValueItReadsNotALaterTenantOfItsBytes) {
  // `reuse` has a lower index than the view but takes the bytes only after
  // the view's last read: the view belongs with `base`.
  MethodSpec m;
  m.name = "forward";
  ValueIndex x = At(m, 256), w = At(m, 272), z = At(m, 288);
  ValueIndex base = At(m, 0);
  ValueIndex reuse = At(m, 0);
  ValueIndex view = At(m, 0);
  CallOut(m, ops::kRelu, {x}, base);   // 0
  CallOut(m, ops::kRelu, {x}, w);      // 1
  CallOut(m, ops::kRelu, {view}, w);   // 2: reads the view of base
  CallOut(m, ops::kRelu, {w}, reuse);  // 3
  CallOut(m, ops::kRelu, {reuse}, z);  // 4
  m.inputs = {x};
  m.outputs = {z};
  Built built = Compute(m);
  ASSERT_TRUE(built.program);
  const MethodLifetimes& l = built.lifetimes;
  EXPECT_TRUE(SameGroup(l, base, view));
  EXPECT_FALSE(SameGroup(l, reuse, view));
  EXPECT_EQ(l.groups[l.group_of[base]].live, Range(0, 2));
}

TEST(Lifetimes, OutputThatIsAStaticViewKeepsItsBaseLiveToTheEnd) {
  // No instruction references the view; the caller reads it after the last
  // instruction, so its base's bytes must last until then.
  MethodSpec m;
  m.name = "forward";
  ValueIndex x = At(m, 0), a = At(m, 16), c = At(m, 32), d = At(m, 48);
  ValueIndex view = At(m, 16);
  CallOut(m, ops::kRelu, {x}, a);    // 0
  CallOut(m, ops::kMul, {a, a}, c);  // 1
  CallOut(m, ops::kRelu, {c}, d);    // 2
  m.inputs = {x};
  m.outputs = {d, view};
  Built built = Compute(m);
  ASSERT_TRUE(built.program);
  const MethodLifetimes& l = built.lifetimes;
  EXPECT_EQ(l.live[a], Range(0, 1));
  EXPECT_EQ(l.live[view], Range(2, 2));
  EXPECT_TRUE(SameGroup(l, a, view));
  EXPECT_EQ(l.groups[l.group_of[a]].live, Range(0, 2));
}

TEST(Lifetimes, InPlaceResultOverlappingItsLiveBaseJoinsIt) {
  MethodSpec m;
  m.name = "forward";
  ValueIndex x = At(m, 256), y = At(m, 272), z = At(m, 288);
  ValueIndex a = At(m, 0);
  ValueIndex b = m.Add(Tensor{.sizes = {4}, .memory = AliasOf{a, 0}});  // in place of a
  ValueIndex c = At(m, 0);              // reuses the bytes once a and b are dead
  ValueIndex half = At(m, 8, 2);        // overlaps c's bytes while c lives
  CallOut(m, ops::kRelu, {x}, a);       // 0
  CallOut(m, ops::kAdd, {a, x}, b);     // 1: reads a, writes b over it
  CallOut(m, ops::kRelu, {b}, y);       // 2
  CallOut(m, ops::kRelu, {y}, c);       // 3
  CallOut(m, ops::kRelu, {c}, half);    // 4
  CallOut(m, ops::kAdd, {c, half}, z);  // 5
  m.inputs = {x};
  m.outputs = {z};
  Built built = Compute(m);
  ASSERT_TRUE(built.program);
  const MethodLifetimes& l = built.lifetimes;
  EXPECT_EQ(l.live[a], Range(0, 1));
  EXPECT_EQ(l.live[b], Range(1, 2));
  EXPECT_TRUE(SameGroup(l, a, b));
  EXPECT_FALSE(SameGroup(l, a, c));
  EXPECT_TRUE(SameGroup(l, c, half));
  EXPECT_EQ(l.groups[l.group_of[a]].live, Range(0, 2));
  EXPECT_EQ(l.groups[l.group_of[c]].live, Range(3, 5));
}

TEST(Lifetimes, MutableBuffersSharedAndUnreferencedTensorsLiveAlways) {
  MethodSpec m;
  m.name = "forward";
  ValueIndex x = At(m, 256), y = At(m, 272), z = At(m, 288);
  ValueIndex cache = m.Add(Tensor{
      .sizes = {4}, .initial_state = std::vector<uint8_t>(16, 0), .memory = FixedPlacement{1, 0}});
  ValueIndex named =
      m.Add(Tensor{.sizes = {4}, .fully_qualified_name = "state", .memory = FixedPlacement{1, 16}});
  ValueIndex shared = At(m, 32);
  ValueIndex orphan = At(m, 48);
  CallOut(m, ops::kAdd, {x, cache}, y);       // 0
  CallOut(m, ops::kAdd, {y, named}, shared);  // 1
  CallOut(m, ops::kRelu, {shared}, z);        // 2
  CallOut(m, ops::kRelu, {z}, x);             // 3
  m.inputs = {x};
  Built built = Compute(m, {static_cast<uint32_t>(shared)});
  ASSERT_TRUE(built.program);
  const MethodLifetimes& l = built.lifetimes;
  EXPECT_EQ(l.live[cache], Range(0, 3));
  EXPECT_EQ(l.live[named], Range(0, 3));
  EXPECT_EQ(l.live[shared], Range(0, 3));
  EXPECT_EQ(l.live[orphan], Range(0, 3));
  EXPECT_EQ(l.live[y], Range(0, 1));
}

TEST(Lifetimes, ZeroByteTensorsAreNotPlanned) {
  MethodSpec m;
  m.name = "forward";
  ValueIndex x = At(m, 0), y = At(m, 16);
  ValueIndex empty = m.Add(Tensor{.sizes = {0, 4}, .memory = FixedPlacement{1, 0}});
  CallOut(m, ops::kAdd, {x, empty}, y);
  m.inputs = {x};
  m.outputs = {y};
  Built built = Compute(m);
  ASSERT_TRUE(built.program);
  const MethodLifetimes& l = built.lifetimes;
  EXPECT_EQ(l.group_of[empty], -1);
  EXPECT_FALSE(SameGroup(l, x, empty));
  EXPECT_EQ(l.groups.size(), 2u);
}

TEST(Lifetimes, ProgramWithoutInstructionsKeepsEveryTensorLive) {
  // FixedLayout programs have no instructions: nothing is ever free, so
  // tensors sharing bytes are one group.
  auto p = test_support::Load(
      std::vector<synth::FixedMethod>{{"m", {{64, 1, 0}, {32, 1, 32}, {16, 1, 128}}}});
  ASSERT_TRUE(p);
  MethodLifetimes l = ComputeLifetimes(p->view.methods[0]);
  EXPECT_EQ(l.instruction_count, 0);
  EXPECT_EQ(l.live[1], Range(0, 0));
  EXPECT_TRUE(SameGroup(l, 0, 1));
  EXPECT_FALSE(SameGroup(l, 0, 2));
  EXPECT_EQ(l.lower_bound, (std::vector<uint64_t>{80}));
}

TEST(Lifetimes, PeakLiveBytesOnlyOfTheArenasAskedFor) {
  // Arena 1: [0, 64) and [32, 64), 64 bytes; arena 2: [0, 16) and [16, 32).
  auto p = test_support::Load(
      std::vector<synth::FixedMethod>{{"m", {{64, 1, 0}, {32, 1, 32}, {16, 2, 0}, {16, 2, 16}}}});
  ASSERT_TRUE(p);
  const MethodView& method = p->view.methods[0];
  const MethodLifetimes l = ComputeLifetimes(method);
  EXPECT_EQ(l.lower_bound, (std::vector<uint64_t>{64, 32}));
  EXPECT_EQ(PeakLiveBytesPerArena(method, l), l.lower_bound);
  EXPECT_EQ(PeakLiveBytesPerArena(method, l, {}, {true, true}), l.lower_bound);
  // An arena not asked for is not swept: 0.
  EXPECT_EQ(PeakLiveBytesPerArena(method, l, {}, {false, true}), (std::vector<uint64_t>{0, 32}));
  EXPECT_EQ(PeakLiveBytesPerArena(method, l, {}, {true, false}), (std::vector<uint64_t>{64, 0}));
  // With a group left out as well.
  std::vector<bool> left_out(l.groups.size(), false);
  left_out[static_cast<size_t>(l.group_of[2])] = true;
  EXPECT_EQ(PeakLiveBytesPerArena(method, l, left_out, {false, true}),
            (std::vector<uint64_t>{0, 16}));
}

TEST(Lifetimes, DelegateOutputOnTheBytesOfAnInputThatDiesInTheCallIsBornAfterIt) {
  // The exporter plans a delegate's outputs as born after the call read its
  // inputs: y may sit on x's bytes. Not an in-place alias, and the bound
  // counts x and y at different moments.
  MethodSpec m;
  m.name = "forward";
  ValueIndex x = At(m, 0, 16), y = At(m, 32, 16);  // [0, 64) and [32, 96)
  m.delegates.push_back(synth::Delegate{"Backend", {1}, {}});
  m.Emit(synth::DelegateCall{0, {x, y}});  // 0: reads x, defines y
  m.inputs = {x};
  m.outputs = {y};
  Built built = Compute(m);
  ASSERT_TRUE(built.program);
  const MethodLifetimes& l = built.lifetimes;
  EXPECT_FALSE(SameGroup(l, x, y));
  EXPECT_EQ(l.moments[x], Range(0, 0));  // read at 2 * 0
  EXPECT_EQ(l.moments[y], Range(1, 1));  // written at 2 * 0 + 1
  EXPECT_EQ(l.lower_bound, (std::vector<uint64_t>{64}));
}

TEST(Lifetimes, DelegateArgWithItsDyingInputsPlacementStaysWithIt) {
  // Same bytes as x: y may be an output on x's bytes or a static view of x
  // handed to the delegate. Unsure, they stay one group (the plan keeps
  // them together), but the bound still counts their bytes once.
  MethodSpec m;
  m.name = "forward";
  ValueIndex x = At(m, 0, 16), y = At(m, 0, 16);
  m.delegates.push_back(synth::Delegate{"Backend", {1}, {}});
  m.Emit(synth::DelegateCall{0, {x, y}});
  m.inputs = {x};
  m.outputs = {y};
  Built built = Compute(m);
  ASSERT_TRUE(built.program);
  EXPECT_TRUE(SameGroup(built.lifetimes, x, y));
  EXPECT_EQ(built.lifetimes.lower_bound, (std::vector<uint64_t>{64}));
}

TEST(Lifetimes, NoCorpusArenaHasALowerBoundAboveItsOwnSize) {
  if (test_support::SharedDir().empty()) GTEST_SKIP() << "../shared/corpus is absent: skipped";
  size_t arenas = 0;
  for (const auto& path : test_support::CorpusFiles()) {
    Result<OpenedProgram> opened = OpenProgram(path);
    if (!opened.ok()) continue;
    for (const MethodView& method : opened->view.methods) {
      const MethodLifetimes l = ComputeLifetimes(method);
      for (const Arena& arena : method.arenas) {
        ++arenas;
        EXPECT_LE(l.lower_bound[arena.memory_id - 1], arena.size)
            << path.filename() << " method " << method.name << " arena " << arena.memory_id;
      }
    }
  }
  EXPECT_GT(arenas, test_support::CorpusManifestTotals().programs);
}

// F12 (issue 13): 32,000 values on one placement made every pair an
// in-place overlap (half a billion pairs, 4 GB, minutes). Values alike in
// bytes and life are joined first; the pairs stay few.
TEST(Lifetimes, ThirtyTwoThousandValuesOnOnePlacementAreOneGroupAtOnce) {
  std::vector<synth::FixedTensor> tensors(32000, synth::FixedTensor{64, 1, 0});
  tensors.push_back({64, 1, 64});
  auto p = test_support::Load(std::vector<synth::FixedMethod>{{"m", tensors}});
  ASSERT_TRUE(p);
  MethodLifetimes l = ComputeLifetimes(p->view.methods[0]);
  EXPECT_TRUE(l.too_complex.empty());
  EXPECT_EQ(l.groups.size(), 2u);
  EXPECT_EQ(l.groups[0].members.size(), 32000u);
  EXPECT_EQ(l.lower_bound, (std::vector<uint64_t>{128}));
  // And the plan and its verifier, which look at pairs of the output.
  ShareRequest none;
  none.allow_none = true;
  Result<PlanResult> input = MakePlan(p->view, none, WithStrategy(Strategy::kBest));
  ASSERT_TRUE(input.ok()) << input.error().message;
  EXPECT_TRUE(VerifyPlan(p->view, input->shared, input->plan).empty());
}

}  // namespace
}  // namespace pteshare

// ReadMethodEffects (instruction_effects_reader.h), the walker behind
// MethodView::effects, on small built programs: each of the exporter's
// conventions written down in instruction_effects.h (a KernelCall's
// repeated tail written, in-place inputs read, the values a DelegateCall
// defines, MoveCall, backward JumpFalseCalls, TensorList items, indices
// outside the value list ignored) gets its touches checked one by one, and
// every corpus program is walked. Lifetimes built on these are tested in
// lifetimes_test.cc.
#include "rewriter/program/instruction_effects_reader.h"

#include <gtest/gtest.h>

#include "rewriter/open_program.h"
#include "tests/program_fixture.h"
#include "tests/test_support.h"
#include "tools/synth/operators.h"
#include "tools/synth/spec_helpers.h"

namespace pteshare {
namespace {

using synth::CallOut;
using synth::FixedPlacement;
using synth::MethodSpec;
using synth::Tensor;
using synth::ValueIndex;
namespace ops = synth::ops;

/// A float32 tensor of 4 elements at `offset` of arena 1.
ValueIndex At(MethodSpec& m, uint64_t offset) {
  return m.Add(Tensor{.sizes = {4}, .memory = FixedPlacement{1, offset}});
}

// One instruction's touches as "value:r" / "value:w", in order.
std::vector<std::string> Touches(const MethodEffects& e, int64_t time) {
  std::vector<std::string> said;
  auto [first, last] = e.TouchesOf(time);
  for (const ValueTouch* t = first; t != last; ++t) {
    said.push_back(std::to_string(t->value) + (t->writes ? ":w" : ":r"));
  }
  return said;
}

using Said = std::vector<std::string>;

std::string T(ValueIndex v, bool writes) { return std::to_string(v) + (writes ? ":w" : ":r"); }

// Builds `method` as a one-method program, walks its plan with the reader
// (and checks MethodView::effects holds the same walk).
struct Walked {
  std::unique_ptr<test_support::LoadedProgram> program;
  MethodEffects effects;
};

Walked Walk(const MethodSpec& method) {
  synth::ProgramSpec spec;
  spec.methods.push_back(method);
  Walked walked{test_support::Load(spec), {}};
  if (!walked.program) return walked;
  const fb::Program* program = nullptr;
  EXPECT_TRUE(ReadPteLayout(walked.program->bytes, &program).ok());
  const MethodView& view = walked.program->view.methods[0];
  walked.effects = ReadMethodEffects(view, *program->execution_plan()->Get(0));
  EXPECT_EQ(walked.effects.touches.size(), view.effects.touches.size());
  EXPECT_EQ(walked.effects.instruction_count(), int64_t{view.instruction_count});
  return walked;
}

TEST(InstructionEffectsReader, AKernelCallWritesItsRepeatedTailAndReadsTheRest) {
  MethodSpec m;
  m.name = "forward";
  ValueIndex x = At(m, 0), y = At(m, 16), out = At(m, 32), a = At(m, 48), b = At(m, 64);
  CallOut(m, ops::kAdd, {x, y}, out);  // 0: [x, y, out, out]
  m.Call(ops::kAdd, {x, a, b, a, b});  // 1: returns (a, b)
  m.Call(ops::kRelu, {out, y});        // 2: nothing repeats: all read
  m.inputs = {x, y};
  Walked w = Walk(m);
  ASSERT_TRUE(w.program);
  ASSERT_EQ(w.effects.instruction_count(), 3);
  for (const InstructionEffect& e : w.effects.instructions)
    EXPECT_EQ(e.kind, InstructionKind::kKernel);
  EXPECT_EQ(Touches(w.effects, 0), (Said{T(x, 0), T(y, 0), T(out, 1), T(out, 1)}));
  EXPECT_EQ(Touches(w.effects, 1), (Said{T(x, 0), T(a, 1), T(b, 1), T(a, 1), T(b, 1)}));
  EXPECT_EQ(Touches(w.effects, 2), (Said{T(out, 0), T(y, 0)}));
}

TEST(InstructionEffectsReader, AnInPlaceValueIsReadAsAnInputAndWrittenInTheTail) {
  MethodSpec m;
  m.name = "forward";
  ValueIndex v = At(m, 0), y = At(m, 16);
  m.Call(ops::kAdd, {v, y, v, v});  // add.out(v, y, out=v)
  m.Call(ops::kRelu, {v, v, v});    // relu.out(v, out=v)
  m.inputs = {v, y};
  Walked w = Walk(m);
  ASSERT_TRUE(w.program);
  EXPECT_EQ(Touches(w.effects, 0), (Said{T(v, 0), T(y, 0), T(v, 1), T(v, 1)}));
  EXPECT_EQ(Touches(w.effects, 1), (Said{T(v, 0), T(v, 1), T(v, 1)}));
}

TEST(InstructionEffectsReader, ADelegateCallDefinesOnlyFreshPlannedValuesWithoutState) {
  MethodSpec m;
  m.name = "forward";
  m.delegates.push_back(synth::Delegate{"Backend", {1}, {}});
  ValueIndex in = At(m, 0);                                                     // a method input
  ValueIndex weight = synth::AddConstant(m, {4}, std::vector<uint8_t>(16, 1));  // not planned
  ValueIndex state = m.Add(Tensor{
      .sizes = {4}, .initial_state = std::vector<uint8_t>(16, 0), .memory = FixedPlacement{1, 16}});
  ValueIndex earlier = At(m, 32), fresh = At(m, 48), later = At(m, 64);
  CallOut(m, ops::kRelu, {in}, earlier);                                // 0
  m.Emit(synth::DelegateCall{0, {in, weight, state, earlier, fresh}});  // 1
  m.Emit(synth::DelegateCall{0, {fresh, later}});                       // 2
  m.inputs = {in};
  m.outputs = {later};
  Walked w = Walk(m);
  ASSERT_TRUE(w.program);
  EXPECT_EQ(w.effects.instructions[1].kind, InstructionKind::kDelegate);
  EXPECT_EQ(Touches(w.effects, 1),
            (Said{T(in, 0), T(weight, 0), T(state, 0), T(earlier, 0), T(fresh, 1)}));
  // `fresh` was referenced at 1: at 2 it is read; `later` is defined there.
  EXPECT_EQ(Touches(w.effects, 2), (Said{T(fresh, 0), T(later, 1)}));
  std::vector<int64_t> born(m.values.size(), -1);
  born[fresh] = 1;
  born[later] = 2;
  EXPECT_EQ(w.effects.born_at_delegate, born);
}

TEST(InstructionEffectsReader, EachCallNamesItsOperatorOrDelegateByIndex) {
  MethodSpec m;
  m.name = "forward";
  m.delegates.push_back(synth::Delegate{"FirstBackend", {1}, {}});
  m.delegates.push_back(synth::Delegate{"SecondBackend", {2}, {}});
  ValueIndex x = At(m, 0), a = At(m, 16), b = At(m, 32), c = At(m, 48), d = At(m, 64);
  ValueIndex moved = m.Add(Tensor{.sizes = {4}, .memory = synth::AliasOf{d, 0}});
  CallOut(m, ops::kRelu, {x}, a);          // 0: operator 0 (first use)
  CallOut(m, ops::kAdd, {a, x}, b);        // 1: operator 1
  CallOut(m, ops::kRelu, {b}, c);          // 2: operator 0 again
  m.Emit(synth::DelegateCall{1, {c, d}});  // 3: delegate 1
  m.Emit(synth::MoveCall{d, moved});       // 4: calls nothing
  m.inputs = {x};
  m.outputs = {moved};
  Walked w = Walk(m);
  ASSERT_TRUE(w.program);
  std::vector<int32_t> callees;
  for (const InstructionEffect& e : w.effects.instructions) callees.push_back(e.callee);
  EXPECT_EQ(callees, (std::vector<int32_t>{0, 1, 0, 1, -1}));
  // The view's operator table is the plan's, as a kernel is registered.
  const MethodView& view = w.program->view.methods[0];
  EXPECT_EQ(view.operators, (std::vector<std::string>{"aten::relu.out", "aten::add.out"}));
  EXPECT_EQ(view.delegate_ids[1], "SecondBackend");
}

TEST(InstructionEffectsReader, AMoveCallReadsItsSourceAndWritesItsDestination) {
  MethodSpec m;
  m.name = "forward";
  ValueIndex x = At(m, 0), acc = At(m, 16);
  ValueIndex moved = m.Add(Tensor{.sizes = {4}, .memory = synth::AliasOf{acc, 0}});
  CallOut(m, ops::kRelu, {x}, acc);     // 0
  m.Emit(synth::MoveCall{acc, moved});  // 1
  m.inputs = {x};
  m.outputs = {moved};
  Walked w = Walk(m);
  ASSERT_TRUE(w.program);
  EXPECT_EQ(w.effects.instructions[1].kind, InstructionKind::kMove);
  EXPECT_EQ(Touches(w.effects, 1), (Said{T(acc, 0), T(moved, 1)}));
  using Move = std::pair<uint32_t, uint32_t>;
  EXPECT_EQ(w.effects.moves, (std::vector<Move>{{acc, moved}}));
}

TEST(InstructionEffectsReader, OnlyABackwardJumpIsALoopAndJumpsAndFreesWriteNothing) {
  MethodSpec m;
  m.name = "loop";
  ValueIndex x = At(m, 0), a = At(m, 16), c = At(m, 32);
  ValueIndex done = synth::AddBool(m, false);
  CallOut(m, ops::kRelu, {x}, a);         // 0
  CallOut(m, ops::kAdd, {a, a}, c);       // 1 <- loop start
  m.Emit(synth::JumpFalseCall{done, 1});  // 2 -> back to 1
  m.Emit(synth::JumpFalseCall{done, 3});  // 3 -> itself: a loop too (destination <= jump)
  m.Emit(synth::JumpFalseCall{done, 5});  // 4 -> forward: no loop
  m.Emit(synth::FreeCall{a});             // 5
  m.inputs = {x};
  m.outputs = {c};
  Walked w = Walk(m);
  ASSERT_TRUE(w.program);
  ASSERT_EQ(w.effects.loops.size(), 2u);
  EXPECT_EQ(w.effects.loops[0].destination, 1);
  EXPECT_EQ(w.effects.loops[0].jump, 2);
  EXPECT_EQ(w.effects.loops[1].destination, 3);
  EXPECT_EQ(w.effects.loops[1].jump, 3);
  for (int64_t jump : {2, 3, 4}) {
    EXPECT_EQ(w.effects.instructions[jump].kind, InstructionKind::kJump);
    EXPECT_EQ(Touches(w.effects, jump), (Said{T(done, 0)}));
  }
  EXPECT_EQ(w.effects.instructions[5].kind, InstructionKind::kFree);
  EXPECT_EQ(Touches(w.effects, 5), (Said{T(a, 0)}));
}

TEST(InstructionEffectsReader, ListItemsAreTouchedWithTheirListsWriteFlag) {
  MethodSpec m;
  m.name = "forward";
  ValueIndex x = At(m, 0), a = At(m, 16), b = At(m, 32), c = At(m, 48), d = At(m, 64);
  ValueIndex in_list = m.Add(synth::TensorList{{a, b}});
  ValueIndex out_list = m.Add(synth::TensorList{{c, d}});
  ValueIndex null = synth::AddNull(m);
  ValueIndex optional = m.Add(synth::OptionalTensorList{{a, null}});
  ValueIndex y = At(m, 80);
  m.Call(ops::kCat, {x, out_list, out_list});  // 0: an out list: written item by item
  m.Call(ops::kCat, {in_list, y, y});          // 1
  m.Call(ops::kCat, {optional, y, y});         // 2
  m.inputs = {x, a, b};
  Walked w = Walk(m);
  ASSERT_TRUE(w.program);
  EXPECT_EQ(Touches(w.effects, 0),
            (Said{T(x, 0), T(out_list, 1), T(c, 1), T(d, 1), T(out_list, 1), T(c, 1), T(d, 1)}));
  EXPECT_EQ(Touches(w.effects, 1), (Said{T(in_list, 0), T(a, 0), T(b, 0), T(y, 1), T(y, 1)}));
  EXPECT_EQ(Touches(w.effects, 2), (Said{T(optional, 0), T(a, 0), T(null, 0), T(y, 1), T(y, 1)}));
}

TEST(InstructionEffectsReader, IndicesOutsideTheValueListAreIgnored) {
  MethodSpec m;
  m.name = "forward";
  m.delegates.push_back(synth::Delegate{"Backend", {1}, {}});
  ValueIndex x = At(m, 0), y = At(m, 16);
  const ValueIndex past = 1000, negative = -3;
  m.Call(ops::kAdd, {x, past, y, y});                // 0
  m.Emit(synth::MoveCall{x, past});                  // 1
  m.Emit(synth::MoveCall{negative, y});              // 2
  m.Emit(synth::JumpFalseCall{past, 0});             // 3: still a loop
  m.Emit(synth::FreeCall{negative});                 // 4
  m.Emit(synth::DelegateCall{0, {past, negative}});  // 5
  m.inputs = {x};
  m.outputs = {y};
  Walked w = Walk(m);
  ASSERT_TRUE(w.program);
  ASSERT_EQ(w.effects.instruction_count(), 6);
  EXPECT_EQ(Touches(w.effects, 0), (Said{T(x, 0), T(y, 1), T(y, 1)}));
  EXPECT_EQ(Touches(w.effects, 1), (Said{T(x, 0)}));
  EXPECT_EQ(Touches(w.effects, 2), (Said{T(y, 1)}));
  for (int64_t time : {3, 4, 5}) EXPECT_EQ(Touches(w.effects, time), Said{}) << time;
  EXPECT_TRUE(w.effects.moves.empty()) << "a move needs both indices valid";
  ASSERT_EQ(w.effects.loops.size(), 1u);
  EXPECT_EQ(w.effects.born_at_delegate.size(), m.values.size());
}

TEST(InstructionEffectsReader, EveryCorpusProgramWalksWithinItsValuesAndInstructions) {
  if (test_support::SharedDir().empty()) GTEST_SKIP() << "../shared/corpus is absent: skipped";
  size_t programs = 0;
  for (const test_support::ManifestRow& row : test_support::CorpusProgramRows()) {
    SCOPED_TRACE(row.file);
    Result<OpenedProgram> opened = OpenProgram(test_support::CorpusPath(row));
    ASSERT_TRUE(opened.ok()) << opened.error().message;
    ++programs;
    for (const MethodView& method : opened->view.methods) {
      const MethodEffects& e = method.effects;
      ASSERT_EQ(e.instruction_count(), int64_t{method.instruction_count}) << method.name;
      ASSERT_EQ(e.born_at_delegate.size(), method.value_count) << method.name;
      uint64_t touches = 0;
      for (const InstructionEffect& i : e.instructions) {
        EXPECT_EQ(i.first_touch, touches) << method.name;
        touches += i.touch_count;
      }
      EXPECT_EQ(touches, e.touches.size()) << method.name;
      for (const ValueTouch& t : e.touches) ASSERT_LT(t.value, method.value_count) << method.name;
      // Every kernel call of a real program names an entry of its
      // operator table, every delegate call one of its delegates.
      for (const InstructionEffect& i : e.instructions) {
        if (i.kind == InstructionKind::kKernel) {
          EXPECT_GE(i.callee, 0) << method.name;
          EXPECT_LT(static_cast<size_t>(i.callee), method.operators.size()) << method.name;
        } else if (i.kind == InstructionKind::kDelegate) {
          EXPECT_GE(i.callee, 0) << method.name;
          EXPECT_LT(static_cast<size_t>(i.callee), method.delegate_ids.size()) << method.name;
        } else {
          EXPECT_EQ(i.callee, -1) << method.name;
        }
      }
      for (const BackwardJump& loop : e.loops) {
        EXPECT_LE(loop.destination, loop.jump) << method.name;
        EXPECT_EQ(e.instructions[loop.jump].kind, InstructionKind::kJump) << method.name;
      }
      for (uint32_t v = 0; v < method.value_count; ++v) {
        const int64_t born = e.born_at_delegate[v];
        if (born < 0) continue;
        EXPECT_EQ(e.instructions[born].kind, InstructionKind::kDelegate) << method.name;
        const TensorValue* t = method.tensor(v);
        ASSERT_NE(t, nullptr) << method.name << " value " << v;
        EXPECT_TRUE(t->planned && !t->has_initial_state) << method.name << " value " << v;
      }
    }
  }
  EXPECT_EQ(programs, test_support::CorpusManifestTotals().programs);
}

}  // namespace
}  // namespace pteshare

// Choosing shared buffers: what --share, --share-auto and --name select, and
// every input error, each with its exact message.
#include "rewriter/share/shared_buffers.h"

#include <gtest/gtest.h>

#include "rewriter/plan/planner.h"
#include "tests/program_fixture.h"

namespace pteshare {
namespace {

using synth::FixedMethod;
using test_support::Load;

ShareRequest Share(std::vector<std::string> names) {
  ShareRequest r;
  r.names = std::move(names);
  return r;
}

std::string ChoiceError(const std::vector<FixedMethod>& methods, const ShareRequest& request) {
  auto p = Load(methods);
  Result<SharedBufferSet> set = ChooseSharedBuffers(p->view, request);
  EXPECT_FALSE(set.ok());
  return set.ok() ? "" : set.error().message;
}

// Each buffer's name, " private" after a private one's.
std::vector<std::string> Labels(const SharedBufferSet& set) {
  std::vector<std::string> labels;
  for (const SharedBuffer& b : set.buffers)
    labels.push_back(b.name + (b.private_state ? " private" : ""));
  return labels;
}

const std::vector<FixedMethod> kPrefillDecode = {
    {"prefill", {{64, 1, 0}, {64, 1, 64, "k", true}, {64, 1, 128, "only_prefill", true}}},
    {"decode", {{64, 1, 0, "k", true}, {16, 1, 64}}},
};

// Named buffers found in two or more methods, and then also the state only
// one method has (issue 23: private state of each method ended on the same
// bytes): it gets its own slot, which every other method keeps free.
TEST(SharedBuffers, ShareAutoTakesNamedBuffersFoundInTwoOrMoreMethodsAndThenPrivateState) {
  auto p = Load(kPrefillDecode);
  ShareRequest request;
  request.share_auto = true;
  Result<SharedBufferSet> set = ChooseSharedBuffers(p->view, request);
  ASSERT_TRUE(set.ok()) << set.error().message;
  ASSERT_EQ(set->buffers.size(), 2u);
  EXPECT_EQ(set->buffers[1].name, "only_prefill");
  EXPECT_TRUE(set->buffers[1].private_state);
  EXPECT_FALSE(set->buffers[0].private_state);
  EXPECT_TRUE(set->buffers[1].value_in_method[0].has_value());
  EXPECT_FALSE(set->buffers[1].value_in_method[1].has_value());
  const SharedBuffer& k = set->buffers[0];
  EXPECT_EQ(k.name, "k");
  EXPECT_EQ(k.memory_id, 1u);
  EXPECT_EQ(k.nbytes, 64u);
  EXPECT_EQ(k.value_in_method[0], 1u);
  EXPECT_EQ(k.value_in_method[1], 0u);
  EXPECT_EQ(k.methods_with_initial_state, (std::vector<std::string>{"prefill", "decode"}));
}

// Whichever way the shared buffers are chosen, every other mutable buffer
// of a method becomes its private state (issue 23: state left out of an
// explicit --share list, and unnamed state of one method, were planned over
// by the other method): labelled by name, NAME@METHOD where other methods
// have the name too, METHOD:VALUE when unnamed.
TEST(SharedBuffers, StateNoSharedBufferHoldsBecomesPrivateStateOfItsMethod) {
  auto p = Load({
      {"prefill", {{64, 1, 0, "k", true}, {64, 1, 64, "v", true}, {32, 1, 128, "", true}}},
      {"decode", {{64, 1, 0, "k", true}, {64, 1, 64, "v", true}, {16, 1, 128}}},
  });
  Result<SharedBufferSet> set = ChooseSharedBuffers(p->view, Share({"k"}));
  ASSERT_TRUE(set.ok()) << set.error().message;
  EXPECT_EQ(Labels(*set), (std::vector<std::string>{"k", "prefill:2 private", "v@decode private",
                                                    "v@prefill private"}));
  EXPECT_EQ(set->left_out, (std::vector<std::string>{"v"}));
  EXPECT_EQ(set->left_out_bytes, 128u);
  EXPECT_EQ(set->buffers[1].value_in_method[0], 2u);
  EXPECT_FALSE(set->buffers[1].value_in_method[1].has_value());
  EXPECT_EQ(set->buffers[2].value_in_method[1], 1u);
  EXPECT_FALSE(set->buffers[2].value_in_method[0].has_value());

  // --share-auto shares v too, and keeps the unnamed state of prefill (no
  // other method has unnamed state to pair it with) private.
  ShareRequest automatic;
  automatic.share_auto = true;
  set = ChooseSharedBuffers(p->view, automatic);
  ASSERT_TRUE(set.ok()) << set.error().message;
  EXPECT_EQ(Labels(*set), (std::vector<std::string>{"k", "v", "prefill:2 private"}));
  EXPECT_TRUE(set->left_out.empty());
}

// Nothing shared (a replan that only shrinks arenas): the methods need not
// run on one set of arenas, so nothing is private either.
TEST(SharedBuffers, WithNothingSharedNoStateIsMadePrivate) {
  auto p = Load(kPrefillDecode);
  ShareRequest none;
  none.allow_none = true;
  Result<SharedBufferSet> set = ChooseSharedBuffers(p->view, none);
  ASSERT_TRUE(set.ok()) << set.error().message;
  EXPECT_TRUE(set->buffers.empty());
}

TEST(SharedBuffers, ExplicitNamesMayBeInOneMethodOnly) {
  auto p = Load(kPrefillDecode);
  Result<SharedBufferSet> set = ChooseSharedBuffers(p->view, Share({"only_prefill", "k"}));
  ASSERT_TRUE(set.ok()) << set.error().message;
  ASSERT_EQ(set->buffers.size(), 2u);
  EXPECT_EQ(set->buffers[0].name, "k");  // sorted-name order
  EXPECT_FALSE(set->buffers[1].value_in_method[1].has_value());
}

TEST(SharedBuffers, NoBufferChosen) {
  EXPECT_EQ(ChoiceError(kPrefillDecode, ShareRequest{}),
            "no shared buffer chosen: give --share NAME..., or --share-auto");
}

TEST(SharedBuffers, ShareAutoWithStateInOneMethodHasNothingToShare) {
  ShareRequest request;
  request.share_auto = true;
  auto p = test_support::Load(std::vector<synth::FixedMethod>{{"m", {{64, 1, 0, "x", true}}}});
  ASSERT_TRUE(p);
  Result<SharedBufferSet> set = ChooseSharedBuffers(p->view, request);
  ASSERT_TRUE(set.ok()) << set.error().message;
  EXPECT_TRUE(set->buffers.empty());
  EXPECT_EQ(set->nothing_to_share, "only method m has mutable state");
}

TEST(SharedBuffers, ShareAutoWithStateInTwoMethodsThatSharesNothingIsAnError) {
  ShareRequest request;
  request.share_auto = true;
  EXPECT_EQ(ChoiceError({{"prefill", {{64, 1, 0, "a", true}}}, {"decode", {{64, 1, 0, "b", true}}}},
                        request),
            "--share-auto shares nothing, but methods prefill, decode have mutable state: no "
            "buffer name appears in two of them and their unnamed state does not pair; name the "
            "buffers to share with --name METHOD:VALUE_INDEX=NAME and --share NAME");
}

TEST(SharedBuffers, NameFoundInNoMethod) {
  EXPECT_EQ(ChoiceError(kPrefillDecode, Share({"layers.0.nope"})),
            "shared buffer 'layers.0.nope' is not the name of a tensor in any method");
}

TEST(SharedBuffers, NameThatIsNotAPlannedTensor) {
  synth::ProgramSpec spec = synth::FixedLayoutSpec(kPrefillDecode);
  auto& tensor = std::get<synth::Tensor>(spec.methods[1].values[0]);
  tensor.memory = synth::NotPlanned{};
  tensor.initial_state.reset();
  auto p = Load(spec);
  Result<SharedBufferSet> set = ChooseSharedBuffers(p->view, Share({"k"}));
  ASSERT_FALSE(set.ok());
  EXPECT_EQ(set.error().message,
            "shared buffer 'k' (method decode, value 0) is not a memory-planned tensor");
}

TEST(SharedBuffers, DifferentSizesInDifferentMethods) {
  EXPECT_EQ(ChoiceError({{"prefill", {{64, 1, 0, "k", true}}}, {"decode", {{32, 1, 0, "k", true}}}},
                        Share({"k"})),
            "shared buffer 'k' is 64 bytes in method prefill but 32 bytes in method decode");
}

TEST(SharedBuffers, DifferentArenasInDifferentMethods) {
  EXPECT_EQ(ChoiceError({{"prefill", {{64, 1, 0, "k", true}}},
                         {"decode", {{16, 1, 0}, {64, 2, 0, "k", true}}}},
                        Share({"k"})),
            "shared buffer 'k' is in arena 1 in method prefill but in arena 2 in method decode");
}

// Issue 23: named buffers were matched on byte size alone.
TEST(SharedBuffers, OneNameWithAnotherScalarTypeOrDimOrderIsRefusedNamingBoth) {
  synth::FixedTensor as_int{64, 1, 0, "k", true};
  as_int.scalar_type = synth::ScalarType::INT;
  EXPECT_EQ(ChoiceError({{"prefill", {{64, 1, 0, "k", true}}}, {"decode", {as_int}}}, Share({"k"})),
            "shared buffer 'k' is FLOAT[16] in method prefill but INT[16] in method decode: one "
            "buffer must have one scalar type, sizes and dim order");
  synth::FixedTensor square{64, 1, 0, "k", true}, transposed{64, 1, 0, "k", true};
  square.sizes = transposed.sizes = {4, 4};
  transposed.dim_order = {1, 0};
  ShareRequest automatic;
  automatic.share_auto = true;
  EXPECT_EQ(ChoiceError({{"prefill", {square}}, {"decode", {transposed}}}, automatic),
            "shared buffer 'k' is FLOAT[4,4] in method prefill but FLOAT[4,4] dim order 1,0 in "
            "method decode: one buffer must have one scalar type, sizes and dim order");
  synth::FixedTensor other_shape{64, 1, 0, "k", true};
  other_shape.sizes = {2, 8};
  EXPECT_EQ(ChoiceError({{"prefill", {square}}, {"decode", {other_shape}}}, Share({"k"})),
            "shared buffer 'k' is FLOAT[4,4] in method prefill but FLOAT[2,8] in method decode: "
            "one buffer must have one scalar type, sizes and dim order");
}

// Issue 23: arena 2 was CUDA in prefill and CPU in decode, and the default
// layout shared the caches in it.
TEST(SharedBuffers, AnArenaOnTwoDevicesIsRefusedBeforeAnythingInItIsShared) {
  std::vector<FixedMethod> methods = {
      {"prefill", {{16, 1, 0}, {64, 2, 0, "k", true}}},
      {"decode", {{16, 1, 0}, {64, 2, 0, "k", true}}},
  };
  methods[0].devices = {synth::ArenaDevice{2, synth::DeviceType::CUDA, 0}};
  ShareRequest automatic;
  automatic.share_auto = true;
  EXPECT_EQ(ChoiceError(methods, automatic),
            "arena 2 is on CUDA:0 in method prefill but on CPU:0 in method decode, and shared "
            "buffer 'k' is in it: one arena cannot be shared across two devices");
  methods[1].devices = methods[0].devices;
  auto p = Load(methods);
  EXPECT_TRUE(ChooseSharedBuffers(p->view, automatic).ok()) << "one device: fine";
}

// Private state in an arena that is on two devices needs no slot: that
// memory_id is no one memory, so the other method's tensors are elsewhere
// (and refusing would stop a rewrite that shares only other arenas).
TEST(SharedBuffers, PrivateStateInAnArenaOnTwoDevicesGetsNoSlot) {
  std::vector<FixedMethod> methods = {
      {"prefill", {{64, 1, 0, "k", true}, {64, 2, 0, "", true}}},
      {"decode", {{64, 1, 0, "k", true}, {64, 2, 0}}},
  };
  methods[0].devices = {synth::ArenaDevice{2, synth::DeviceType::CUDA, 0}};
  auto p = Load(methods);
  Result<SharedBufferSet> set = ChooseSharedBuffers(p->view, Share({"k"}));
  ASSERT_TRUE(set.ok()) << set.error().message;
  EXPECT_EQ(Labels(*set), (std::vector<std::string>{"k"}));
  methods[1].devices = methods[0].devices;  // one device: the state needs its slot
  p = Load(methods);
  set = ChooseSharedBuffers(p->view, Share({"k"}));
  ASSERT_TRUE(set.ok()) << set.error().message;
  EXPECT_EQ(Labels(*set), (std::vector<std::string>{"k", "prefill:1 private"}));
}

TEST(SharedBuffers, PartlyOverlappingSharedBuffers) {
  EXPECT_EQ(
      ChoiceError({{"m", {{64, 1, 0, "a", true}, {64, 1, 32, "b", true}}}}, Share({"a", "b"})),
      "method m: shared buffer 'a' [0, 64) and shared buffer 'b' [32, 96) in arena 1 overlap");
}

TEST(SharedBuffers, TensorStraddlingASharedBuffer) {
  EXPECT_EQ(ChoiceError({{"m", {{64, 1, 0, "k", true}, {64, 1, 48}}}}, Share({"k"})),
            "method m, value 1 [48, 112) straddles shared buffer 'k' [0, 64) in arena 1");
}

TEST(SharedBuffers, TensorContainingASharedBufferStraddlesIt) {
  EXPECT_EQ(ChoiceError({{"m", {{128, 1, 0}, {64, 1, 32, "k", true}}}}, Share({"k"})),
            "method m, value 0 [0, 128) straddles shared buffer 'k' [32, 96) in arena 1");
}

TEST(SharedBuffers, OneNameOnTwoPlacementsInOneMethod) {
  EXPECT_EQ(ChoiceError({{"m", {{64, 1, 0, "k", true}, {64, 1, 64, "k"}}}}, Share({"k"})),
            "shared buffer 'k' names two placements in method m: value 0 arena 1 [0, 64) and "
            "value 1 arena 1 [64, 128)");
}

TEST(SharedBuffers, NamingAMissingMethod) {
  ShareRequest request = Share({"s"});
  request.namings = {{"encode", 0, "s"}};
  EXPECT_EQ(ChoiceError(kPrefillDecode, request),
            "--name encode:0=s: the program has no method 'encode'");
}

TEST(SharedBuffers, NamingAValuePastTheMethodsValuesSaysHowManyItHas) {
  ShareRequest request = Share({"s"});
  request.namings = {{"decode", 7, "s"}};
  EXPECT_EQ(ChoiceError(kPrefillDecode, request),
            "--name decode:7=s: method decode has 2 values (0 to 1)");
}

TEST(SharedBuffers, RenamingANamedBufferIsRefused) {
  ShareRequest request = Share({"s"});
  request.namings = {{"decode", 0, "s"}};
  EXPECT_EQ(ChoiceError(kPrefillDecode, request),
            "--name: method decode, value 0 is already named 'k'");
}

TEST(SharedBuffers, PlacementPastItsArenaIsAnInputError) {
  auto p = Load(std::vector<FixedMethod>{{"m", {{64, 1, 0, "k", true}, {64, 1, 64}}, {100}}});
  Result<PlanResult> input = MakePlan(p->view, Share({"k"}), PlanOptions{});
  ASSERT_FALSE(input.ok());
  EXPECT_EQ(input.error().message, "method m, value 1: offset 64 + 64 bytes > arena 1 size 100");
}

}  // namespace
}  // namespace pteshare

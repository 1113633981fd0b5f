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

// State inside a shared buffer or inside state already made private goes
// with it; state at the same offsets in another arena is its own.
TEST(SharedBuffers, StateInsideSharedOrPrivateStateIsNoBufferOfItsOwn) {
  auto p = Load({
      {"prefill",
       {{64, 1, 0, "k", true},
        {16, 1, 16, "k.view"},     // a view inside k (named, no state of its own)
        {64, 1, 128, "", true},    // private
        {16, 1, 160, "p.view"},    // a view inside it
        {16, 2, 16, "", true},     // another arena: its own
        {16, 2, 160, "", true}}},  // and another
      {"decode", {{64, 1, 0, "k", true}}},
  });
  ASSERT_TRUE(p);
  Result<SharedBufferSet> set = ChooseSharedBuffers(p->view, Share({"k"}));
  ASSERT_TRUE(set.ok()) << set.error().message;
  EXPECT_EQ(Labels(*set), (std::vector<std::string>{"k", "prefill:2 private", "prefill:4 private",
                                                    "prefill:5 private"}));
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
            "--name decode:0=s: method decode, value 0 is already named 'k'");
}

TEST(SharedBuffers, PlacementPastItsArenaIsAnInputError) {
  auto p = Load(std::vector<FixedMethod>{{"m", {{64, 1, 0, "k", true}, {64, 1, 64}}, {100}}});
  Result<PlanResult> input = MakePlan(p->view, Share({"k"}), PlanOptions{});
  ASSERT_FALSE(input.ok());
  EXPECT_EQ(input.error().message, "method m, value 1: offset 64 + 64 bytes > arena 1 size 100");
}

// Two methods with two unnamed caches each, as the exporter writes them
// (no name, an initial state), at other offsets in each method.
const std::vector<FixedMethod> kUnnamedPair = {
    {"prefill", {{64, 1, 0, "", true}, {64, 1, 64, "", true}, {32, 1, 128}}},
    {"decode", {{32, 1, 0}, {64, 1, 32, "", true}, {64, 1, 96, "", true}}},
};

ValueNaming PairNaming(uint32_t pair, std::string name, std::string origin = "") {
  ValueNaming naming;
  naming.pair = pair;
  naming.name = std::move(name);
  naming.origin = std::move(origin);
  return naming;
}

// `paired_state.K=NAME` names pair K in every method: one naming per
// buffer, however many methods share it. A pair no naming names keeps its
// position (paired_state.001, not renumbered) and says it is one.
TEST(SharedBuffers, APairNamingNamesPairKInEveryMethodAndTheRestKeepTheirPositions) {
  auto p = Load(kUnnamedPair);
  ShareRequest request;
  request.share_auto = true;
  request.namings = {PairNaming(0, "k_cache")};
  Result<SharedBufferSet> set = ChooseSharedBuffers(p->view, request);
  ASSERT_TRUE(set.ok()) << set.error().message;
  ASSERT_EQ(set->pairings.size(), 2u);
  const StatePairing& named = set->pairings[0];
  EXPECT_EQ(named.name, "k_cache");
  EXPECT_FALSE(named.position_name);
  EXPECT_EQ(named.values, (std::vector<std::pair<uint32_t, uint32_t>>{{0, 0}, {1, 1}}));
  const StatePairing& rest = set->pairings[1];
  EXPECT_EQ(rest.name, "paired_state.001");
  EXPECT_TRUE(rest.position_name);
  EXPECT_EQ(rest.position, 1u);
  EXPECT_EQ(PairingLabel(p->view, named), "k_cache");
  EXPECT_EQ(PairingLabel(p->view, rest),
            "paired_state.001: position 1 of prefill/decode; no name in the program");
  EXPECT_EQ(Labels(*set), (std::vector<std::string>{"k_cache", "paired_state.001"}));
}

// Without --share-auto a pair naming names its pair only; --share NAME
// shares it, and the other pair stays each method's private state.
TEST(SharedBuffers, APairNamingWithoutShareAutoPairsOnlyThatPair) {
  auto p = Load(kUnnamedPair);
  ShareRequest request = Share({"v_cache"});
  request.namings = {PairNaming(1, "v_cache")};
  Result<SharedBufferSet> set = ChooseSharedBuffers(p->view, request);
  ASSERT_TRUE(set.ok()) << set.error().message;
  ASSERT_EQ(set->pairings.size(), 1u);
  EXPECT_EQ(set->pairings[0].position, 1u);
  EXPECT_EQ(Labels(*set),
            (std::vector<std::string>{"v_cache", "decode:1 private", "prefill:0 private"}));
}

TEST(SharedBuffers, APairNamingNotSharedSaysHowToShareIt) {
  ShareRequest request;
  request.namings = {PairNaming(1, "v_cache", "names.txt:4")};
  request.allow_none = true;
  EXPECT_EQ(ChoiceError(kUnnamedPair, request),
            "names.txt:4: paired_state.001=v_cache: 'v_cache' names buffers of methods prefill, "
            "decode but is not shared: --share v_cache, or use --share-auto");
}

TEST(SharedBuffers, APairPastTheLastSaysHowManyPairsThereAre) {
  ShareRequest request;
  request.share_auto = true;
  request.namings = {PairNaming(2, "x", "names.txt:9")};
  EXPECT_EQ(ChoiceError(kUnnamedPair, request),
            "names.txt:9: paired_state.002=x: there are 2 pairs of unnamed state, "
            "paired_state.000 to paired_state.001");
}

TEST(SharedBuffers, OnePairOrOneValueNamedTwiceWithTwoNamesIsRefusedNamingBoth) {
  ShareRequest pair;
  pair.share_auto = true;
  pair.namings = {PairNaming(0, "a", "names.txt:1"), PairNaming(0, "b", "names.txt:2")};
  EXPECT_EQ(ChoiceError(kUnnamedPair, pair),
            "names.txt:2: paired_state.000=b: pair 0 is already named 'a' by names.txt:1: "
            "paired_state.000=a");
  ShareRequest value;
  value.share_auto = true;
  value.namings = {{"prefill", 0, "a", std::nullopt, "names.txt:1"}, {"prefill", 0, "b"}};
  EXPECT_EQ(ChoiceError(kUnnamedPair, value),
            "--name prefill:0=b: method prefill, value 0 is already named 'a' by names.txt:1: "
            "prefill:0=a");
}

// Pairs are named by the position the pairing gives; where the state does
// not pair, the naming that asked for it says why.
TEST(SharedBuffers, APairNamingWhereNothingPairsSaysWhy) {
  ShareRequest one;
  one.share_auto = true;
  one.namings = {PairNaming(0, "k", "names.txt:1")};
  EXPECT_EQ(ChoiceError({{"prefill", {{64, 1, 0, "", true}}}, {"decode", {{64, 1, 0}}}}, one),
            "names.txt:1: paired_state.000=k: no unnamed state pairs between methods (only "
            "method prefill has any); name values with METHOD:VALUE_INDEX=NAME");
  ShareRequest mismatch;
  mismatch.names = {"k"};
  mismatch.namings = {PairNaming(0, "k", "names.txt:1")};
  const std::string error = ChoiceError(
      {{"prefill", {{64, 1, 0, "", true}}}, {"decode", {{32, 1, 0, "", true}}}}, mismatch);
  EXPECT_EQ(error.rfind("names.txt:1: paired_state.000=k: cannot pair the unnamed state of "
                        "methods prefill and decode: ",
                        0),
            0u)
      << error;
}

// For a checker that names values only (runtime_check, under verify).
TEST(SharedBuffers, NamingsByValueNameEveryValueOfThePair) {
  auto p = Load(kUnnamedPair);
  Result<std::vector<ValueNaming>> namings =
      NamingsByValue(p->view, {PairNaming(1, "v"), {"prefill", 2, "x"}});
  ASSERT_TRUE(namings.ok()) << namings.error().message;
  std::vector<std::string> texts;
  for (const ValueNaming& n : *namings) texts.push_back(NamingText(n));
  EXPECT_EQ(texts, (std::vector<std::string>{"--name prefill:2=x", "--name prefill:1=v",
                                             "--name decode:2=v"}));
}

TEST(SharedBuffers, APositionIsReadAsAValueOrAPair) {
  EXPECT_EQ(ParseValuePosition("paired_state.007")->pair, 7u);
  EXPECT_EQ(ParseValuePosition("decode:22")->value_index, 22u);
  EXPECT_FALSE(ParseValuePosition("decode:22")->pair.has_value());
  EXPECT_FALSE(ParseValuePosition("paired_state.x").has_value());
  EXPECT_FALSE(ParseValuePosition("paired_state.").has_value());
}

}  // namespace
}  // namespace pteshare

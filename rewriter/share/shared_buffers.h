// Choosing the shared buffers: the names a user gave (--share), or every
// named mutable buffer found in two or more methods (--share-auto), plus
// names given to unnamed buffers by position (--name). Everything that makes
// a choice impossible is an input error naming the method, value and
// numbers.
//
// Pairing unnamed state (--share-auto). The exporter writes buffer names
// only when asked to (emit_mutable_buffer_names), so real programs carry
// their state unnamed: planned tensors with an initial state and no name.
// It emits each method's mutable buffers from the module's one list of
// buffers, in that list's order, so the k-th unnamed mutable buffer (by
// value index) of every method that has state is the same buffer. That is
// taken only when it can be checked: every method with unnamed state has as
// many, and the k-th of each agree in scalar type, sizes and arena. Paired
// buffers are named `paired_state.K` (K zero-padded to one width, so sorted
// names keep the pairing order): a name that says only the position, since
// the program has none (StatePairing::position_name). `--name
// paired_state.K=NAME` gives pair K its real name instead (one line per
// buffer in a names file, however many methods share it).
// Any disagreement is an input error naming the first mismatch and the
// `--name` options that pair by hand. Two or more methods with state and
// nothing shared is an error too; a program where fewer than two methods
// have state has nothing to share (SharedBufferSet::nothing_to_share).
//
// Private state. Once anything is shared, the methods run on one set of
// arenas, and every other mutable buffer (named or not) of a method is
// state that lives across its calls as well: each becomes a private buffer
// (SharedBuffer::private_state) with a front slot no other method touches,
// whichever way the shared buffers were chosen.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rewriter/base/result.h"
#include "rewriter/program/program_view.h"

namespace pteshare {

/// A name given by position: to one value (`--name METHOD:VALUE_INDEX=NAME`)
/// or to a pair of unnamed state in every method it pairs (`--name
/// paired_state.K=NAME`).
struct ValueNaming {
  std::string method;  // empty for a pair
  uint32_t value_index = 0;
  std::string name;
  /// Set for `paired_state.K=NAME`: K, the position pairing gives the pair
  /// (the K of the `paired_state.K` that `plan --share-auto` shows with the
  /// same value namings; with none, the K-th unnamed mutable buffer of
  /// every method with state).
  std::optional<uint32_t> pair{};
  /// Where it was given, for messages: "names.txt:7"; empty for --name.
  std::string origin{};
};

/// The prefix of the name pairing makes up: "paired_state.".
inline constexpr std::string_view kPairedStatePrefix = "paired_state.";

/// "prefill:22" -> method "prefill", value 22, no name yet; split at the
/// last ':' (a method name may hold one). "paired_state.7" (any zero
/// padding) -> pair 7. nullopt without a method, a ':' or a whole number
/// after it. The CLI's --name and the Python module's names= keys both
/// read positions this way.
std::optional<ValueNaming> ParseValuePosition(std::string_view text);

/// "--name prefill:22=k0" or "names.txt:7: paired_state.003=k0": a naming
/// and where it was given, as a message about it starts.
std::string NamingText(const ValueNaming& naming);

struct ShareRequest {
  std::vector<std::string> names;    // --share
  bool share_auto = false;           // --share-auto
  std::vector<ValueNaming> namings;  // --name
  /// A replan may run with no shared buffer at all (it just shrinks arenas).
  bool allow_none = false;

  /// Whether any buffer is asked for (by name or share_auto): without one
  /// there is no plan to draw or make but a replan.
  bool chooses_buffers() const { return !names.empty() || share_auto; }
};

/// One buffer that must have the same placement in every method.
struct SharedBuffer {
  std::string name;
  uint32_t memory_id = 0;
  uint64_t nbytes = 0;
  /// Per method (ProgramView order): the value holding it, if the method has it.
  std::vector<std::optional<uint32_t>> value_in_method;
  /// Methods that load an initial state into it.
  std::vector<std::string> methods_with_initial_state;
  /// State of one method that no shared buffer holds (named state only that
  /// method has, unnamed state no pairing took, state left out of --share):
  /// under one set of arenas it lives across that method's calls too, so it
  /// gets a slot of its own that every other method keeps free. Its name is
  /// a label ("prefill:22", "v_cache@decode" where the name is in several
  /// methods), never written into the program.
  bool private_state = false;
};

/// One pair (or tuple) of unnamed mutable buffers that --share-auto (or a
/// `paired_state.K=NAME` naming) joined.
struct StatePairing {
  std::string name;       // paired_state.K, or the name a naming gave pair K
  uint32_t position = 0;  // K
  /// The name is paired_state.K, made up: it says the position only, not
  /// what the buffer is. Shown as such, and --write-names refuses to store
  /// it unless told positions are fine (RewriteRequest::names).
  bool position_name = true;
  /// (method index, value index) of each member, in method order.
  std::vector<std::pair<uint32_t, uint32_t>> values;
  std::string shape;  // "FLOAT[1,8,128,64]"
  uint32_t memory_id = 0;
};

/// The chosen buffers (the front-region order): the shared ones sorted by
/// name, then the private state sorted by label.
struct SharedBufferSet {
  std::vector<SharedBuffer> buffers;
  /// The unnamed buffers --share-auto paired, in pairing order.
  std::vector<StatePairing> pairings;
  /// Names of state found in two or more methods that the request left
  /// out of the shared buffers: each method keeps its own as private state
  /// (for the warning that says so; sorted).
  std::vector<std::string> left_out;
  uint64_t left_out_bytes = 0;  // the private copies of those, in all methods
  /// Set when --share-auto found nothing to share because fewer than two
  /// methods have mutable state: says which (for "nothing to share").
  std::string nothing_to_share;
};

/// Methods with mutable state (named or unnamed), in program order.
std::vector<std::string> MethodsWithState(const ProgramView& view);

/// The name pairing gives the k-th of `count` paired buffers.
std::string PairedStateName(size_t k, size_t count);

/// "paired_state.000: position 0 of prefill/decode; no name in the
/// program" for a made-up name, or the name given: what every report shows
/// for a pair.
std::string PairingLabel(const ProgramView& view, const StatePairing& pairing);

/// `namings` with each `paired_state.K=NAME` replaced by a
/// METHOD:VALUE_INDEX=NAME naming of every value of pair K, for a checker
/// that names values only (runtime_check); an error names the naming and
/// why (no such pair, state that does not pair).
Result<std::vector<ValueNaming>> NamingsByValue(const ProgramView& view,
                                                const std::vector<ValueNaming>& namings);

/// Resolves `request` against `view` and checks it: every name is a planned
/// tensor in some method, with one size and one arena in all of them, not
/// overlapping another shared buffer; no other tensor straddles it, and
/// every tensor inside it is an alias the program shows (alias_evidence.h);
/// every --name names a value that ends up shared.
Result<SharedBufferSet> ChooseSharedBuffers(const ProgramView& view, const ShareRequest& request);

}  // namespace pteshare

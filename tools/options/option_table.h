// The options every front end takes for sharing and planning, in one table:
// per option its CLI flag, its Python keyword, its help, the kind of value,
// its default and what it sets in the library's requests (ShareRequest,
// PlanOptions). The CLI (tools/pteshare/option_flags.h) adds its flags and
// the Python module (python/keywords.h) its keywords, their defaults and its
// docstring signatures by walking this table, so an option is added once: a
// row here and the field it sets. Free of CLI11 and pybind11.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "rewriter/plan/planner.h"
#include "rewriter/share/shared_buffers.h"

namespace pteshare::options {

/// The kinds of value an option takes. Each front end reads each kind its
/// own way (text after a flag, a Python object) into the same OptionValue.
enum class ValueKind {
  kWord,          // one word of a closed set, the library's own names (--strategy best)
  kUnsigned,      // a whole number >= 0 (--alignment 64)
  kArenaLimits,   // ID=BYTES, repeatable (--arena-limit 1=1048576); Python: {ID: BYTES}
  kNameList,      // names, repeatable, several after one flag (--share A B); Python: str or list
  kValueNamings,  // METHOD:VALUE_INDEX=NAME, repeatable (--name); Python: {position: NAME}
  kNamesFile,     // a file of namings (names_file.h), repeatable (--names-from); Python: a path
  kSwitch,        // on when given (--share-auto); Python: True or False
};

/// Which commands and functions take an option.
enum class OptionGroup {
  kShare,  // which buffers to share: plan, rewrite, verify, plot; plan(), rewrite(), verify()
  kPlan,   // how to plan them: plan, rewrite, plot; plan(), rewrite()
};

/// What the options set: the two requests the library takes.
struct OptionSettings {
  ShareRequest share;
  PlanOptions plan;
};

/// An option's value once read, one alternative per ValueKind: a word's
/// enum value (int), a number, the arena limits, the names, the namings, a
/// switch.
using OptionValue = std::variant<int, uint64_t, std::map<uint32_t, uint64_t>,
                                 std::vector<std::string>, std::vector<ValueNaming>, bool>;

/// One word a kWord option takes and the enum value it stands for.
struct Word {
  std::string name;
  int value = 0;
};

/// One option: how each front end spells it, what it says about it, and
/// where its value goes.
struct OptionRow {
  OptionGroup group = OptionGroup::kShare;
  ValueKind kind = ValueKind::kSwitch;
  const char* flag = "";     // "--strategy"
  const char* keyword = "";  // "strategy"
  /// What --help shows for the value ("ID=BYTES"); a kWord row's is its
  /// words joined by '|' (ValueName).
  const char* value_name = "";
  const char* help = "";
  /// The value when the option is not given, as text (kWord, kUnsigned);
  /// empty for the others, which default to nothing given.
  const char* default_text = "";
  /// kWord: the words, the library's own names (StrategyName, ...), so the
  /// option and every report say the same.
  std::vector<Word> words{};
  /// Stores the value (of this row's kind) where the library reads it.
  void (*set)(OptionSettings& settings, OptionValue value) = nullptr;
};

/// Every option, in the order --help and the Python signatures list them.
const std::vector<OptionRow>& OptionTable();

/// The rows of `groups`, in table order.
std::vector<const OptionRow*> RowsOf(std::initializer_list<OptionGroup> groups);

/// What --help shows for the row's value ("relocate|replan|best").
std::string ValueName(const OptionRow& row);

/// A kWord row's words as a sentence: "relocate, replan or best".
std::string WordList(const OptionRow& row);

}  // namespace pteshare::options

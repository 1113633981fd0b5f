#include "tools/pteshare/usage_error.h"

#include <algorithm>

namespace pteshare::cli {
namespace {

using Options = std::vector<const CLI::Option*>;

std::vector<const CLI::App*> Commands(const CLI::App& app) {
  return app.get_subcommands([](const CLI::App*) { return true; });
}

std::string Join(const std::vector<std::string>& words, const std::string& separator) {
  std::string text;
  for (const std::string& word : words) text += (text.empty() ? "" : separator) + word;
  return text;
}

// The first argument that is no option: the command's name, if any.
std::string CommandWord(const std::vector<std::string>& args) {
  for (const std::string& arg : args) {
    if (arg.empty() || arg[0] != '-') return arg;
  }
  return "";
}

// Every spelling of the command's options: "--share-auto", "-o", "--output".
std::vector<std::string> FlagNames(const CLI::App& command) {
  std::vector<std::string> names;
  for (const CLI::Option* option : command.get_options()) {
    for (const std::string& name : option->get_lnames()) names.push_back("--" + name);
    for (const std::string& name : option->get_snames()) names.push_back("-" + name);
  }
  return names;
}

// "-o" for -o,--output; "--alignment".
std::string FirstFlag(const CLI::Option& option) {
  return option.get_snames().empty() ? "--" + option.get_lnames().front()
                                     : "-" + option.get_snames().front();
}

// "FILE", "FILE...", "-o OUT.svg|OUT.html": a required argument as a user
// types it.
std::string Spelled(const CLI::Option& option) {
  if (!option.nonpositional()) {
    return option.get_name() + (option.get_expected_max() > 1 ? "..." : "");
  }
  return FirstFlag(option) + " " + option.get_type_name();
}

// "pteshare plot FILE -o OUT.svg|OUT.html [options]": what to type.
std::string Synopsis(const CLI::App& command) {
  std::string text = "pteshare " + command.get_name();
  for (const CLI::Option* option : command.get_options()) {
    if (option->get_required()) text += " " + Spelled(*option);
  }
  return text + " [options]";
}

std::string HelpOf(const CLI::App* command) {
  return command == nullptr ? "(pteshare --help)" : "(pteshare " + command->get_name() + " --help)";
}

// The option of `command` spelled `name` ("--alignment", "-o"), if any.
const CLI::Option* OptionNamed(const CLI::App& command, std::string_view name) {
  for (const CLI::Option* option : command.get_options()) {
    for (const std::string& l : option->get_lnames()) {
      if (name == "--" + l) return option;
    }
    for (const std::string& s : option->get_snames()) {
      if (name == "-" + s) return option;
    }
  }
  return nullptr;
}

// The arguments CLI11 did not expect, from its message ("The following
// argument(s) was/were not expected: A B"), in the order given.
std::vector<std::string> Extras(const CLI::ParseError& error) {
  const std::string message = error.what();
  const std::string marker = "expected: ";
  const size_t at = message.find(marker);
  std::vector<std::string> words;
  if (at == std::string::npos) return words;
  std::string rest = message.substr(at + marker.size());
  size_t start = 0;
  while (start < rest.size()) {
    const size_t space = rest.find(' ', start);
    const size_t end = space == std::string::npos ? rest.size() : space;
    if (end > start) words.push_back(rest.substr(start, end - start));
    start = end + 1;
  }
  return words;
}

std::string UnknownCommand(const CLI::App& app, const std::string& word) {
  std::vector<std::string> names;
  for (const CLI::App* command : Commands(app)) names.push_back(command->get_name());
  const std::string nearest = NearestWord(word, names);
  return "unknown command '" + word + "'" +
         (nearest.empty() ? "" : " (did you mean " + nearest + "?)") + "; the commands are " +
         Join(names, ", ") + " " + HelpOf(nullptr);
}

std::string NoCommand(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* command : Commands(app)) names.push_back(command->get_name());
  return "give a command: " + Join(names, ", ") + " " + HelpOf(nullptr);
}

// The first of `args` that looks like an option but is none of
// `command`'s ("--shar-auto", "--json=1" counts as --json), or empty.
std::string UnknownOption(const CLI::App* command, const std::vector<std::string>& args) {
  for (const std::string& arg : args) {
    if (arg == "--") break;
    if (arg.size() < 2 || arg[0] != '-' || (arg[1] >= '0' && arg[1] <= '9')) continue;
    const std::string name = arg.substr(0, arg.find('='));
    const bool known = command != nullptr ? OptionNamed(*command, name) != nullptr
                                          : name == "--help" || name == "-h" || name == "--version";
    if (!known) return name;
  }
  return "";
}

std::string UnknownOptionMessage(const CLI::App* command, const std::string& name) {
  if (command == nullptr) {
    return "unknown option " + name + "; give a command first, e.g. pteshare plan FILE " +
           HelpOf(nullptr);
  }
  const std::string nearest = NearestWord(name, FlagNames(*command));
  return "unknown option " + name + " for " + command->get_name() +
         (nearest.empty() ? "" : "; did you mean " + nearest + "?") + " " + HelpOf(command);
}

// An argument the command does not take but no option: one too many.
std::string Unexpected(const CLI::App& command, const std::vector<std::string>& extras) {
  const std::string first = extras.empty() ? "?" : extras.front();
  return "unexpected argument '" + first + "': type " + Synopsis(command) + " " + HelpOf(&command);
}

std::string Missing(const CLI::App& command) {
  std::vector<std::string> missing;
  for (const CLI::Option* option : command.get_options()) {
    if (option->get_required() && option->count() == 0) missing.push_back(Spelled(*option));
  }
  return command.get_name() + " needs " + (missing.empty() ? "more" : Join(missing, " and ")) +
         ": type " + Synopsis(command) + " " + HelpOf(&command);
}

// The option a CLI11 message starts with ("--alignment: ..."), if any.
const CLI::Option* OptionOfMessage(const CLI::App& command, const std::string& message) {
  const size_t end = message.find_first_of(": ");
  if (end == std::string::npos) return nullptr;
  std::string name = message.substr(0, end);
  // CLI11 names an option by all its spellings: "-o,--output".
  name = name.substr(0, name.find(','));
  return OptionNamed(command, name);
}

// A value missing after an option, or given to a switch.
std::string WrongCount(const CLI::App& command, const CLI::ParseError& error) {
  const std::string message = error.what();
  const CLI::Option* option = OptionOfMessage(command, message);
  if (option == nullptr) return message + " " + HelpOf(&command);
  if (option->get_expected_max() == 0) {
    return FirstFlag(*option) + " takes no value " + HelpOf(&command);
  }
  return FirstFlag(*option) + " needs a value: " + FirstFlag(*option) + " " +
         option->get_type_name() + " " + HelpOf(&command);
}

// Two options that exclude each other ("-o,--output excludes --in-place").
std::string Excluded(const CLI::App& command, const CLI::ParseError& error) {
  const std::string message = error.what();
  const size_t at = message.find(" excludes ");
  if (at == std::string::npos) return message + " " + HelpOf(&command);
  const CLI::Option* first = OptionNamed(command, message.substr(0, message.find_first_of(", ")));
  const CLI::Option* second = OptionNamed(command, message.substr(at + 10));
  if (first == nullptr || second == nullptr) return message + " " + HelpOf(&command);
  return "give " + FirstFlag(*first) + " or " + FirstFlag(*second) + ", not both " +
         HelpOf(&command);
}

// Letters added, removed, changed or two neighbours swapped ("plna" is one
// from "plan"): the optimal string alignment distance.
size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      d[i][j] = std::min(
          {d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[a.size()][b.size()];
}

}  // namespace

std::string NearestWord(std::string_view typed, const std::vector<std::string>& candidates) {
  // A third of the letters: "-x" is near nothing (not -h), "plna" is near
  // plan, "--shar-auto" near --share-auto.
  const size_t allowed = typed.size() / 3;
  std::string nearest;
  size_t best = allowed + 1;
  for (const std::string& candidate : candidates) {
    const size_t distance = EditDistance(typed, candidate);
    if (distance < best) {
      best = distance;
      nearest = candidate;
    }
  }
  return nearest;
}

std::string UsageMessage(const CLI::App& app, const CLI::ParseError& error,
                         const std::vector<std::string>& args) {
  const std::string word = CommandWord(args);
  const CLI::App* command = nullptr;
  for (const CLI::App* c : Commands(app)) {
    if (c->get_name() == word) command = c;
  }
  if (command == nullptr && !word.empty()) return UnknownCommand(app, word);
  // CLI11 reports a missing argument before an unknown option, but the
  // option is the mistake to fix first (`pteshare plan -x` is no missing
  // FILE); a value that starts with '-' fails its own check instead.
  const bool extras = dynamic_cast<const CLI::ExtrasError*>(&error) != nullptr;
  if (extras || dynamic_cast<const CLI::RequiredError*>(&error) != nullptr) {
    std::vector<std::string> after(args.begin(), args.end());
    if (!word.empty()) after.erase(std::find(after.begin(), after.end(), word));
    const std::string unknown = UnknownOption(command, after);
    if (!unknown.empty()) return UnknownOptionMessage(command, unknown);
  }
  if (command == nullptr) return NoCommand(app);
  if (extras) return Unexpected(*command, Extras(error));
  if (dynamic_cast<const CLI::RequiredError*>(&error) != nullptr) return Missing(*command);
  if (dynamic_cast<const CLI::ArgumentMismatch*>(&error) != nullptr) {
    return WrongCount(*command, error);
  }
  if (dynamic_cast<const CLI::ExcludesError*>(&error) != nullptr) return Excluded(*command, error);
  // A validator's message is already ours ("--alignment: 'abc' is not a
  // non-negative integer"): CLI11 only put the option's name in front.
  return std::string(error.what()) + " " + HelpOf(command);
}

}  // namespace pteshare::cli

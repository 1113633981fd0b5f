// What a user typed wrong on the command line, said in their terms. CLI11's
// own messages ("A subcommand is required", "The following argument was not
// expected: --shar-auto", "--alignment: 1 required UINT missing") name
// neither the command nor what to type instead; these do: the unknown
// command or option with the nearest one that exists, the missing argument
// with the command's synopsis, and where the help is.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace pteshare::cli {

/// The one-line message (without the leading "pteshare: ") for CLI11's
/// `error` while parsing `args` (argv without argv[0]) with `app`, e.g.
/// "unknown command 'bogus'; the commands are inspect, plan, ... (pteshare
/// --help)" or "plan: unknown option --shar-auto; did you mean
/// --share-auto? (pteshare plan --help)".
std::string UsageMessage(const CLI::App& app, const CLI::ParseError& error,
                         const std::vector<std::string>& args);

/// The word of `candidates` nearest to `typed`: fewest letters added,
/// removed, changed or swapped with a neighbour, and at most a third of
/// `typed`'s letters; empty when none is that near.
std::string NearestWord(std::string_view typed, const std::vector<std::string>& candidates);

}  // namespace pteshare::cli

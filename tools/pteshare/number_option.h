// Strict numbers on the command line: digits only, no sign, no wrap-around.
// CLI11 alone reads "-1" into a uint64 as 18446744073709551615, the same as
// what "18446744073709551615" gives, so an error could not say which one
// the user typed. This check runs on the text as typed and its message
// echoes it (options::ReadUnsigned, which the option table's numbers use).
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>

namespace pteshare::cli {

/// Accepts a decimal integer in [0, max]; the error quotes the text.
CLI::Validator UnsignedInteger(uint64_t max = UINT64_MAX);

/// Accepts a decimal number of seconds >= 0 ("2", "0.5"); the error quotes
/// the text (CLI11's own check says "Value abc not in range").
CLI::Validator NonNegativeSeconds();

}  // namespace pteshare::cli

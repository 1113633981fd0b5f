// A names file (`--names-from FILE`, Python's `names_from=`): the namings of
// `--name`, one a line, so that the names of a model's state live in a file
// kept beside it rather than in 128 options. A line is
//
//   prefill:34=layers.0.attention.k_cache   one value of one method
//   paired_state.000=layers.0.attention.k_cache
//                                           pair 0 of the unnamed state, in
//                                           every method it pairs: 64 caches
//                                           shared by any number of methods
//                                           take 64 lines
//
// '#' starts a comment (at the start of a line or after a space); blank
// lines are skipped. Errors name the file and the line:
// "names.txt:7: expected METHOD:VALUE_INDEX=NAME or paired_state.K=NAME,
// got 'foo'".
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "rewriter/base/result.h"
#include "rewriter/share/shared_buffers.h"

namespace pteshare::options {

/// The namings of the file at `path`, each with its origin ("PATH:LINE").
/// A file that cannot be read is a kIo error; one with a bad line, or
/// with no naming at all, kBadInput.
Result<std::vector<ValueNaming>> ReadNamesFile(const std::string& path);

/// The same for the file's text; `path` names it in messages and origins.
Result<std::vector<ValueNaming>> ReadNamesText(std::string_view text, const std::string& path);

}  // namespace pteshare::options

// The library's messages name options as the CLI's flags ("--name
// decode:22=k0: ...", "use --layout front"); a Python user gave keywords.
// InKeywordTerms rewrites each flag of the option table (and rewrite's own)
// as the keyword that sets it, with its value in Python's syntax where the
// message gives one: names={'decode:22': 'k0'}, layout='front'.
#pragma once

#include <string>

namespace pteshare::python {

std::string InKeywordTerms(const std::string& message);

}  // namespace pteshare::python

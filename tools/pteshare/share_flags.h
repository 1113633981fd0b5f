// ShareFlags: the three options every command that takes shared buffers
// accepts (plan, rewrite, verify, plot), parsed the same way everywhere.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "rewriter/base/result.h"
#include "rewriter/share/shared_buffers.h"

namespace pteshare::cli {

/// `--name METHOD:VALUE_INDEX=NAME`, parsed (the rewriter's ValueNaming).
using ValueNaming = ValueNaming;

struct ShareFlags {
  std::vector<std::string> share;    // --share NAME... (repeatable)
  bool share_auto = false;           // --share-auto
  std::vector<std::string> namings;  // --name, raw text

  /// Adds --share, --share-auto and --name to `command`.
  void AddTo(CLI::App* command);
  /// True when neither --share nor --share-auto was given.
  bool empty() const { return share.empty() && !share_auto; }
  /// Parses every --name; an error names the bad argument.
  Result<std::vector<ValueNaming>> ParsedNamings() const;
  /// The request the rewriter takes (parses --name).
  Result<ShareRequest> ToRequest() const;
};

}  // namespace pteshare::cli

#include "tools/pteshare/share_flags.h"

#include <optional>
#include <string_view>

namespace pteshare::cli {

void ShareFlags::AddTo(CLI::App* command) {
  command
      ->add_option("--share", share,
                   "Shared buffer(s) by fully qualified name, e.g. "
                   "layers.0.attention.kv_cache.k_cache (repeatable; several names may follow "
                   "one --share)")
      ->type_name("NAME...")
      ->expected(1, -1);
  command->add_flag("--share-auto", share_auto,
                    "Share every named mutable buffer that appears in two or more methods");
  command
      ->add_option("--name", namings,
                   "Name an unnamed buffer by position, then share it with --share NAME "
                   "(repeatable)")
      ->type_name("METHOD:VALUE_INDEX=NAME");
}

Result<std::vector<ValueNaming>> ShareFlags::ParsedNamings() const {
  std::vector<ValueNaming> parsed;
  for (const std::string& text : namings) {
    // METHOD may itself contain ':' in principle; split at the last ':'
    // before the '='.
    size_t eq = text.find('=');
    size_t colon = eq == std::string::npos ? std::string::npos : text.rfind(':', eq);
    if (eq == std::string::npos || colon == std::string::npos || colon == 0 ||
        eq + 1 == text.size()) {
      return Error{"--name '" + text + "': expected METHOD:VALUE_INDEX=NAME"};
    }
    std::optional<ValueNaming> naming = ParseValuePosition(std::string_view(text).substr(0, eq));
    if (!naming) {
      return Error{"--name '" + text + "': VALUE_INDEX '" + text.substr(colon + 1, eq - colon - 1) +
                   "' is not a non-negative integer"};
    }
    naming->name = text.substr(eq + 1);
    parsed.push_back(std::move(*naming));
  }
  return parsed;
}

Result<ShareRequest> ShareFlags::ToRequest() const {
  Result<std::vector<ValueNaming>> names = ParsedNamings();
  if (!names.ok()) return names.error();
  ShareRequest request;
  request.names = share;
  request.share_auto = share_auto;
  request.namings = std::move(names).value();
  return request;
}

}  // namespace pteshare::cli

#include "tools/pteshare/option_flags.h"

#include <utility>

#include "tools/options/option_text.h"
#include "tools/pteshare/number_option.h"

namespace pteshare::cli {
namespace {

using options::OptionRow;
using options::ValueKind;

// A word option takes its words only (ReadWord); checked as CLI11 parses,
// so a wrong word is a usage error like any other.
CLI::Validator WordsOf(const OptionRow& row) {
  return CLI::Validator(
      [&row](std::string& input) -> std::string {
        Result<int> word = options::ReadWord(row, input);
        return word.ok() ? "" : word.error().message;
      },
      "");
}

}  // namespace

OptionFlags::OptionFlags(options::OptionGroup group)
    : rows_(options::RowsOf({group})), given_(rows_.size()) {}

void OptionFlags::AddTo(CLI::App* command) {
  for (size_t i = 0; i < rows_.size(); ++i) {
    const OptionRow& row = *rows_[i];
    Given& given = given_[i];
    switch (row.kind) {
      case ValueKind::kWord:
        command->add_option(row.flag, given.text, row.help)
            ->check(WordsOf(row))
            ->type_name(options::ValueName(row))
            ->default_str(row.default_text);
        break;
      case ValueKind::kUnsigned:
        // Its help says what the default means (0: detected), so --help
        // shows no default for it.
        command->add_option(row.flag, given.text, row.help)
            ->check(UnsignedInteger())
            ->type_name(row.value_name);
        break;
      case ValueKind::kNameList:
        command->add_option(row.flag, given.texts, row.help)
            ->type_name(row.value_name)
            ->expected(1, -1);
        break;
      case ValueKind::kArenaLimits:
      case ValueKind::kValueNamings:
      case ValueKind::kNamesFile:
        command->add_option(row.flag, given.texts, row.help)->type_name(row.value_name);
        break;
      case ValueKind::kSwitch:
        command->add_flag(row.flag, given.on, row.help);
        break;
    }
  }
}

Status OptionFlags::ReadInto(options::OptionSettings& settings) const {
  Status first = Status::Ok();
  for (size_t i = 0; i < rows_.size(); ++i) {
    const OptionRow& row = *rows_[i];
    const Given& given = given_[i];
    std::vector<std::string> texts = given.texts;
    if (!given.text.empty()) texts.push_back(given.text);
    if (given.on) texts.push_back(row.flag);
    Result<options::OptionValue> value = options::ReadTexts(row, texts);
    if (value.ok()) {
      row.set(settings, std::move(value).value());
    } else if (first.ok()) {
      first = value.error();
    }
  }
  return first;
}

bool ShareFlags::empty() const {
  options::OptionSettings settings;
  (void)flags.ReadInto(settings);  // a bad --name is ToRequest's to report
  return !settings.share.chooses_buffers();
}

Result<ShareRequest> ShareFlags::ToRequest() const {
  options::OptionSettings settings;
  if (Status read = flags.ReadInto(settings); !read.ok()) return read.error();
  return std::move(settings.share);
}

Result<PlanOptions> PlanFlags::ToPlanOptions() const {
  options::OptionSettings settings;
  if (Status read = flags.ReadInto(settings); !read.ok()) return read.error();
  settings.plan.compare_strategies = compare_strategies;
  settings.plan.compare_layouts = compare_layouts;
  return std::move(settings.plan);
}

Status CheckFlags(const ShareFlags& share, const PlanFlags* planning) {
  if (Result<ShareRequest> request = share.ToRequest(); !request.ok()) return request.error();
  if (planning != nullptr) {
    if (Result<PlanOptions> options = planning->ToPlanOptions(); !options.ok()) {
      return options.error();
    }
  }
  return Status::Ok();
}

}  // namespace pteshare::cli

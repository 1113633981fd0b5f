#include "rewriter/plan/blockplan/csv.h"

#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <sstream>
#include <unordered_map>
#include <vector>

namespace pteshare {
namespace {

enum Column { kId, kLower, kUpper, kSize, kOffset, kColumnCount };
constexpr const char* kColumnNames[kColumnCount] = {"id", "lower", "upper", "size", "offset"};

std::vector<std::string_view> SplitFields(std::string_view line) {
  std::vector<std::string_view> fields;
  size_t start = 0;
  for (;;) {
    size_t comma = line.find(',', start);
    fields.push_back(line.substr(start, comma - start));
    if (comma == std::string_view::npos) return fields;
    start = comma + 1;
  }
}

std::string_view Trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

template <typename Int>
bool ParseInt(std::string_view text, Int* value) {
  if (text.empty() || text.front() == '+') return false;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), *value);
  return error == std::errc() && end == text.data() + text.size();
}

Error LineError(size_t line, const std::string& what) {
  return Error{"line " + std::to_string(line) + ": " + what};
}

}  // namespace

Result<BlockProblem> ParseBlockCsv(std::string_view text) {
  BlockProblem problem;
  int column_of[kColumnCount] = {-1, -1, -1, -1, -1};
  size_t field_count = 0;
  bool have_header = false;
  std::unordered_map<std::string, size_t> line_of_id;
  size_t line_number = 0;
  while (!text.empty()) {
    size_t newline = text.find('\n');
    std::string_view line = text.substr(0, newline);
    text.remove_prefix(newline == std::string_view::npos ? text.size() : newline + 1);
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (Trim(line).empty()) continue;
    std::vector<std::string_view> fields = SplitFields(line);
    for (std::string_view& field : fields) field = Trim(field);

    if (!have_header) {
      have_header = true;
      field_count = fields.size();
      for (size_t i = 0; i < fields.size(); ++i) {
        int column = -1;
        for (int c = 0; c < kColumnCount; ++c) {
          if (fields[i] == kColumnNames[c]) column = c;
        }
        if (column < 0) {
          return LineError(line_number, "unknown column '" + std::string(fields[i]) +
                                            "' (the header is id,lower,upper,size[,offset])");
        }
        if (column_of[column] >= 0) {
          return LineError(line_number, "column '" + std::string(fields[i]) + "' appears twice");
        }
        column_of[column] = static_cast<int>(i);
      }
      for (int c = kId; c <= kSize; ++c) {
        if (column_of[c] < 0) {
          return LineError(line_number,
                           std::string("header lacks the '") + kColumnNames[c] +
                               "' column (the header is id,lower,upper,size[,offset])");
        }
      }
      continue;
    }

    if (fields.size() != field_count) {
      return LineError(line_number, "expected " + std::to_string(field_count) +
                                        " comma-separated fields, found " +
                                        std::to_string(fields.size()));
    }
    Block block;
    block.id = std::string(fields[column_of[kId]]);
    if (block.id.empty()) return LineError(line_number, "empty id");
    auto [it, inserted] = line_of_id.emplace(block.id, line_number);
    if (!inserted) {
      return LineError(line_number,
                       "id '" + block.id + "' already used on line " + std::to_string(it->second));
    }
    std::string_view lower = fields[column_of[kLower]];
    std::string_view upper = fields[column_of[kUpper]];
    std::string_view size = fields[column_of[kSize]];
    if (!ParseInt(lower, &block.lifespan.begin)) {
      return LineError(line_number, "lower '" + std::string(lower) + "' is not an integer");
    }
    if (!ParseInt(upper, &block.lifespan.end)) {
      return LineError(line_number, "upper '" + std::string(upper) + "' is not an integer");
    }
    if (block.lifespan.end < block.lifespan.begin) {
      return LineError(line_number, "upper " + std::string(upper) + " is below lower " +
                                        std::string(lower) + " (the lifespan is [lower, upper))");
    }
    if (!ParseInt(size, &block.size)) {
      return LineError(line_number,
                       "size '" + std::string(size) + "' is not a non-negative integer");
    }
    if (column_of[kOffset] >= 0 && !fields[column_of[kOffset]].empty()) {
      std::string_view offset = fields[column_of[kOffset]];
      Offset value = 0;
      if (!ParseInt(offset, &value)) {
        return LineError(line_number,
                         "offset '" + std::string(offset) + "' is not a non-negative integer");
      }
      block.fixed_offset = value;
    }
    problem.blocks.push_back(std::move(block));
  }
  if (!have_header) return Error{"empty file: expected the header id,lower,upper,size"};
  return problem;
}

Result<BlockProblem> ReadBlockCsvFile(const std::filesystem::path& path) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) return Error{"cannot read: is a directory"};
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{std::string("cannot read: ") + std::strerror(errno)};
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return Error{std::string("cannot read: ") + std::strerror(errno)};
  return ParseBlockCsv(text.str());
}

std::string FormatBlockCsv(const BlockProblem& problem, const BlockSolution& solution) {
  std::string out = "id,lower,upper,size,offset\n";
  for (size_t i = 0; i < problem.blocks.size(); ++i) {
    const Block& block = problem.blocks[i];
    out += block.id + ',' + std::to_string(block.lifespan.begin) + ',' +
           std::to_string(block.lifespan.end) + ',' + std::to_string(block.size) + ',' +
           std::to_string(i < solution.offsets.size() ? solution.offsets[i] : 0) + '\n';
  }
  return out;
}

}  // namespace pteshare

// What every function of the module takes first: a path (str or
// os.PathLike) or the program's bytes (bytes, bytearray, memoryview: the
// `buffer` of ExecuTorch's program manager after `to_executorch()`), read
// in memory with no temporary file.
#pragma once

#include <pybind11/pybind11.h>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "rewriter/open_program.h"

namespace pteshare::python {

class Source {
 public:
  /// Raises TypeError for anything else.
  explicit Source(const pybind11::object& source);
  Source(const Source&) = delete;  // bytes() may point into copy_
  Source& operator=(const Source&) = delete;

  bool is_bytes() const { return path_.empty(); }
  /// The path as given (what the CLI names in its messages); empty for bytes.
  const std::string& path() const { return path_; }
  /// The bytes (valid while this Source lives).
  std::span<const uint8_t> bytes() const { return bytes_; }

  /// Opens the program (a rolled-back interrupted rewrite is a warning, as
  /// the CLI prints it); raises BadInputError naming the file.
  OpenedProgram Open() const;

 private:
  std::string path_;
  pybind11::object owner_;     // an immutable bytes object we read in place
  std::vector<uint8_t> copy_;  // the bytes of a mutable buffer, copied
  std::span<const uint8_t> bytes_;
};

/// Warns (a Python UserWarning) with the CLI's note line for `file`.
void Warn(const std::string& file, const std::string& message);

}  // namespace pteshare::python

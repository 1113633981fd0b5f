// PteFile: a .pte file memory-mapped through Boost.Interprocess, with its
// layout checked and its flatbuffer verified before anyone reads a field.
// Segment bytes are mapped but never touched, so opening a file with
// gigabytes of weights costs only the flatbuffer's pages.
#pragma once

#include <filesystem>
#include <memory>
#include <span>

#include "rewriter/pte_layout.h"
#include "rewriter/result.h"

namespace boost::interprocess {
class file_mapping;
class mapped_region;
}  // namespace boost::interprocess

namespace pteshare {

class PteFile {
 public:
  enum class Mode { kReadOnly, kReadWrite };

  /// Maps `path` and checks it (see ReadPteLayout). Errors say what is wrong
  /// without the file name (callers add it).
  static Result<PteFile> Open(const std::filesystem::path& path, Mode mode = Mode::kReadOnly);

  PteFile(PteFile&&) noexcept;
  PteFile& operator=(PteFile&&) noexcept;
  ~PteFile();

  const std::filesystem::path& path() const { return path_; }
  Mode mode() const { return mode_; }
  /// The whole file.
  std::span<const uint8_t> bytes() const { return {data_, size_}; }
  /// The whole file, writable through the mapping (kReadWrite only).
  std::span<uint8_t> mutable_bytes();
  /// [0, program_size): the verified flatbuffer.
  std::span<const uint8_t> program_bytes() const { return {data_, layout_.program_size}; }
  const PteLayout& layout() const { return layout_; }
  /// The verified root table; valid while this PteFile lives.
  const fb::Program* program() const { return program_; }

  /// Writes dirty pages back and waits for them (msync); kReadWrite only.
  Status Flush();

 private:
  PteFile() = default;

  std::filesystem::path path_;
  Mode mode_ = Mode::kReadOnly;
  std::unique_ptr<boost::interprocess::file_mapping> mapping_;
  std::unique_ptr<boost::interprocess::mapped_region> region_;
  uint8_t* data_ = nullptr;
  size_t size_ = 0;
  PteLayout layout_;
  const fb::Program* program_ = nullptr;
};

}  // namespace pteshare

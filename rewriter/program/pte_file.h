// PteFile: a .pte file with its layout checked and its flatbuffer verified
// before anyone reads a field.
//
// The flatbuffer [0, program_size) is read with pread into private memory,
// inside an anonymous reservation as large as the file whose segment part
// is never touched (so opening a file with gigabytes of weights costs only
// the flatbuffer's bytes). Nothing reads the file through a shared mapping:
// the bytes verified are the bytes every later stage reads and patches, even
// if another process writes the file meanwhile, and a file truncated while
// pteshare reads it gives a clean error (a short read), never SIGBUS. A
// mapping would skip the copy (2.5x faster over the corpus, open_bench) but
// keeps neither promise; docs/design.md, "Reading a program". Segment bytes
// are not in the snapshot: the writer copies them from the file itself.
//
// A bundled program (.bpte, bundle.h) is read whole (its flatbuffer holds
// the program's segments too, and is verified before its offsets are
// used); the PteFile is then the program inside: bytes(), layout() and
// program() describe that program, bundle() says where it lies. Bundles
// are rewritten as a new file (bundle_writer.h).
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <span>

#include "rewriter/base/result.h"
#include "rewriter/program/bundle.h"
#include "rewriter/program/pte_layout.h"

namespace pteshare {

class PteFile {
 public:
  /// Reads `path` and checks it (see ReadPteLayout). Errors say what is
  /// wrong without the file name (callers add it).
  static Result<PteFile> Open(const std::filesystem::path& path);
  /// The same checks on bytes in memory, which the PteFile borrows (they
  /// must outlive it): a program or a bundle, path() empty.
  static Result<PteFile> FromBytes(std::span<const uint8_t> bytes);

  PteFile(PteFile&&) noexcept;
  PteFile& operator=(PteFile&&) noexcept;
  ~PteFile();

  const std::filesystem::path& path() const { return path_; }
  /// The whole file's extent: [0, program_size) holds the bytes read at
  /// Open (plus up to 4 KiB after them); the rest reads as zeros.
  std::span<const uint8_t> bytes() const { return {data_, size_}; }
  /// [0, program_size): the verified flatbuffer.
  std::span<const uint8_t> program_bytes() const { return {data_, layout_.program_size}; }
  const PteLayout& layout() const { return layout_; }
  /// The verified root table; valid while this PteFile lives.
  const fb::Program* program() const { return program_; }
  /// Set when the file is a bundle and this is the program inside it.
  const std::optional<BundleInfo>& bundle() const { return bundle_; }
  /// The whole bundle file (empty when the file is no bundle).
  std::span<const uint8_t> bundle_bytes() const;

 private:
  PteFile() = default;
  /// A bundle's bytes become its program's (bundle_ set); others stay.
  Status EnterBundle();
  /// Checks the layout of bytes() and verifies the flatbuffer.
  Status ReadLayout();
  struct Snapshot;  // the read-only copy and the descriptor it came from
  static Result<std::unique_ptr<Snapshot>> ReadSnapshot(const std::filesystem::path& path,
                                                        uint64_t size);

  std::filesystem::path path_;
  std::unique_ptr<Snapshot> snapshot_;
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
  PteLayout layout_;
  const fb::Program* program_ = nullptr;
  std::optional<BundleInfo> bundle_;
};

}  // namespace pteshare

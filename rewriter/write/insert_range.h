// A gap opened inside a file without copying what follows it:
// fallocate(FALLOC_FL_INSERT_RANGE) makes the filesystem shift the file's
// extents up by `length` (ext4, XFS: metadata only, no data block is read or
// written), leaving `length` zero bytes at `offset`;
// FALLOC_FL_COLLAPSE_RANGE undoes it. Both need `offset` and `length` to be
// multiples of the filesystem block; gaps here are always at a multiple of
// kGapUnit and a multiple of it long, so any block size dividing 4096 works,
// and the result does not depend on the filesystem. Nothing here knows
// about .pte files (gap_writes.h puts a patch around a gap).
#pragma once

#include <cstdint>
#include <span>

#include "rewriter/base/result.h"
#include "rewriter/io/file_system.h"

namespace pteshare {

/// Gaps start at, and are, whole multiples of this.
inline constexpr uint64_t kGapUnit = 4096;

/// `length` bytes inserted at `offset`: the byte at x >= offset moves to
/// x + length.
struct FileGap {
  uint64_t offset = 0;
  uint64_t length = 0;

  bool operator==(const FileGap&) const = default;
};

enum class GapOpened {
  kInserted,     // the extents were shifted (or the gap was at the end: grown)
  kUnsupported,  // this filesystem cannot insert a range; nothing changed
};

/// Opens `gap` in the `file_size`-byte file `fd`. A gap at or past the end
/// of the file is made by growing it. kUnsupported for the errors that mean
/// "not on this filesystem" (EOPNOTSUPP, ENOSYS, EINVAL for a block size
/// that does not divide 4096); other errors are returned.
Result<GapOpened> OpenGap(int fd, const FileGap& gap, uint64_t file_size,
                          FileSystem& files = RealFileSystem::Instance());

/// Removes `gap` from `fd`, whose size without the gap is `size_without`:
/// FALLOC_FL_COLLAPSE_RANGE, or truncation when the gap was at the end.
Status CloseGap(int fd, const FileGap& gap, uint64_t size_without,
                FileSystem& files = RealFileSystem::Instance());

/// Reads [offset, offset + bytes.size()) of `fd` as it will read once `gap`
/// is open (zeros inside the gap), without opening it.
Status ReadAsIfOpen(int fd, const FileGap& gap, uint64_t offset, std::span<uint8_t> bytes,
                    FileSystem& files = RealFileSystem::Instance());

}  // namespace pteshare

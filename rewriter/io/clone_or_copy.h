// CloneOrCopyRange: a byte range of one file put at an offset of another,
// its blocks shared where the file system can share them (a reflink on XFS
// or btrfs) and copied in the kernel where it cannot (ext4, tmpfs, another
// file system).
//
// A clone (FICLONERANGE) takes whole blocks at block-aligned offsets in
// both files. `-o` moves the segments by a multiple of 4096
// (kSegmentShiftUnit), so the source and destination offsets of a range are
// congruent mod 4096 but not aligned (the exporter aligns the segment base
// to 128 only): the head up to the first 4096 boundary is copied, the
// aligned middle cloned, the tail after the last boundary copied. Copying
// the partial blocks, not cloning them whole, also leaves the destination's
// bytes beside the range as they were (a clone of a whole block would bring
// the source's neighbouring bytes along).
//
// A clone the file system refuses as unsupported (EOPNOTSUPP, ENOTTY, EXDEV,
// EINVAL: no reflink, another file system, blocks larger than 4096) is
// copied instead (FileSystem::CopyRange: copy_file_range, then sendfile,
// then read/write); any other failure (EIO, ENOSPC) is the result. Every
// call goes through `files` (file_system.h), so a test can fail each.
#pragma once

#include <cstdint>

#include "rewriter/base/result.h"
#include "rewriter/io/file_io.h"
#include "rewriter/io/file_system.h"

namespace pteshare {

/// The unit a clone is aligned to: the block size of XFS and btrfs (and of
/// ext4, which cannot clone). A file system with larger blocks refuses the
/// clone (EINVAL) and the range is copied.
inline constexpr uint64_t kCloneBlock = 4096;

/// Ranges are cloned this much per call, so that progress (and a test's
/// crash point) comes between calls as it does between copied chunks.
inline constexpr uint64_t kCloneChunk = uint64_t{64} << 20;

/// How the bytes of a range got there; shared + copied is its length.
struct RangeCopied {
  uint64_t shared = 0;  // cloned: the destination shares the source's blocks
  uint64_t copied = 0;  // by FileSystem::CopyRange (which keeps holes, and
                        // may share blocks itself: copy_file_range does
                        // where the file system can and the offsets allow)
};

/// Puts [from_offset, +length) of `from` at `to_offset` of `to` (see above).
/// The destination range must read as zeros already (freshly extended with
/// ftruncate), as CopyRange requires. `progress` (may be empty) gets the
/// bytes done so far after every chunk.
Result<RangeCopied> CloneOrCopyRange(FileSystem& files, int from, uint64_t from_offset, int to,
                                     uint64_t to_offset, uint64_t length,
                                     const CopyProgress& progress = {});

}  // namespace pteshare

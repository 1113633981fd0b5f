// Gap writes: a PatchSet whose segments move, as an in-place rewrite applies
// it by opening a gap (insert_range.h) instead of copying the segments.
//
// The shift is a whole number of kSegmentShiftUnit (patcher.h), but the
// segment base is in general not on a 4096 boundary (the exporter aligns it
// to 128), so the gap opens at the last kGapUnit boundary G at or below the
// old segment base. That moves [G, old base) too: the tail of the
// flatbuffer and the slack. So one write covers [G, new segment base), the
// bytes the result has there (flatbuffer tail with its patches, appended
// tables, zeros); it is under 8 KiB. Writes below G are the patch's own.
// The bytes are those WritePatchedCopy writes: -o and --in-place agree.
#pragma once

#include <vector>

#include "rewriter/base/result.h"
#include "rewriter/io/file_system.h"
#include "rewriter/patch/patcher.h"
#include "rewriter/write/insert_range.h"

namespace pteshare {

/// The gap that makes room for `patch` (segments_move() must hold).
FileGap GapFor(const PatchSet& patch);

/// The writes that turn the file `fd` (still without the gap) into the
/// result once `gap` is open, sorted by offset, in the coordinates of the
/// file with the gap open.
Result<std::vector<ByteOverwrite>> WritesAroundGap(int fd, const PatchSet& patch,
                                                   const FileGap& gap,
                                                   FileSystem& files = RealFileSystem::Instance());

}  // namespace pteshare

#include "rewriter/write/insert_range.h"

#include <fcntl.h>
#include <linux/falloc.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>

#include "rewriter/base/grouped.h"

namespace pteshare {
namespace {

std::string Describe(const FileGap& gap) {
  return Grouped(gap.length) + " bytes at offset " + Grouped(gap.offset);
}

bool CannotInsertHere(int err) { return err == EOPNOTSUPP || err == ENOSYS || err == EINVAL; }

}  // namespace

Result<GapOpened> OpenGap(int fd, const FileGap& gap, uint64_t file_size, FileSystem& files) {
  if (gap.offset >= file_size) {
    // Nothing lies after the gap: growing the file opens it.
    Status grown = files.Truncate(fd, gap.offset + gap.length);
    if (!grown.ok()) return grown.error();
    return GapOpened::kInserted;
  }
  const int err = files.Allocate(fd, FALLOC_FL_INSERT_RANGE, gap.offset, gap.length);
  if (err == 0) return GapOpened::kInserted;
  if (CannotInsertHere(err)) return GapOpened::kUnsupported;
  return Error{"inserting " + Describe(gap) + " failed: " + std::strerror(err)};
}

Status CloseGap(int fd, const FileGap& gap, uint64_t size_without, FileSystem& files) {
  if (gap.offset >= size_without) return files.Truncate(fd, size_without);
  if (const int err = files.Allocate(fd, FALLOC_FL_COLLAPSE_RANGE, gap.offset, gap.length);
      err != 0) {
    return Error{"removing the inserted " + Describe(gap) + " failed: " + std::strerror(err)};
  }
  return Status::Ok();
}

Status ReadAsIfOpen(int fd, const FileGap& gap, uint64_t offset, std::span<uint8_t> bytes,
                    FileSystem& files) {
  const uint64_t end = offset + bytes.size();
  const uint64_t gap_end = gap.offset + gap.length;
  // Below the gap: where it is now.
  if (offset < gap.offset) {
    const uint64_t n = std::min(end, gap.offset) - offset;
    Status read = files.ReadAt(fd, offset, bytes.first(n));
    if (!read.ok()) return read;
  }
  // Inside: zeros.
  const uint64_t zero_from = std::max(offset, gap.offset), zero_to = std::min(end, gap_end);
  if (zero_from < zero_to) {
    std::fill(bytes.begin() + static_cast<ptrdiff_t>(zero_from - offset),
              bytes.begin() + static_cast<ptrdiff_t>(zero_to - offset), 0);
  }
  // Above: `length` lower now.
  if (end > gap_end) {
    const uint64_t from = std::max(offset, gap_end);
    return files.ReadAt(fd, from - gap.length, bytes.subspan(from - offset));
  }
  return Status::Ok();
}

}  // namespace pteshare

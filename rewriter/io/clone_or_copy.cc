#include "rewriter/io/clone_or_copy.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>

namespace pteshare {
namespace {

// The errors of a clone the file system cannot make here, as opposed to one
// that failed: the range is copied instead.
bool CloneUnsupported(int err) {
  return err == EOPNOTSUPP || err == ENOTTY || err == EXDEV || err == EINVAL || err == ENOSYS ||
         err == EBADF || err == ETXTBSY;
}

// The same range split at the 4096 boundaries: [0, head) copied, [head,
// head + middle) cloned, the rest copied. All of it copied when the offsets
// are not congruent or no whole block lies inside.
struct Split {
  uint64_t head = 0;
  uint64_t middle = 0;
};

Split SplitAtBlocks(uint64_t from_offset, uint64_t to_offset, uint64_t length) {
  if (from_offset % kCloneBlock != to_offset % kCloneBlock) return {length, 0};
  const uint64_t head = std::min(length, (kCloneBlock - from_offset % kCloneBlock) % kCloneBlock);
  const uint64_t middle = (length - head) / kCloneBlock * kCloneBlock;
  return middle == 0 ? Split{length, 0} : Split{head, middle};
}

}  // namespace

Result<RangeCopied> CloneOrCopyRange(FileSystem& files, int from, uint64_t from_offset, int to,
                                     uint64_t to_offset, uint64_t length,
                                     const CopyProgress& progress) {
  RangeCopied done;
  // Copies [at, at + n) of the range, reporting progress in the range's terms.
  auto copy = [&](uint64_t at, uint64_t n) -> Status {
    if (n == 0) return Status::Ok();
    const uint64_t before = done.shared + done.copied;
    Status copied =
        files.CopyRange(from, from_offset + at, to, to_offset + at, n, [&](uint64_t bytes) {
          if (progress) progress(before + bytes);
        });
    if (copied.ok()) done.copied += n;
    return copied;
  };
  const Split split = SplitAtBlocks(from_offset, to_offset, length);
  Status ok = copy(0, split.head);
  if (!ok.ok()) return ok.error();
  const uint64_t middle_end = split.head + split.middle;
  uint64_t at = split.head;
  while (at < middle_end) {
    const uint64_t n = std::min(kCloneChunk, middle_end - at);
    const int err = files.CloneRange(from, from_offset + at, to, to_offset + at, n);
    if (err != 0 && CloneUnsupported(err)) break;  // copied below
    if (err != 0) {
      return Error{"clone of " + std::to_string(n) + " bytes from offset " +
                   std::to_string(from_offset + at) + " failed: " + std::strerror(err)};
    }
    done.shared += n;
    at += n;
    if (progress) progress(done.shared + done.copied);
  }
  ok = copy(at, length - at);
  if (!ok.ok()) return ok.error();
  return done;
}

}  // namespace pteshare

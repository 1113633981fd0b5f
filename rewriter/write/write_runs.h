// Write runs: the few large reads and writes that carry a rewrite's many
// small ones. A rewrite changes a few bytes of every tensor (15,877 fields
// of `pte-synth llm --layers 512`), and a pread plus a pwrite per field was
// most of a large rewrite's system time. Writes lying close together are
// read back as one range, patched in memory and written once; the bytes
// between them are written with the value they already hold, so the file
// ends as the writes one by one would leave it.
//
// `-o` and `--in-place` both write runs; the in-place journal still records
// every write on its own (its old bytes sliced out of the runs' reads), so
// it stays as small as the changes.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "rewriter/base/result.h"
#include "rewriter/patch/patcher.h"

namespace pteshare {

/// Writes at most this far apart are joined (reading back 64 KiB is cheaper
/// than a system call more), into runs of at most kLongestWriteRun bytes.
inline constexpr uint64_t kJoinedWriteGap = uint64_t{64} << 10;
inline constexpr uint64_t kLongestWriteRun = uint64_t{4} << 20;

/// One run: `before` is what the file holds over [offset, offset + size),
/// `after` the same bytes with the run's writes applied.
struct WriteRun {
  uint64_t offset = 0;
  std::vector<uint8_t> before;
  std::vector<uint8_t> after;
  /// The writes it carries: writes[first_write, end_write).
  size_t first_write = 0;
  size_t end_write = 0;
};

/// Reads the bytes the file holds at `offset` into `into`.
using ReadFileBytes = std::function<Status(uint64_t offset, std::span<uint8_t> into)>;

/// The runs of `writes` (sorted by offset, disjoint), in order, each read
/// once with `read`.
Result<std::vector<WriteRun>> JoinIntoRuns(std::span<const ByteOverwrite> writes,
                                           const ReadFileBytes& read);

/// What the file held under `write`, one of the writes `run` carries.
std::span<const uint8_t> BytesBefore(const WriteRun& run, const ByteOverwrite& write);

}  // namespace pteshare

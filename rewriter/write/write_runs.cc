#include "rewriter/write/write_runs.h"

#include <algorithm>

namespace pteshare {

Result<std::vector<WriteRun>> JoinIntoRuns(std::span<const ByteOverwrite> writes,
                                           const ReadFileBytes& read) {
  std::vector<WriteRun> runs;
  for (size_t first = 0; first < writes.size();) {
    const uint64_t begin = writes[first].offset;
    uint64_t end = writes[first].end();
    size_t last = first + 1;
    for (; last < writes.size(); ++last) {
      const ByteOverwrite& w = writes[last];
      if (w.offset < end) return Error{"write runs: the writes overlap or are out of order"};
      if (w.offset - end > kJoinedWriteGap || w.end() - begin > kLongestWriteRun) break;
      end = w.end();
    }
    WriteRun run;
    run.offset = begin;
    run.first_write = first;
    run.end_write = last;
    run.before.resize(end - begin);
    Status got = read(begin, run.before);
    if (!got.ok()) return got.error();
    run.after = run.before;
    for (size_t k = first; k < last; ++k) {
      std::copy(writes[k].bytes.begin(), writes[k].bytes.end(),
                run.after.begin() + static_cast<ptrdiff_t>(writes[k].offset - begin));
    }
    runs.push_back(std::move(run));
    first = last;
  }
  return runs;
}

std::span<const uint8_t> BytesBefore(const WriteRun& run, const ByteOverwrite& write) {
  return std::span<const uint8_t>(run.before)
      .subspan(write.offset - run.offset, write.bytes.size());
}

}  // namespace pteshare

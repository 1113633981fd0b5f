// What `pteshare rewrite --share-auto` costs end to end, chained the way
// tools/pteshare/rewrite_command.cc chains it (open, plan, verify, patch,
// write), on SynthesizeLlm programs written to disk:
//  - Segments/*: an exporter-like program (the builder's default 128-byte
//    segment alignment) whose padding is smaller than the bytes the rewrite
//    appends, so the segments must move: the first SynthesizeLlm from 8
//    layers up for which that holds. A trailing segment of 1 MiB to 1 GiB of
//    real bytes (a pattern written once, so no hole makes a copy free).
//    --in-place must stay flat: it opens a gap under the segments
//    (FALLOC_FL_INSERT_RANGE) and writes only the flatbuffer bytes that
//    change; -o copies every segment byte and syncs it (or, where the file
//    system shares blocks, clones them: $PTESHARE_BENCH_DIR on an XFS). In place runs with
//    the file's pages cached after a read ("read") and not cached ("cold"):
//    opening the gap drops the cached pages after it (see Cache below).
//  - Segments/in_place_1GiB_vs_1MiB/{read,cold}: both sizes in one run,
//    alternating, with the ratio of their mean times as a counter (the
//    bound is 1.1 on ext4).
//  - Segments/copy_o_vs_in_place_1GiB: -o and in place of the 1 GiB
//    program alternately, pages not cached, the ratio as a counter (at
//    most 2 where the file system shares blocks: reflink_copy.sh).
//  - Plan/*, Verify/*, Rewrite/*: 8 to 256 layers; MakePlan per strategy,
//    VerifyPlan of that plan, and the whole rewrite -o. planned_tensors
//    counts the planned tensors of all methods.
// Times are wall-clock: fsync waits are part of the cost. In place times
// the rewrite alone (manual time); putting the input back is not timed.
// Input files live in ScratchDir, made once per run, removed at exit.
#include <fcntl.h>

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "rewriter/io/file_io.h"
#include "rewriter/open_program.h"
#include "rewriter/patch/patcher.h"
#include "rewriter/plan/planner.h"
#include "rewriter/verify/plan_verifier.h"
#include "rewriter/write/insert_range.h"
#include "rewriter/write/journal.h"
#include "rewriter/write/writer.h"
#include "rewriter/write/writer_lock.h"
#include "tests/bench/scratch_dir.h"
#include "tools/synth/program_builder.h"
#include "tools/synth/synth_llm.h"

namespace pteshare {
namespace {
namespace fs = std::filesystem;
using bench::ScratchDir;

constexpr uint64_t kMiB = uint64_t{1} << 20;

/// Overwrites [offset, offset + length) of `path` with pseudo-random bytes
/// (fixed seed, a different block every 8 MiB) and syncs them, so the
/// segment occupies real disk blocks and the page cache state is the same
/// for every size: clean pages, as after any write that finished.
Status FillWithPattern(const fs::path& path, uint64_t offset, uint64_t length) {
  Result<UniqueFd> fd = OpenFd(path, O_WRONLY);
  if (!fd.ok()) return fd.error();
  std::vector<uint8_t> block(8 * kMiB);
  std::mt19937_64 random(20240601);
  for (uint64_t done = 0; done < length; done += block.size()) {
    for (size_t i = 0; i + 8 <= block.size(); i += 8) {
      const uint64_t word = random();
      std::copy_n(reinterpret_cast<const uint8_t*>(&word), 8, block.data() + i);
    }
    const size_t n = static_cast<size_t>(std::min<uint64_t>(block.size(), length - done));
    Status written = WriteAt(fd->get(), offset + done, {block.data(), n});
    if (!written.ok()) return written;
  }
  return SyncFile(fd->get());
}

/// A whole-file copy in the kernel, then synced (outside any timed region).
Status CopyFile(const fs::path& from, const fs::path& to) {
  std::error_code ec;
  fs::remove(to, ec);
  Result<UniqueFd> in = OpenFd(from, O_RDONLY);
  if (!in.ok()) return in.error();
  Result<uint64_t> size = FileSize(in->get());
  if (!size.ok()) return size.error();
  Result<UniqueFd> out = OpenFd(to, O_RDWR | O_CREAT | O_TRUNC, 0644);
  if (!out.ok()) return out.error();
  Status grown = Truncate(out->get(), *size);
  if (!grown.ok()) return grown;
  Status copied = CopyRange(in->get(), 0, out->get(), 0, *size);
  if (!copied.ok()) return copied;
  return SyncFile(out->get());
}

/// An 8..256-layer LLM on disk; `trailing_bytes` of real data after its
/// segments. Written once per run and kept for every benchmark using it.
Result<fs::path> LlmFile(int32_t layers, uint64_t trailing_bytes) {
  static std::map<std::pair<int32_t, uint64_t>, fs::path> made;
  auto key = std::make_pair(layers, trailing_bytes);
  if (auto it = made.find(key); it != made.end()) return it->second;
  Result<synth::ProgramSpec> spec = synth::SynthesizeLlm({.layers = layers, .named = true});
  if (!spec.ok()) return spec.error();
  synth::BuildOptions options;
  options.trailing_segment_bytes = trailing_bytes;
  fs::path path = ScratchDir::Path() / ("llm-" + std::to_string(layers) + "-" +
                                        std::to_string(trailing_bytes / kMiB) + "MiB.pte");
  Result<synth::PteLayout> layout = synth::WritePteFile(*spec, options, path);
  if (!layout.ok()) return layout.error();
  if (trailing_bytes > 0) {
    Status filled = FillWithPattern(path, layout->file_size - trailing_bytes, trailing_bytes);
    if (!filled.ok()) return filled.error();
  }
  made.emplace(key, path);
  return path;
}

/// The layer count of the exporter-like program (see the top): the first
/// from 8 up whose relocate rewrite outgrows its padding.
Result<int32_t> OutgrowingLayers();

/// What the command needs from one plan: the plan, verified.
Result<PlanResult> PlanVerified(const ProgramView& view, Strategy strategy) {
  ShareRequest request;
  request.share_auto = true;
  // As the command: only relocate needs something to share.
  request.allow_none = strategy != Strategy::kRelocate;
  PlanOptions options;
  options.strategy = strategy;
  Result<PlanResult> input = MakePlan(view, request, options);
  if (!input.ok()) return input.error();
  if (!input->plan.limit_misses.empty()) return Error{input->plan.limit_misses.front()};
  std::vector<PlanViolation> violations = VerifyPlan(view, input->shared, input->plan);
  if (!violations.empty()) {
    return Error{"plan violates " + InvariantName(violations.front().invariant) + ": " +
                 violations.front().message};
  }
  return input;
}

/// What one rewrite did, for counters and sanity checks.
struct RewriteFacts {
  bool changed = false;
  bool segments_moved = false;
};

/// `pteshare rewrite FILE --share-auto -o OUT`, without the printing.
Result<RewriteFacts> RewriteToCopy(const fs::path& file, const fs::path& out, Strategy strategy) {
  Result<OpenedProgram> opened = OpenProgram(file);
  if (!opened.ok()) return opened.error();
  Result<PlanResult> input = PlanVerified(opened->view, strategy);
  if (!input.ok()) return input.error();
  Result<PatchSet> patch = MakePatchSet(opened->file.bytes(), opened->view, input->plan);
  if (!patch.ok()) return patch.error();
  Result<UniqueFd> source = OpenFd(file, O_RDONLY);
  if (!source.ok()) return source.error();
  Status written = WritePatchedCopy(source->get(), opened->file.layout(), *patch, input->plan, out);
  if (!written.ok()) return written.error();
  return RewriteFacts{!patch->empty(), patch->segments_move()};
}

/// `pteshare rewrite FILE --share-auto --in-place`, without the printing.
Result<RewriteFacts> RewriteInPlace(const fs::path& file, Strategy strategy) {
  // Taken before the program is opened so it outlives every descriptor the
  // program holds (closing one would drop the fcntl lock).
  Result<WriterLock> lock = WriterLock::Acquire(file);
  if (!lock.ok()) return lock.error();
  Result<Recovery> recovery = RecoverLocked(*lock);
  if (!recovery.ok()) return recovery.error();
  Result<OpenedProgram> opened = OpenProgram(file);
  if (!opened.ok()) return opened.error();
  Result<PlanResult> input = PlanVerified(opened->view, strategy);
  if (!input.ok()) return input.error();
  Result<PatchSet> patch = MakePatchSet(opened->file.bytes(), opened->view, input->plan);
  if (!patch.ok()) return patch.error();
  if (patch->empty()) return RewriteFacts{};
  Status written = WritePatchedInPlace(*lock, opened->file.layout(), *patch, input->plan);
  if (!written.ok()) return written.error();
  return RewriteFacts{true, patch->segments_move()};
}

Result<int32_t> OutgrowingLayers() {
  static std::optional<int32_t> found;
  if (found) return *found;
  for (int32_t layers = 8; layers <= 64; ++layers) {
    Result<fs::path> file = LlmFile(layers, kMiB);
    if (!file.ok()) return file.error();
    Result<OpenedProgram> opened = OpenProgram(*file);
    if (!opened.ok()) return opened.error();
    Result<PlanResult> input = PlanVerified(opened->view, Strategy::kRelocate);
    if (!input.ok()) return input.error();
    Result<PatchSet> patch = MakePatchSet(opened->file.bytes(), opened->view, input->plan);
    if (!patch.ok()) return patch.error();
    if (patch->segments_move()) return *(found = layers);
  }
  return Error{"no SynthesizeLlm of 8 to 64 layers outgrows its padding"};
}

/// Puts `work` back to the bytes of `pristine`. An in-place rewrite changed
/// only bytes before the segment base, and opened a gap at the last 4096
/// boundary below it if the segments moved: closing that gap again
/// (COLLAPSE_RANGE) and copying the prefix back is the exact inverse.
/// Anything else gets a whole copy.
Status Restore(const fs::path& pristine, const fs::path& work, uint64_t segment_base) {
  std::error_code ec;
  const uint64_t size = fs::file_size(pristine), now = fs::file_size(work, ec);
  if (ec) return CopyFile(pristine, work);
  Result<UniqueFd> out = OpenFd(work, O_RDWR);
  if (!out.ok()) return out.error();
  if (now > size && (now - size) % kGapUnit == 0) {
    Status closed = CloseGap(out->get(), {segment_base / kGapUnit * kGapUnit, now - size}, size);
    if (!closed.ok()) return closed;
  } else if (now != size) {
    return CopyFile(pristine, work);
  }
  Result<UniqueFd> in = OpenFd(pristine, O_RDONLY);
  if (!in.ok()) return in.error();
  std::vector<uint8_t> prefix(segment_base);
  Status read = ReadAt(in->get(), 0, prefix);
  if (!read.ok()) return read;
  Status written = WriteAt(out->get(), 0, prefix);
  if (!written.ok()) return written;
  return SyncFile(out->get());
}

/// The page cache state of a file before a timed in-place rewrite. Opening
/// a gap makes the kernel drop the file's cached pages after it (their
/// offsets change): nearly free for pages cached as large folios (after a
/// read, or large writes), about 0.1 s per GiB for 4 KiB pages (after a
/// copy_file_range), nothing for pages not cached. No segment byte is read
/// or written either way.
enum class Cache { kCold, kRead };

/// Puts `file` in `cache` state (untimed).
Status SetCache(const fs::path& file, Cache cache) {
  Result<UniqueFd> fd = OpenFd(file, O_RDONLY);
  if (!fd.ok()) return fd.error();
  if (::posix_fadvise(fd->get(), 0, 0, POSIX_FADV_DONTNEED) != 0) {
    return Error{"posix_fadvise failed"};
  }
  if (cache == Cache::kCold) return Status::Ok();
  std::vector<uint8_t> buffer(8 * kMiB);
  Result<uint64_t> size = FileSize(fd->get());
  if (!size.ok()) return size.error();
  for (uint64_t at = 0; at < *size; at += buffer.size()) {
    const size_t n = static_cast<size_t>(std::min<uint64_t>(buffer.size(), *size - at));
    Status read = ReadAt(fd->get(), at, {buffer.data(), n});
    if (!read.ok()) return read;
  }
  return Status::Ok();
}

uint64_t PlannedTensors(const fs::path& file) {
  Result<OpenedProgram> opened = OpenProgram(file);
  if (!opened.ok()) return 0;
  uint64_t count = 0;
  for (const MethodView& m : opened->view.methods) count += m.planned_count();
  return count;
}

/// One in-place rewrite of a working copy of `pristine`, timed; the copy is
/// put back (untimed) for the next. Fails if the rewrite changed nothing.
class InPlaceRun {
 public:
  static Result<InPlaceRun> Make(const fs::path& pristine, const std::string& name, Cache cache) {
    InPlaceRun run;
    run.cache_ = cache;
    run.pristine_ = pristine;
    run.work_ = ScratchDir::Path() / name;
    Status copied = CopyFile(pristine, run.work_);
    if (!copied.ok()) return copied.error();
    Result<OpenedProgram> opened = OpenProgram(pristine);
    if (!opened.ok()) return opened.error();
    run.segment_base_ = opened->file.layout().segment_base_offset;
    return run;
  }

  /// Seconds of one rewrite.
  Result<double> Once() {
    Status cached = SetCache(work_, cache_);
    if (!cached.ok()) return cached.error();
    const auto start = std::chrono::steady_clock::now();
    Result<RewriteFacts> facts = RewriteInPlace(work_, Strategy::kRelocate);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!facts.ok()) return facts.error();
    if (!facts->changed) return Error{"in-place rewrite changed nothing"};
    moved_ = moved_ || facts->segments_moved;
    Status restored = Restore(pristine_, work_, segment_base_);
    if (!restored.ok()) return restored.error();
    return seconds;
  }

  bool moved() const { return moved_; }
  ~InPlaceRun() {
    std::error_code ec;
    if (!work_.empty()) fs::remove(work_, ec);
  }
  InPlaceRun(InPlaceRun&& other) noexcept
      : pristine_(std::move(other.pristine_)),
        work_(std::exchange(other.work_, fs::path())),
        segment_base_(other.segment_base_),
        moved_(other.moved_),
        cache_(other.cache_) {}

 private:
  InPlaceRun() = default;
  fs::path pristine_, work_;
  uint64_t segment_base_ = 0;
  bool moved_ = false;
  Cache cache_ = Cache::kCold;
};

void BM_SegmentsInPlace(benchmark::State& state, Cache cache) {
  const uint64_t trailing = static_cast<uint64_t>(state.range(0)) * kMiB;
  Result<int32_t> layers = OutgrowingLayers();
  if (!layers.ok()) return state.SkipWithError(layers.error().message.c_str());
  Result<fs::path> pristine = LlmFile(*layers, trailing);
  if (!pristine.ok()) return state.SkipWithError(pristine.error().message.c_str());
  Result<InPlaceRun> run = InPlaceRun::Make(*pristine, "in-place.pte", cache);
  if (!run.ok()) return state.SkipWithError(run.error().message.c_str());
  for (auto _ : state) {
    Result<double> seconds = run->Once();
    if (!seconds.ok()) {
      state.SkipWithError(seconds.error().message.c_str());
      break;
    }
    state.SetIterationTime(*seconds);
  }
  state.counters["layers"] = *layers;
  state.counters["file_MiB"] = static_cast<double>(fs::file_size(*pristine)) / kMiB;
  state.counters["segments_moved"] = run->moved() ? 1 : 0;
}

// 1 MiB and 1 GiB alternately in one run, so both see the same machine
// load; the ratio of their mean times is the counter that matters.
void BM_InPlaceFlatness(benchmark::State& state, Cache cache) {
  Result<int32_t> layers = OutgrowingLayers();
  if (!layers.ok()) return state.SkipWithError(layers.error().message.c_str());
  Result<fs::path> small = LlmFile(*layers, kMiB), large = LlmFile(*layers, 1024 * kMiB);
  if (!small.ok() || !large.ok()) return state.SkipWithError("cannot write the inputs");
  Result<InPlaceRun> small_run = InPlaceRun::Make(*small, "flat-small.pte", cache);
  Result<InPlaceRun> large_run = InPlaceRun::Make(*large, "flat-large.pte", cache);
  if (!small_run.ok() || !large_run.ok()) return state.SkipWithError("cannot copy the inputs");
  double small_total = 0, large_total = 0;
  for (auto _ : state) {
    Result<double> a = small_run->Once();
    Result<double> b = large_run->Once();
    if (!a.ok() || !b.ok()) {
      state.SkipWithError((a.ok() ? b.error() : a.error()).message.c_str());
      break;
    }
    small_total += *a;
    large_total += *b;
    state.SetIterationTime(*a + *b);
  }
  const double n = static_cast<double>(state.iterations());
  state.counters["ms_1MiB"] = small_total / n * 1e3;
  state.counters["ms_1GiB"] = large_total / n * 1e3;
  state.counters["ratio_1GiB_1MiB"] = large_total / small_total;
  state.counters["segments_moved"] = small_run->moved() && large_run->moved() ? 1 : 0;
}

void BM_SegmentsCopy(benchmark::State& state) {
  const uint64_t trailing = static_cast<uint64_t>(state.range(0)) * kMiB;
  Result<int32_t> layers = OutgrowingLayers();
  if (!layers.ok()) return state.SkipWithError(layers.error().message.c_str());
  Result<fs::path> input = LlmFile(*layers, trailing);
  if (!input.ok()) return state.SkipWithError(input.error().message.c_str());
  const fs::path out = ScratchDir::Path() / "copy-out.pte";
  std::error_code ec;
  for (auto _ : state) {
    // Removing the last output is outside the timed region: a user's -o
    // to a fresh name does not pay for freeing a gigabyte.
    state.PauseTiming();
    fs::remove(out, ec);
    state.ResumeTiming();
    Result<RewriteFacts> facts = RewriteToCopy(*input, out, Strategy::kRelocate);
    if (!facts.ok()) {
      state.SkipWithError(facts.error().message.c_str());
      break;
    }
  }
  state.counters["file_MiB"] = static_cast<double>(fs::file_size(*input)) / kMiB;
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(fs::file_size(*input)));
  fs::remove(out, ec);
}

// -o and --in-place of one 1 GiB program alternately in one run, the
// input's pages dropped from the cache before each; the ratio of their mean
// times is the counter that matters: where the file system shares blocks,
// -o clones the segments (clone_or_copy.h) and stays within 2x of in place;
// elsewhere it copies them. PTESHARE_BENCH_DIR picks the file system
// (tests/bench/reflink_copy.sh runs it on ext4 and on XFS).
void BM_CopyVsInPlace(benchmark::State& state) {
  Result<int32_t> layers = OutgrowingLayers();
  if (!layers.ok()) return state.SkipWithError(layers.error().message.c_str());
  Result<fs::path> input = LlmFile(*layers, 1024 * kMiB);
  if (!input.ok()) return state.SkipWithError(input.error().message.c_str());
  Result<InPlaceRun> in_place = InPlaceRun::Make(*input, "vs-in-place.pte", Cache::kCold);
  if (!in_place.ok()) return state.SkipWithError(in_place.error().message.c_str());
  const fs::path out = ScratchDir::Path() / "vs-copy-out.pte";
  std::error_code ec;
  double copy_total = 0, in_place_total = 0;
  for (auto _ : state) {
    fs::remove(out, ec);  // a user's -o to a fresh name does not free a gigabyte
    Status cold = SetCache(*input, Cache::kCold);
    if (!cold.ok()) return state.SkipWithError(cold.error().message.c_str());
    const auto start = std::chrono::steady_clock::now();
    Result<RewriteFacts> copied = RewriteToCopy(*input, out, Strategy::kRelocate);
    const double copy_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!copied.ok()) return state.SkipWithError(copied.error().message.c_str());
    if (!copied->segments_moved) return state.SkipWithError("-o did not move the segments");
    Result<double> in_place_seconds = in_place->Once();
    if (!in_place_seconds.ok())
      return state.SkipWithError(in_place_seconds.error().message.c_str());
    copy_total += copy_seconds;
    in_place_total += *in_place_seconds;
    state.SetIterationTime(copy_seconds + *in_place_seconds);
  }
  fs::remove(out, ec);
  const double n = static_cast<double>(state.iterations());
  state.counters["ms_copy_o"] = copy_total / n * 1e3;
  state.counters["ms_in_place"] = in_place_total / n * 1e3;
  state.counters["ratio_copy_o_in_place"] = copy_total / in_place_total;
  state.counters["segments_moved"] = in_place->moved() ? 1 : 0;
}

void BM_Plan(benchmark::State& state, Strategy strategy) {
  Result<fs::path> file = LlmFile(static_cast<int32_t>(state.range(0)), 0);
  if (!file.ok()) return state.SkipWithError(file.error().message.c_str());
  Result<OpenedProgram> opened = OpenProgram(*file);
  if (!opened.ok()) return state.SkipWithError(opened.error().message.c_str());
  ShareRequest request;
  request.share_auto = true;
  request.allow_none = strategy != Strategy::kRelocate;
  PlanOptions options;
  options.strategy = strategy;
  for (auto _ : state) {
    Result<PlanResult> input = MakePlan(opened->view, request, options);
    if (!input.ok()) {
      state.SkipWithError(input.error().message.c_str());
      break;
    }
    benchmark::DoNotOptimize(input->plan.methods.data());
  }
  state.counters["planned_tensors"] = static_cast<double>(PlannedTensors(*file));
}

void BM_Verify(benchmark::State& state, Strategy strategy) {
  Result<fs::path> file = LlmFile(static_cast<int32_t>(state.range(0)), 0);
  if (!file.ok()) return state.SkipWithError(file.error().message.c_str());
  Result<OpenedProgram> opened = OpenProgram(*file);
  if (!opened.ok()) return state.SkipWithError(opened.error().message.c_str());
  Result<PlanResult> input = PlanVerified(opened->view, strategy);
  if (!input.ok()) return state.SkipWithError(input.error().message.c_str());
  for (auto _ : state) {
    std::vector<PlanViolation> violations = VerifyPlan(opened->view, input->shared, input->plan);
    benchmark::DoNotOptimize(violations.data());
  }
  state.counters["planned_tensors"] = static_cast<double>(PlannedTensors(*file));
}

void BM_RewriteCopy(benchmark::State& state, Strategy strategy) {
  Result<fs::path> input = LlmFile(static_cast<int32_t>(state.range(0)), 0);
  if (!input.ok()) return state.SkipWithError(input.error().message.c_str());
  const fs::path out = ScratchDir::Path() / "rewrite-out.pte";
  for (auto _ : state) {
    Result<RewriteFacts> facts = RewriteToCopy(*input, out, strategy);
    if (!facts.ok() || !facts->changed) {
      state.SkipWithError(facts.ok() ? "rewrite changed nothing" : facts.error().message.c_str());
      break;
    }
  }
  state.counters["planned_tensors"] = static_cast<double>(PlannedTensors(*input));
  state.counters["file_KiB"] = static_cast<double>(fs::file_size(*input)) / 1024;
  std::error_code ec;
  fs::remove(out, ec);
}

const bool registered = [] {
  const std::vector<int64_t> segment_mib = {1, 16, 256, 1024};
  auto* in_place_read =
      benchmark::RegisterBenchmark("Segments/in_place/read", BM_SegmentsInPlace, Cache::kRead);
  auto* in_place_cold =
      benchmark::RegisterBenchmark("Segments/in_place/cold", BM_SegmentsInPlace, Cache::kCold);
  auto* copy = benchmark::RegisterBenchmark("Segments/copy_o", BM_SegmentsCopy);
  for (int64_t mib : segment_mib) {
    for (auto* b : {in_place_read, in_place_cold, copy}) b->Arg(mib);
  }
  for (auto* b : {in_place_read, in_place_cold}) b->UseManualTime()->Iterations(20);
  copy->UseRealTime();
  for (auto* b : {in_place_read, in_place_cold, copy}) {
    b->ArgName("segment_MiB")->Unit(benchmark::kMillisecond);
  }
  for (auto [name, cache] : {std::pair{"read", Cache::kRead}, std::pair{"cold", Cache::kCold}}) {
    benchmark::RegisterBenchmark((std::string("Segments/in_place_1GiB_vs_1MiB/") + name).c_str(),
                                 BM_InPlaceFlatness, cache)
        ->UseManualTime()
        ->Iterations(20)
        ->Unit(benchmark::kMillisecond);
  }

  benchmark::RegisterBenchmark("Segments/copy_o_vs_in_place_1GiB", BM_CopyVsInPlace)
      ->UseManualTime()
      ->Iterations(10)
      ->Unit(benchmark::kMillisecond);

  const std::vector<int64_t> layers = {8, 32, 64, 128, 256, 512, 1024};
  for (Strategy strategy : {Strategy::kRelocate, Strategy::kReplan, Strategy::kBest}) {
    const std::string name = StrategyName(strategy);
    for (auto* b : {
             benchmark::RegisterBenchmark(("Plan/" + name).c_str(), BM_Plan, strategy),
             benchmark::RegisterBenchmark(("Verify/" + name).c_str(), BM_Verify, strategy),
         }) {
      for (int64_t n : layers) b->Arg(n);
      b->ArgName("layers")->Unit(benchmark::kMillisecond)->UseRealTime();
    }
  }
  // The whole rewrite as `pteshare rewrite` runs it by default (best) and
  // as the library defaults to (relocate).
  for (Strategy strategy : {Strategy::kRelocate, Strategy::kBest}) {
    auto* b = benchmark::RegisterBenchmark(
        (std::string("Rewrite/copy_o/") + StrategyName(strategy)).c_str(), BM_RewriteCopy,
        strategy);
    for (int64_t n : layers) b->Arg(n);
    b->ArgName("layers")->Unit(benchmark::kMillisecond)->UseRealTime();
  }
  return true;
}();

}  // namespace
}  // namespace pteshare

// BENCHMARK_MAIN, plus removing the scratch folder with its gigabyte files.
int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  pteshare::bench::ScratchDir::Remove();
  return 0;
}

// The host report: runs the checker (check.h) with scratch from the heap,
// collects its findings and summaries, and writes each finding's message
// (finding_text.h). Nothing escapes as an exception.
#include "runtime_check/alias_check.h"

#include <exception>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "runtime_check/finding_text.h"

namespace pteshare::runtime_check {
namespace {

using internal::ToString;

core::Text TextOf(const std::string& s) {
  return core::Text(s.data(), static_cast<uint32_t>(s.size()));
}

// Collects what the checker reports; messages are written once the check
// is over, when every shared buffer's methods are known.
class ReportSink : public core::Sink {
 public:
  explicit ReportSink(Report* report) : report_(report) {}

  void OnFinding(const core::Finding& finding) override { found_.push_back(finding); }

  void OnMethod(const core::MethodSummary& method) override {
    MethodArenas arenas;
    arenas.name = ToString(method.name);
    for (uint32_t id = 1; id <= method.arena_count; ++id) {
      arenas.arena_sizes.push_back(method.ArenaSize(id));
    }
    arenas.planned_tensors = method.planned_tensors;
    report_->methods.push_back(std::move(arenas));
  }

  void OnSharedBuffer(const core::SharedBufferSummary& buffer) override {
    SharedBuffer shared;
    shared.name = ToString(buffer.name);
    shared.placement = buffer.placement;
    shared.paired = buffer.paired;
    report_->shared.push_back(std::move(shared));
  }

  void OnOccurrence(const core::Occurrence& occurrence) override {
    SharedBuffer& buffer = report_->shared.back();
    const std::string method = ToString(occurrence.method);
    if (buffer.methods.empty() || buffer.methods.back() != method) buffer.methods.push_back(method);
    std::vector<std::string>& stateful = buffer.methods_with_initial_state;
    if (occurrence.has_initial_state && (stateful.empty() || stateful.back() != method)) {
      stateful.push_back(method);
    }
  }

  // The findings, with their messages, into the report.
  void Finish() {
    for (const core::Finding& f : found_) {
      Finding finding;
      finding.kind = f.kind;
      finding.severity = f.severity;
      finding.method = ToString(f.method);
      finding.value_index = f.value_index;
      finding.name = ToString(f.name);
      finding.placement = f.placement;
      finding.reference_method = ToString(f.reference_method);
      finding.reference_value_index = f.reference_value_index;
      finding.reference = f.reference;
      finding.expected = f.expected;
      finding.actual = f.actual;
      finding.message = internal::FindingMessage(f, report_->shared);
      report_->findings.push_back(std::move(finding));
    }
  }

 private:
  Report* report_;
  std::vector<core::Finding> found_;
};

// The options as the checker takes them: views into `options`, which
// outlives the check.
struct CoreOptions {
  std::vector<core::Text> shared_names;
  std::vector<core::ValueNaming> value_names;
  core::Options options;

  explicit CoreOptions(const CheckOptions& given) {
    for (const std::string& name : given.shared_names) shared_names.push_back(TextOf(name));
    for (const ValueNaming& naming : given.extra_names) {
      value_names.push_back({TextOf(naming.method), naming.value_index, TextOf(naming.name)});
    }
    options.shared_names = shared_names.data();
    options.shared_name_count = shared_names.size();
    options.value_names = value_names.data();
    options.value_name_count = value_names.size();
  }
};

// The scratch, from the heap, once the checker has counted the program:
// uninitialized, so pages it never touches cost nothing.
struct HeapScratch {
  std::unique_ptr<uint64_t[]> memory;

  static void* Allocate(size_t bytes, void* context) {
    auto* self = static_cast<HeapScratch*>(context);
    self->memory.reset(new (std::nothrow) uint64_t[bytes / 8 + 1]);
    return self->memory.get();
  }
  core::Scratch Span() { return core::Scratch{nullptr, 0, &HeapScratch::Allocate, this}; }
};

// The checker allocates nothing; the report does (strings, vectors): out of
// memory must still come back as a finding, not as an exception through a
// C++17 loader.
template <typename Check>
Report Guarded(Check check) noexcept {
  Report report;
  try {
    ReportSink sink(&report);
    HeapScratch scratch;
    const core::Result result = check(sink, scratch.Span());
    sink.Finish();
    report.completed = result.completed;
    report.scratch_bytes = result.scratch_needed;
  } catch (const std::exception& e) {
    // Free what the check built, so the finding below has room.
    std::vector<Finding>().swap(report.findings);
    std::vector<MethodArenas>().swap(report.methods);
    std::vector<SharedBuffer>().swap(report.shared);
    report.completed = false;
    try {
      Finding finding;
      finding.kind = FindingKind::kInternalError;
      finding.message = std::string("the check stopped: ") + e.what();
      report.findings.push_back(std::move(finding));
    } catch (...) {
      // Not even the finding fits: `completed` alone says it failed.
    }
  }
  return report;
}

}  // namespace

Report CheckProgram(const void* data, size_t size, const CheckOptions& options) noexcept {
  return Guarded([&](core::Sink& sink, core::Scratch scratch) {
    const CoreOptions core_options(options);
    return core::Check(data, size, core_options.options, scratch, sink);
  });
}

Report CheckBindings(const void* data, size_t size, const CheckOptions& options,
                     const std::vector<MethodBinding>& bindings) noexcept {
  return Guarded([&](core::Sink& sink, core::Scratch scratch) {
    const CoreOptions core_options(options);
    std::vector<core::MethodBinding> bound;
    for (const MethodBinding& binding : bindings) {
      bound.push_back({TextOf(binding.method), binding.arenas.data(), binding.arenas.size()});
    }
    return core::CheckBindings(data, size, core_options.options, bound.data(), bound.size(),
                               scratch, sink);
  });
}

}  // namespace pteshare::runtime_check

#include "tools/synth/program_builder.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "tools/synth/extended_header.h"
#include "tools/synth/program_serializer.h"
#include "tools/synth/segment_data.h"

namespace pteshare::synth {
namespace {

uint64_t AlignUp(uint64_t value, uint64_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

bool IsPowerOfTwo(uint64_t value) { return value != 0 && (value & (value - 1)) == 0; }

Status CheckOptions(const BuildOptions& options) {
  if (!IsPowerOfTwo(options.segment_alignment)) {
    return Error{"segment alignment " + std::to_string(options.segment_alignment) +
                 " is not a power of two"};
  }
  if (!IsPowerOfTwo(options.constant_alignment)) {
    return Error{"constant alignment " + std::to_string(options.constant_alignment) +
                 " is not a power of two"};
  }
  return Status::Ok();
}

/// Constants and initial states must match their tensor's size, and a
/// constant cannot also have a placement (the runtime would ignore one).
Status CheckTensorData(const ProgramSpec& spec) {
  for (const MethodSpec& method : spec.methods) {
    for (size_t v = 0; v < method.values.size(); ++v) {
      const auto* tensor = std::get_if<Tensor>(&method.values[v]);
      if (tensor == nullptr) continue;
      const std::string where = "method " + method.name + ", value " + std::to_string(v);
      for (const auto* data : {&tensor->constant_data, &tensor->initial_state}) {
        if (*data && (*data)->size() != TensorNbytes(*tensor)) {
          return Error{where + ": data has " + std::to_string((*data)->size()) +
                       " bytes, tensor has " + std::to_string(TensorNbytes(*tensor))};
        }
      }
      if (tensor->constant_data && tensor->initial_state) {
        return Error{where + ": a tensor cannot be both constant and mutable"};
      }
      if (tensor->constant_data && !std::holds_alternative<NotPlanned>(tensor->memory) &&
          !std::holds_alternative<PlanInArena>(tensor->memory)) {
        return Error{where + ": a constant cannot have a placement"};
      }
    }
  }
  return Status::Ok();
}

/// Segment layout as the exporter makes it: constants first (always, even
/// when empty), then initial states, then the optional trailing segment,
/// each starting at a multiple of segment_alignment from the base.
struct SegmentPlan {
  std::vector<SegmentEntry> entries;
  bool has_mutable = false;
  uint32_t mutable_index = 0;
  uint64_t data_size = 0;  // end of the last segment
};

SegmentPlan PlanSegments(const SegmentData& data, const BuildOptions& options) {
  SegmentPlan plan;
  auto add = [&](uint64_t size) {
    uint64_t offset = plan.entries.empty() ? 0 : AlignUp(plan.data_size, options.segment_alignment);
    plan.entries.push_back(SegmentEntry{offset, size});
    plan.data_size = offset + size;
  };
  add(data.constants.bytes.size());
  if (data.mutable_states.blob_count() > 1) {
    plan.has_mutable = true;
    plan.mutable_index = static_cast<uint32_t>(plan.entries.size());
    add(data.mutable_states.bytes.size());
  }
  if (options.trailing_segment_bytes > 0) add(options.trailing_segment_bytes);
  return plan;
}

void AppendAt(std::vector<uint8_t>& out, uint64_t at, const std::vector<uint8_t>& bytes) {
  out.resize(at, 0);
  out.insert(out.end(), bytes.begin(), bytes.end());
}

}  // namespace

Result<BuiltPte> BuildPte(const ProgramSpec& spec, const BuildOptions& options) {
  if (Status status = CheckOptions(options); !status) return status.error();
  if (Status status = CheckTensorData(spec); !status) return status.error();

  BuiltPte built;
  for (const MethodSpec& method : spec.methods) {
    Result<MethodPlacements> placements = PlanMethod(method, options.plan_alignment);
    if (!placements.ok()) return placements.error();
    built.layout.placements.push_back(std::move(*placements));
  }
  SegmentData data = CollectSegmentData(spec, options.constant_alignment);

  SerializeInputs inputs;
  inputs.spec = &spec;
  inputs.placements = &built.layout.placements;
  inputs.data = &data;
  inputs.force_defaults = options.force_defaults;
  inputs.newer_exporter_fields = options.newer_exporter_fields;

  if (!options.extended_header) {
    if (data.mutable_states.blob_count() > 1 || options.trailing_segment_bytes > 0) {
      return Error{"initial state and extra segments need the extended header (" +
                   std::to_string(data.mutable_states.blob_count() - 1) + " initial states, " +
                   std::to_string(options.trailing_segment_bytes) + " trailing bytes)"};
    }
    built.bytes = SerializeProgram(inputs);
    built.layout.program_size = built.bytes.size();
    built.layout.file_size = built.bytes.size();
    return built;
  }

  SegmentPlan segments = PlanSegments(data, options);
  inputs.segments = segments.entries;
  inputs.has_mutable_segment = segments.has_mutable;
  inputs.mutable_segment_index = segments.mutable_index;
  std::vector<uint8_t> flatbuffer = SerializeProgram(inputs);

  ExtendedHeaderFields header;
  header.program_size = flatbuffer.size() + kExtendedHeaderLength;
  header.segment_base_offset = AlignUp(header.program_size, options.segment_alignment);
  header.segment_data_size = segments.data_size;
  built.bytes = InsertExtendedHeader(flatbuffer, header);

  const uint64_t base = header.segment_base_offset;
  AppendAt(built.bytes, base + segments.entries[0].offset, data.constants.bytes);
  if (segments.has_mutable) {
    AppendAt(built.bytes, base + segments.entries[segments.mutable_index].offset,
             data.mutable_states.bytes);
  }
  // Pad to the trailing segment's start (or the base, for an empty file
  // tail) so the file is never shorter than the header says, apart from
  // the trailing zeros the caller adds.
  uint64_t written_end = base + segments.data_size - options.trailing_segment_bytes;
  if (built.bytes.size() < written_end) built.bytes.resize(written_end, 0);

  built.layout.program_size = header.program_size;
  built.layout.segment_base_offset = header.segment_base_offset;
  built.layout.segment_data_size = header.segment_data_size;
  built.layout.file_size = base + segments.data_size;
  return built;
}

Result<std::vector<uint8_t>> BuildProgram(const ProgramSpec& spec, const BuildOptions& options) {
  Result<BuiltPte> built = BuildPte(spec, options);
  if (!built.ok()) return built.error();
  built->bytes.resize(built->layout.file_size, 0);
  return std::move(built->bytes);
}

Result<PteLayout> WritePteFile(const ProgramSpec& spec, const BuildOptions& options,
                               const std::filesystem::path& path) {
  Result<BuiltPte> built = BuildPte(spec, options);
  if (!built.ok()) return built.error();
  const std::string name = path.string();
  int fd = ::open(name.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return Error{name + ": cannot create: " + std::strerror(errno)};
  const std::vector<uint8_t>& bytes = built->bytes;
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      std::string reason = std::strerror(errno);
      ::close(fd);
      return Error{name + ": write failed after " + std::to_string(done) + " of " +
                   std::to_string(bytes.size()) + " bytes: " + reason};
    }
    done += static_cast<size_t>(n);
  }
  // The trailing segment: extend with a hole that reads as zeros.
  if (::ftruncate(fd, static_cast<off_t>(built->layout.file_size)) != 0) {
    std::string reason = std::strerror(errno);
    ::close(fd);
    return Error{name + ": cannot extend to " + std::to_string(built->layout.file_size) +
                 " bytes: " + reason};
  }
  if (::close(fd) != 0) return Error{name + ": close failed: " + std::strerror(errno)};
  return std::move(built->layout);
}

}  // namespace pteshare::synth

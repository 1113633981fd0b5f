// The bad-input corpus: hostile and broken .pte files made from builder
// output, each with the reason it is bad and what pteshare must say about
// it (tests/rewriter/bad_input_corpus_test.cc runs every command on every case).
// Generated rather than committed, so each case states in code which byte
// it breaks and why; only fuzzer finds that cannot be derived from a
// builder program are committed, as small files next to this header
// (README.md).
//
// The base program is a one-layer pte-synth LLM (two methods sharing two
// named KV caches, an extended header, two segments), built once with the
// exporter's field omission and once with every field stored, so a case can
// overwrite any field in place. A legacy program without extended header
// (a CNN, no state) covers the "whole file is the flatbuffer" layout.
#pragma once

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "program_generated.h"
#include "tools/synth/program_builder.h"
#include "tools/synth/synth_cnn.h"
#include "tools/synth/synth_llm.h"

namespace pteshare::test_support::bad_inputs {

/// What the commands must make of a case.
enum class Expect {
  /// Not a program pteshare can read (layout, header, verifier): every
  /// command exits 2 with one line naming the file; runtime_check says
  /// not_a_program.
  kUnreadable,
  /// Well-formed bytes with numbers the reader refuses (a negative or
  /// overflowing tensor size, a negative arena size): every command exits 2
  /// with one line naming the method and value; runtime_check reads the
  /// program and reports them as findings.
  kInvalidNumbers,
  /// A readable program whose placements or arena sizes the loader would
  /// refuse (memory_id 0 or past the arena list, offsets past the arena or
  /// past 2^63, a negative arena size): inspect shows it (exit 0, it is the
  /// tool to look at such a file); plan and rewrite exit 2; verify exits 1
  /// with findings.
  kInvalidPlacement,
  /// Readable, and as valid as the loader would find it (a header longer
  /// than pteshare knows, bytes after the segments, segments off by a byte
  /// that only a data check notices): commands behave as on the base
  /// program.
  kValid,
};

struct BadInput {
  std::string name;  // file name stem, unique
  std::string why;   // what is broken
  std::vector<uint8_t> bytes;
  Expect expect = Expect::kUnreadable;
};

namespace detail {

inline std::vector<uint8_t> Build(const synth::ProgramSpec& spec,
                                  const synth::BuildOptions& options) {
  Result<std::vector<uint8_t>> bytes = synth::BuildProgram(spec, options);
  if (!bytes.ok()) throw std::runtime_error("builder: " + bytes.error().message);
  return std::move(bytes).value();
}

inline std::vector<uint8_t> TinyLlm(bool force_defaults) {
  synth::LlmConfig config;
  config.layers = 1;
  config.heads = 1;
  config.head_dim = 4;
  config.max_seq = 8;
  config.vocab = 8;
  // Named: the header cases below (which byte flip stays valid) were laid
  // out on this file's bytes.
  config.named = true;
  Result<synth::ProgramSpec> spec = synth::SynthesizeLlm(config);
  if (!spec.ok()) throw std::runtime_error("SynthesizeLlm: " + spec.error().message);
  synth::BuildOptions options;
  options.force_defaults = force_defaults;
  return Build(*spec, options);
}

inline std::vector<uint8_t> LegacyCnn() {
  synth::CnnConfig config;
  config.layers = 1;
  config.channels = 2;
  config.height = 4;
  config.width = 4;
  config.classes = 2;
  Result<synth::ProgramSpec> spec = synth::SynthesizeCnn(config);
  if (!spec.ok()) throw std::runtime_error("SynthesizeCnn: " + spec.error().message);
  synth::BuildOptions options;
  options.extended_header = false;
  return Build(*spec, options);
}

inline uint32_t LoadU32(const std::vector<uint8_t>& b, size_t at) {
  uint32_t v;
  std::memcpy(&v, b.data() + at, 4);
  return v;
}
inline uint64_t LoadU64(const std::vector<uint8_t>& b, size_t at) {
  uint64_t v;
  std::memcpy(&v, b.data() + at, 8);
  return v;
}
template <typename T>
std::vector<uint8_t> With(std::vector<uint8_t> b, size_t at, T value) {
  if (at + sizeof(T) > b.size()) throw std::runtime_error("bad_inputs: write past the base");
  std::memcpy(b.data() + at, &value, sizeof(T));
  return b;
}

// Where things are in a (valid) base program, as file offsets.
struct Landmarks {
  size_t root_table = 0;
  size_t program_size = 0;
  size_t segment_base_offset = 0;
  size_t execution_plan_field = 0;  // Program.execution_plan's uoffset
  size_t tensor_table = 0;          // a 3-dim planned tensor (a KV cache)
  size_t sizes_data = 0;            // its sizes[0]
  size_t allocation_field = 0;      // its allocation_info uoffset
  size_t allocation_table = 0;      // its AllocationDetails table
  size_t allocation_vtable = 0;
  size_t memory_id = 0;  // 0 when the field is not stored
  size_t offset_low = 0;
  size_t offset_high = 0;
  size_t arena_size_1 = 0;  // non_const_buffer_sizes[1] of method 0
  uint32_t arena_count = 0;
  size_t last_segment_table = 0;
  size_t last_segment_offset = 0;  // 0 when not stored
  size_t last_segment_size = 0;
};

inline size_t At(const std::vector<uint8_t>& b, const void* p) {
  return static_cast<size_t>(static_cast<const uint8_t*>(p) - b.data());
}

inline size_t FieldAt(const std::vector<uint8_t>& b, const void* table, flatbuffers::voffset_t f) {
  const uint8_t* p = reinterpret_cast<const flatbuffers::Table*>(table)->GetAddressOf(f);
  return p == nullptr ? 0 : At(b, p);
}

inline Landmarks Find(const std::vector<uint8_t>& b) {
  Landmarks l;
  const fb::Program* program = fb::GetProgram(b.data());
  l.root_table = LoadU32(b, 0);
  l.program_size = LoadU64(b, 16);
  l.segment_base_offset = LoadU64(b, 24);
  l.execution_plan_field = FieldAt(b, program, fb::Program::VT_EXECUTION_PLAN);
  const fb::ExecutionPlan* plan = program->execution_plan()->Get(0);
  l.arena_size_1 = At(b, plan->non_const_buffer_sizes()->data() + 1);
  l.arena_count = plan->non_const_buffer_sizes()->size() - 1;
  for (const fb::EValue* value : *plan->values()) {
    const fb::Tensor* t = value->val_as_Tensor();
    if (t == nullptr || t->allocation_info() == nullptr || t->sizes()->size() != 3) continue;
    l.tensor_table = At(b, t);
    l.sizes_data = At(b, t->sizes()->data());
    l.allocation_field = FieldAt(b, t, fb::Tensor::VT_ALLOCATION_INFO);
    const fb::AllocationDetails* a = t->allocation_info();
    l.allocation_table = At(b, a);
    l.allocation_vtable = l.allocation_table - flatbuffers::ReadScalar<flatbuffers::soffset_t>(
                                                   b.data() + l.allocation_table);
    l.memory_id = FieldAt(b, a, fb::AllocationDetails::VT_MEMORY_ID);
    l.offset_low = FieldAt(b, a, fb::AllocationDetails::VT_MEMORY_OFFSET_LOW);
    l.offset_high = FieldAt(b, a, fb::AllocationDetails::VT_MEMORY_OFFSET_HIGH);
    break;
  }
  const fb::DataSegment* last = program->segments()->Get(program->segments()->size() - 1);
  l.last_segment_table = At(b, last);
  l.last_segment_offset = FieldAt(b, last, fb::DataSegment::VT_OFFSET);
  l.last_segment_size = FieldAt(b, last, fb::DataSegment::VT_SIZE);
  if (l.tensor_table == 0 || l.memory_id == 0 || l.last_segment_size == 0) {
    throw std::runtime_error("bad_inputs: the base program lacks a field a case needs");
  }
  return l;
}

inline std::vector<uint8_t> Truncated(const std::vector<uint8_t>& b, size_t size) {
  return {b.begin(), b.begin() + static_cast<std::ptrdiff_t>(size)};
}

inline std::vector<uint8_t> Flipped(std::vector<uint8_t> b, size_t at) {
  b.at(at) ^= 0xff;
  return b;
}

}  // namespace detail

/// Every generated case, in a fixed order.
inline std::vector<BadInput> GeneratedCases() {
  using namespace detail;
  const std::vector<uint8_t> base = TinyLlm(/*force_defaults=*/false);
  const std::vector<uint8_t> full = TinyLlm(/*force_defaults=*/true);
  const std::vector<uint8_t> legacy = LegacyCnn();
  const Landmarks b = Find(base);
  const Landmarks f = Find(full);
  std::vector<BadInput> cases;
  auto add = [&](std::string name, std::string why, std::vector<uint8_t> bytes, Expect expect) {
    cases.push_back({std::move(name), std::move(why), std::move(bytes), expect});
  };
  const auto U = Expect::kUnreadable;

  // Truncated at every boundary of the layout (pte_layout.h).
  const std::vector<std::pair<std::string, size_t>> cuts = {
      {"empty", 0},
      {"1_byte", 1},
      {"in_identifier", 6},
      {"after_identifier", 8},
      {"in_header_magic", 10},
      {"in_header_length", 14},
      {"in_program_size", 20},
      {"in_segment_base_offset", 30},
      {"in_segment_data_size", 38},
      {"after_header", 40},
      {"at_root_table", b.root_table},
      {"in_root_table", b.root_table + 2},
      {"mid_flatbuffer", b.program_size / 2},
      {"last_flatbuffer_byte", b.program_size - 1},
      {"at_program_size", b.program_size},
      {"at_segment_base", b.segment_base_offset},
      {"in_first_segment", b.segment_base_offset + 1},
      {"last_byte", base.size() - 1},
  };
  for (const auto& [label, size] : cuts) {
    add("truncated_" + label, "the file cut to " + std::to_string(size) + " bytes",
        Truncated(base, size), U);
  }
  add("legacy_truncated_mid", "a file without extended header cut in half",
      Truncated(legacy, legacy.size() / 2), U);
  add("legacy_truncated_last_byte", "a file without extended header missing its last byte",
      Truncated(legacy, legacy.size() - 1), U);

  // One byte of each header field flipped.
  struct Flip {
    std::string label;
    size_t at;
    Expect expect;
  };
  const std::vector<Flip> flips = {
      {"root_offset_low", 0, U},
      {"root_offset_high", 3, U},
      {"identifier_first", 4, U},
      {"identifier_last", 7, U},
      {"magic_first", 8, U},
      {"magic_last", 11, U},
      // 32 -> 223: the length is a minimum (a newer writer's longer header),
      // and 223 bytes still fit before the tables.
      {"header_length_low", 12, Expect::kValid},
      {"header_length_high", 15, U},
      {"program_size_low", 16, U},
      {"program_size_high", 23, U},
      {"segment_base_high", 31, U},
      {"segment_data_size_high", 39, U},
  };
  for (const Flip& flip : flips) {
    add("flipped_" + flip.label, "byte " + std::to_string(flip.at) + " of the header inverted",
        Flipped(base, flip.at), flip.expect);
  }
  // Segments one byte lower: still inside the file, only a data check
  // could notice (docs/format.md: the loader does not). Set, not flipped:
  // a flipped low byte moves them up or down by the base's low byte.
  add("segment_base_one_lower", "segment_base_offset one byte lower",
      With<uint64_t>(base, 24, LoadU64(base, 24) - 1), Expect::kValid);

  // Header fields with impossible values.
  add("header_length_too_small", "extended header length 16 < 24", With<uint32_t>(base, 12, 16), U);
  add("header_length_past_file", "extended header length 2^31", With<uint32_t>(base, 12, 1u << 31),
      U);
  add("program_size_inside_header", "program_size 20 ends inside the header",
      With<uint64_t>(base, 16, 20), U);
  add("program_size_past_file", "program_size larger than the file",
      With<uint64_t>(base, 16, base.size() + 1), U);
  add("program_size_2_63", "program_size 2^63", With<uint64_t>(base, 16, uint64_t{1} << 63), U);
  add("segment_base_inside_program", "segment_base_offset inside the flatbuffer",
      With<uint64_t>(base, 24, b.program_size - 8), U);
  add("segment_base_2_63", "segment_base_offset 2^63 (base + size past the file)",
      With<uint64_t>(base, 24, uint64_t{1} << 63), U);
  add("segment_base_plus_size_overflows", "segment_base_offset + segment_data_size wraps",
      With<uint64_t>(base, 32, ~uint64_t{0}), U);
  add("identifier_et11", "an older program version", With<uint32_t>(base, 4, 0x31315445), U);
  add("identifier_bundled", "a bundled program (BP08)", With<uint32_t>(base, 4, 0x38305042), U);
  add("zip_archive", "a PyTorch .pt (ZIP) file",
      {'P', 'K', 3, 4, 20, 0, 0, 0, 8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, U);
  add("zeros_4096", "4096 zero bytes", std::vector<uint8_t>(4096, 0), U);

  // Offsets that FlatBuffers must refuse.
  add("root_offset_past_file", "root table offset past the end",
      With<uint32_t>(base, 0, 0x7ffffff0), U);
  add("root_vtable_before_start", "the root table's vtable lies before byte 0",
      With<int32_t>(base, b.root_table, 0x7ffffff0), U);
  add("root_vtable_past_end", "the root table's vtable lies past the end",
      With<int32_t>(base, b.root_table, -0x7ffffff0), U);
  add("tensor_vtable_past_end", "a Tensor's vtable lies past the end",
      With<int32_t>(base, b.tensor_table, -0x7ffffff0), U);
  add("vtable_size_huge", "an AllocationDetails vtable claims 65534 bytes",
      With<uint16_t>(base, b.allocation_vtable, 0xfffe), U);
  add("vtable_field_past_end", "an AllocationDetails field offset points past the end",
      With<uint16_t>(base, b.allocation_vtable + 4, 0xfff0), U);
  add("execution_plan_past_end", "Program.execution_plan points past the end",
      With<uint32_t>(base, b.execution_plan_field, 0x7ffffff0), U);
  add("allocation_info_past_end", "Tensor.allocation_info points past the end",
      With<uint32_t>(base, b.allocation_field, 0x7ffffff0), U);

  // Cyclic-looking offsets: FlatBuffers offsets are unsigned and point
  // forward, so the only self-reference is offset 0, which the verifier
  // must not follow into a loop.
  add("root_offset_zero", "the root table is the root offset itself", With<uint32_t>(base, 0, 0),
      U);
  add("execution_plan_self", "Program.execution_plan points at its own field",
      With<uint32_t>(base, b.execution_plan_field, 0), U);
  add("allocation_info_self", "Tensor.allocation_info points at its own field",
      With<uint32_t>(base, b.allocation_field, 0), U);

  // Tensor sizes.
  add("negative_dimension", "a cache with sizes[0] = -1", With<int32_t>(base, b.sizes_data, -1),
      Expect::kInvalidNumbers);
  {
    std::vector<uint8_t> huge = base;
    for (int i = 0; i < 3; ++i) huge = With<int32_t>(huge, b.sizes_data + 4 * i, 0x7fffffff);
    add("huge_dimensions_overflow", "a cache of [2^31-1]^3 elements (nbytes overflows)",
        std::move(huge), Expect::kInvalidNumbers);
  }
  add("huge_dimension_past_arena", "a cache with sizes[0] = 2^31-1 (16 GiB, past its arena)",
      With<int32_t>(base, b.sizes_data, 0x7fffffff), Expect::kInvalidPlacement);

  // Placements the loader refuses.
  add("memory_id_0", "a planned tensor in memory_id 0", With<uint32_t>(base, b.memory_id, 0),
      Expect::kInvalidPlacement);
  add("memory_id_past_arenas", "a planned tensor in the arena after the last",
      With<uint32_t>(base, b.memory_id, b.arena_count + 1), Expect::kInvalidPlacement);
  add("memory_id_max", "a planned tensor in memory_id 2^32-1",
      With<uint32_t>(base, b.memory_id, 0xffffffff), Expect::kInvalidPlacement);
  add("offset_2_63", "a placement at offset 2^63", With<uint32_t>(full, f.offset_high, 0x80000000),
      Expect::kInvalidPlacement);
  {
    std::vector<uint8_t> wraps = With<uint32_t>(full, f.offset_high, 0xffffffff);
    add("offset_plus_size_wraps", "offset 2^64-16: offset + nbytes wraps",
        With<uint32_t>(wraps, f.offset_low, 0xfffffff0), Expect::kInvalidPlacement);
  }
  add("negative_arena_size", "non_const_buffer_sizes[1] = -1",
      With<int64_t>(base, b.arena_size_1, -1), Expect::kInvalidNumbers);
  add("arena_size_2_62", "non_const_buffer_sizes[1] = 2^62 (tensors fit, arena absurd)",
      With<int64_t>(base, b.arena_size_1, int64_t{1} << 62), Expect::kValid);

  // Segments.
  add("segment_past_file", "the last segment's size runs past the file",
      With<uint64_t>(base, b.last_segment_size, base.size()), U);
  add("segment_offset_2_63", "the last segment at relative offset 2^63",
      With<uint64_t>(full, f.last_segment_offset, uint64_t{1} << 63), U);
  add("segment_size_wraps", "the last segment's offset + size wraps",
      With<uint64_t>(base, b.last_segment_size, ~uint64_t{0}), U);

  // A second `eh00` header.
  {
    // A copy of the header between the header and the tables: every
    // FlatBuffers offset is relative, so shifting the tables by 32 bytes
    // (alignment kept) needs only the root offset and the two header
    // offsets raised. The reader must take the first header only.
    std::vector<uint8_t> twice = base;
    twice.insert(twice.begin() + 40, base.begin() + 8, base.begin() + 40);
    twice = With<uint32_t>(twice, 0, static_cast<uint32_t>(b.root_table + 32));
    twice = With<uint64_t>(twice, 16, b.program_size + 32);
    twice = With<uint64_t>(twice, 24, b.segment_base_offset + 32);
    add("second_header_after_first", "a second eh00 header between the header and the tables",
        std::move(twice), Expect::kValid);
    std::vector<uint8_t> concatenated = base;
    concatenated.insert(concatenated.end(), base.begin(), base.end());
    add("second_program_appended", "a second program (with its eh00) after the segments",
        std::move(concatenated), Expect::kValid);
  }
  return cases;
}

}  // namespace pteshare::test_support::bad_inputs

#include "runtime_check/alias_evidence.h"

#include "runtime_check/instruction_uses.h"

namespace pteshare::runtime_check::core::internal {
namespace {

// A reference that the instruction also writes carries this bit.
constexpr uint32_t kWrites = 0x80000000u;

bool Bit(const uint8_t* bits, uint32_t v) { return (bits[v >> 3] >> (v & 7)) & 1; }
void SetBit(uint8_t* bits, uint32_t v, bool on) {
  const auto mask = static_cast<uint8_t>(1u << (v & 7));
  bits[v >> 3] = static_cast<uint8_t>(on ? bits[v >> 3] | mask : bits[v >> 3] & ~mask);
}

// value_bits holds two sets of the method's values: accepted aliases, and
// (while reading) values referenced so far.
uint8_t* Accepted(const Program& program) { return program.value_bits; }
uint8_t* Referenced(const Program& program) {
  return program.value_bits + program.counts.max_values / 8 + 1;
}

// Whether instruction `i` references an accepted alias other than `v`.
bool Shows(const Program& program, uint32_t i, uint32_t v) {
  for (uint32_t r = program.reference_begin[i]; r < program.reference_begin[i + 1]; ++r) {
    const uint32_t value = program.references[r] & ~kWrites;
    if (value != v && Bit(Accepted(program), value)) return true;
  }
  return false;
}

}  // namespace

void ReadInstructionUses(flat::Reader& reader, const MethodRecord& method, Program* program) {
  const uint32_t values = method.values.length;
  uint8_t* referenced = Referenced(*program);
  for (uint32_t b = 0; b <= values / 8; ++b) referenced[b] = 0;
  for (uint32_t v = 0; v <= values; ++v) program->writer_begin[v] = 0;

  // References of each instruction, with the bit for those it writes.
  uint32_t count = 0, instruction = 0;
  ForEachInstruction(reader, method.plan, [&](const InstructionView& view) {
    const uint32_t begin = count;
    program->reference_begin[instruction] = begin;
    VisitReferences(reader, method.values, view, [&](uint32_t v, Role role) {
      bool writes = role == Role::kWrite;
      if (role == Role::kDelegateArgument && !Bit(referenced, v)) {
        // Defined here: first referenced by this call, planned, neither
        // an input nor initialized by the loader.
        const TensorRecord* t = method.Find(v);
        writes = t != nullptr && !t->is_input && !t->has_initial_state;
      }
      if (count < program->counts.max_references) {
        program->references[count++] = v | (writes ? kWrites : 0);
      }
    });
    // The instruction's writers, once per value.
    for (uint32_t r = begin; r < count; ++r) {
      const uint32_t v = program->references[r] & ~kWrites;
      SetBit(referenced, v, true);
      if ((program->references[r] & kWrites) == 0) continue;
      bool again = false;
      for (uint32_t s = begin; s < r && !again; ++s) {
        again = program->references[s] == program->references[r];
      }
      if (!again) ++program->writer_begin[v + 1];
    }
    ++instruction;
  });
  program->reference_begin[instruction] = count;
  for (uint32_t v = 0; v < values; ++v) program->writer_begin[v + 1] += program->writer_begin[v];
  // Fill: writer_begin[v] walks up to its end, then is shifted back.
  for (uint32_t i = 0; i < instruction; ++i) {
    for (uint32_t r = program->reference_begin[i]; r < program->reference_begin[i + 1]; ++r) {
      if ((program->references[r] & kWrites) == 0) continue;
      bool again = false;
      for (uint32_t s = program->reference_begin[i]; s < r && !again; ++s) {
        again = program->references[s] == program->references[r];
      }
      if (again) continue;
      const uint32_t v = program->references[r] & ~kWrites;
      program->writers[program->writer_begin[v]++] = i;
    }
  }
  for (uint32_t v = values; v > 0; --v) program->writer_begin[v] = program->writer_begin[v - 1];
  program->writer_begin[0] = 0;
  uint8_t* accepted = Accepted(*program);
  for (uint32_t b = 0; b <= values / 8; ++b) accepted[b] = 0;
}

void JudgeAliases(const MethodRecord& method, uint32_t buffer_value, uint32_t count,
                  Program* program) {
  uint8_t* accepted = Accepted(*program);
  if (buffer_value < method.values.length) SetBit(accepted, buffer_value, true);
  uint8_t* doubt = program->flags;
  for (uint32_t i = 0; i < count; ++i)
    doubt[i] = static_cast<uint8_t>(AliasDoubt::kUnrelatedWriter);
  for (bool changed = true; changed;) {
    changed = false;
    for (uint32_t i = 0; i < count; ++i) {
      const TensorRecord& t = method.tensors[program->inside[i]];
      if (doubt[i] == static_cast<uint8_t>(AliasDoubt::kNone) || t.is_input ||
          t.has_initial_state) {
        continue;
      }
      bool shown = true;
      const uint32_t v = t.value_index;
      for (uint32_t w = program->writer_begin[v]; w < program->writer_begin[v + 1] && shown; ++w) {
        shown = Shows(*program, program->writers[w], v);
      }
      if (shown) {
        SetBit(accepted, v, true);
        doubt[i] = static_cast<uint8_t>(AliasDoubt::kNone);
        changed = true;
      }
    }
  }
  for (uint32_t i = 0; i < count; ++i) {
    const TensorRecord& t = method.tensors[program->inside[i]];
    if (doubt[i] == static_cast<uint8_t>(AliasDoubt::kNone)) continue;
    if (t.is_input) {
      doubt[i] = static_cast<uint8_t>(AliasDoubt::kMethodInput);
    } else if (t.has_initial_state) {
      doubt[i] = static_cast<uint8_t>(AliasDoubt::kOwnInitialState);
    }
  }
}

uint32_t UnrelatedWriter(uint32_t v, const Program& program) {
  for (uint32_t w = program.writer_begin[v]; w < program.writer_begin[v + 1]; ++w) {
    if (!Shows(program, program.writers[w], v)) return program.writers[w];
  }
  return 0;
}

void ClearAliases(const MethodRecord& method, uint32_t buffer_value, uint32_t count,
                  Program* program) {
  uint8_t* accepted = Accepted(*program);
  if (buffer_value < method.values.length) SetBit(accepted, buffer_value, false);
  for (uint32_t i = 0; i < count; ++i) {
    SetBit(accepted, method.tensors[program->inside[i]].value_index, false);
  }
}

}  // namespace pteshare::runtime_check::core::internal

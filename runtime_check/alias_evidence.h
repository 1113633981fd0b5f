// The checker's judgement of which tensors inside a shared buffer are
// aliases the program shows (docs/design.md, "Alias by evidence"; what
// instructions reference and write is instruction_uses.h). A tensor inside
// a shared buffer is an alias when it is the buffer, or it is no method
// input, has no initial state of its own, and every instruction that
// writes it (none, for a static view) also references the buffer or an
// alias already accepted.
#ifndef PTESHARE_RUNTIME_CHECK_ALIAS_EVIDENCE_H_
#define PTESHARE_RUNTIME_CHECK_ALIAS_EVIDENCE_H_

#include "flat_reader.h"
#include "runtime_check/program_records.h"

namespace pteshare::runtime_check::core::internal {

/// Why a tensor inside a shared buffer is no alias the program shows
/// (kUnprovenAlias's reason).
enum class AliasDoubt : uint8_t {
  kNone,
  kMethodInput,      // the caller writes it
  kOwnInitialState,  // the loader writes it
  kUnrelatedWriter,  // detail[0]: an instruction that writes it and shows neither
};

/// Reads, in the program's work space, what every instruction of `method`
/// references and which instructions write each value.
void ReadInstructionUses(flat::Reader& reader, const MethodRecord& method, Program* program);

/// Accepts, to a fixed point, the tensors program->inside[0, count)
/// (indices into method.tensors) that the program shows to be aliases of
/// the buffer `buffer_value`; sets program->flags[i] to the AliasDoubt of
/// each (kNone: accepted). Needs ReadInstructionUses for the method first.
/// The accepted set stays marked until ClearAliases.
void JudgeAliases(const MethodRecord& method, uint32_t buffer_value, uint32_t count,
                  Program* program);

/// The first instruction that writes value `v` and references no accepted
/// alias (after JudgeAliases, before ClearAliases); 0 when none.
uint32_t UnrelatedWriter(uint32_t v, const Program& program);

/// Unmarks what JudgeAliases accepted.
void ClearAliases(const MethodRecord& method, uint32_t buffer_value, uint32_t count,
                  Program* program);

}  // namespace pteshare::runtime_check::core::internal

#endif  // PTESHARE_RUNTIME_CHECK_ALIAS_EVIDENCE_H_

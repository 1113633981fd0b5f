#include "runtime_check/finding_text.h"

#include <cstdio>

#include "flat_problem_text.h"
#include "loader_facts.h"
#include "pte_header.h"
#include "runtime_check/alias_evidence.h"
#include "tensor_nbytes.h"

namespace pteshare::runtime_check::internal {
namespace {

using core::Finding;
using core::ReadFailure;
using core::Shape;
using std::to_string;

std::string TensorLabel(const std::string& method, int64_t value_index, const std::string& name) {
  std::string label = "method " + method + ", value " + to_string(value_index);
  if (!name.empty()) label += " (" + name + ")";
  return label;
}

std::string Extent(uint64_t offset, uint64_t nbytes) {
  return "offset " + to_string(offset) + " + " + to_string(nbytes) + " bytes";
}

// "[1, 2, 3]" with `separator` between sizes.
std::string SizesText(const Shape& shape, const char* separator) {
  std::string text = "[";
  for (uint32_t i = 0; i < shape.rank; ++i) {
    if (i > 0) text += separator;
    text += to_string(shape.Size(i));
  }
  return text + "]";
}

// "scalar type 6 [16] dim order 0": as the file stores them (this library
// has no table of type names).
std::string ShapeText(const Shape& shape, bool with_dim_order) {
  std::string text = "scalar type " + to_string(shape.scalar_type) + " " + SizesText(shape, ",");
  if (with_dim_order && shape.dim_order_size > 0) {
    text += " dim order ";
    for (uint32_t i = 0; i < shape.dim_order_size; ++i) {
      text += (i > 0 ? "," : "") + to_string(shape.dim_order[i]);
    }
  }
  return text;
}

std::string DeviceText(uint64_t code) {
  return "device type " + to_string(static_cast<int8_t>(code >> 8)) + ":" +
         to_string(static_cast<int8_t>(code & 0xff));
}

std::string NotAProgramText(const Finding& f) {
  const auto failure = static_cast<ReadFailure>(f.reason);
  auto flat_problem = [&]() {
    flat::Problem problem;
    problem.rule = static_cast<flat::Rule>(f.detail[0]);
    problem.at = f.detail[1];
    problem.length = f.detail[2];
    problem.size = f.detail[3];
    problem.what = f.detail_text;
    return flat::ProblemText(problem);
  };
  std::string text;
  switch (failure) {
    case ReadFailure::kEmpty:
      text = "the buffer is empty";
      break;
    case ReadFailure::kMisaligned:
      return "the buffer at address " + Hex(f.detail[0]) +
             " is not 8-byte aligned (pass memory from mmap or operator new)";
    case ReadFailure::kTooSmall:
      text = "the buffer is " + to_string(f.detail[0]) +
             " bytes, too small for a FlatBuffers root offset and identifier (8 bytes)";
      break;
    case ReadFailure::kWrongIdentifier:
      text = pte_header::WrongIdentifier(f.bytes);
      break;
    case ReadFailure::kHeader: {
      ExtendedHeader header;
      header.length = static_cast<uint32_t>(f.detail[1]);
      header.program_size = f.detail[2];
      text = pte_header::HeaderProblemText(static_cast<pte_header::HeaderProblem>(f.detail[0]),
                                           header, f.detail[3], "buffer");
      break;
    }
    case ReadFailure::kBeyondLimit:
      text = "flatbuffer of " + to_string(f.detail[0]) +
             " bytes is beyond the FlatBuffers limit of " +
             to_string(flat::Reader::kMaxBufferSize) + " bytes";
      break;
    case ReadFailure::kFlatbuffer:
      text = "the flatbuffer [0, " + to_string(f.detail[3]) +
             ") fails FlatBuffers verification: " + flat_problem();
      break;
    case ReadFailure::kBundleFlatbuffer:
      return "bundled program: the bundle's flatbuffer [0, " + to_string(f.detail[3]) +
             ") fails FlatBuffers verification: " + flat_problem();
    case ReadFailure::kBundleWithoutProgram:
      return "bundled program: it holds no program bytes";
    case ReadFailure::kBundleMisaligned:
      return "bundled program: the program bytes start at offset " + to_string(f.detail[0]) +
             ", not a multiple of 32 as the schema aligns them";
  }
  return f.expected == 1 ? "the program inside the bundle: " + text : text;
}

std::string InvalidTensorText(const Finding& f, const std::string& label) {
  switch (static_cast<fb::NbytesStatus>(f.reason)) {
    case fb::NbytesStatus::kUnknownScalarType:
      return label + ": scalar type " + to_string(f.shape.scalar_type) +
             " is not one the runtime knows";
    case fb::NbytesStatus::kNegativeDimension:
      return label + ": dimension " + to_string(f.detail[0]) + " of sizes " +
             SizesText(f.shape, ", ") + " is negative";
    case fb::NbytesStatus::kOverflow:
    case fb::NbytesStatus::kOk:
      break;
  }
  return label + ": sizes " + SizesText(f.shape, ", ") + " x " +
         to_string(fb::ElementSize(f.shape.scalar_type)) + " bytes per element overflows 64 bits";
}

std::string UnprovenAliasText(const Finding& f, const std::string& label) {
  std::string why;
  switch (static_cast<core::internal::AliasDoubt>(f.reason)) {
    case core::internal::AliasDoubt::kMethodInput:
      why = "is a method input, which the caller writes";
      break;
    case core::internal::AliasDoubt::kOwnInitialState:
      why = "has an initial state of its own, which the loader writes";
      break;
    default:
      why = "is written by instruction " + to_string(f.detail[0]) +
            ", which references neither the buffer nor an alias of it";
      break;
  }
  return label + " " + SizesText(f.shape, ",") + ": " +
         Extent(f.placement.offset, f.placement.nbytes) + " in arena " +
         to_string(f.reference.memory_id) + " lies inside shared buffer " + ToString(f.name) +
         " (" + Extent(f.reference.offset, f.reference.nbytes) + ") but " + why +
         ": it would overwrite the shared state";
}

std::string MethodsWithInitialState(const std::vector<SharedBuffer>& shared,
                                    const std::string& name) {
  std::string text;
  for (const SharedBuffer& buffer : shared) {
    if (buffer.name != name) continue;
    for (const std::string& method : buffer.methods_with_initial_state) {
      text += (text.empty() ? "" : ", ") + method;
    }
  }
  return text;
}

}  // namespace

std::string Hex(uint64_t value) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(value));
  return text;
}

std::string FindingMessage(const Finding& f, const std::vector<SharedBuffer>& shared) {
  const std::string method = ToString(f.method);
  const std::string name = ToString(f.name);
  const std::string reference_method = ToString(f.reference_method);
  const std::string label = TensorLabel(method, f.value_index, ToString(f.tensor_name));
  const std::string shared_label = TensorLabel(method, f.value_index, name);
  const std::string where =
      " in method " + reference_method + " (value " + to_string(f.reference_value_index) + ")";
  const Placement& p = f.placement;
  switch (f.kind) {
    case FindingKind::kNotAProgram:
      return NotAProgramText(f);
    case FindingKind::kInternalError:
      return "the check stopped";
    case FindingKind::kScratchTooSmall:
      if (f.reason == 1) {
        return "the scratch at " + Hex(f.detail[0]) + " is not 8-byte aligned (the check " +
               "keeps 64-bit numbers in it); it has the " + to_string(f.expected) + " bytes needed";
      }
      return "the scratch of " + to_string(f.actual) + " bytes is too small: the check needs " +
             to_string(f.expected) + " (8-byte aligned)";
    case FindingKind::kInvalidTensor:
      return InvalidTensorText(f, label);
    case FindingKind::kInvalidMemoryId:
      return label + ": memory_id " + to_string(f.actual) + " is not an arena (the method has " +
             to_string(f.expected) +
             (f.expected == 0 ? " arenas)"
                              : " arenas, memory_id 1.." + to_string(f.expected) + ")");
    case FindingKind::kInvalidArenaSize:
      return "method " + method + ": arena " + to_string(p.memory_id) + " size " +
             to_string(static_cast<int64_t>(f.actual)) + " is negative";
    case FindingKind::kPastArenaEnd:
      return label + ": " + Extent(p.offset, p.nbytes) +
             (f.reason == 1 ? " overflows 64 bits, past" : " >") + " arena " +
             to_string(p.memory_id) + " size " +
             (f.detail[0] == 0 ? to_string(f.expected) : "(invalid)");
    case FindingKind::kSharedNameNotFound:
      return "shared buffer " + name + ": no method has a planned tensor with that name";
    case FindingKind::kInvalidValueNaming: {
      const std::string text = method + ":" + to_string(f.value_index) + "=" + name;
      if (f.reason == 0) return "name assignment " + text + ": the program has no method " + method;
      return "name assignment " + text + ": value " + to_string(f.value_index) +
             (f.reason == 1 ? " is past the method's " + to_string(f.expected) + " values"
                            : " is not a planned tensor");
    }
    case FindingKind::kArenaMismatch:
      return shared_label + ": in arena " + to_string(f.actual) + ", but in arena " +
             to_string(f.expected) + where;
    case FindingKind::kOffsetMismatch:
      return shared_label + ": at offset " + to_string(f.actual) + " in arena " +
             to_string(p.memory_id) + ", but at offset " + to_string(f.expected) + where;
    case FindingKind::kSizeMismatch:
      return shared_label + ": " + to_string(f.actual) + " bytes, but " + to_string(f.expected) +
             " bytes" + where;
    case FindingKind::kShapeMismatch:
      return shared_label + ": " + ShapeText(f.shape, true) + ", but " +
             ShapeText(f.reference_shape, true) + where + " (one buffer, read as other numbers)";
    case FindingKind::kDeviceMismatch:
      return "method " + method + ": arena " + to_string(p.memory_id) + " is on " +
             DeviceText(f.actual) + ", but on " + DeviceText(f.expected) + " in method " +
             reference_method + ", and shared buffer " + name +
             " is in it (one arena cannot be one memory on two devices)";
    case FindingKind::kArenaOnTwoDevices:
      return "method " + method + ": arena " + to_string(p.memory_id) + " is on " +
             DeviceText(f.actual) + ", but on " + DeviceText(f.expected) + " in method " +
             reference_method +
             ": a loader that binds one buffer per memory_id to every method cannot serve both";
    case FindingKind::kOverlap:
      if (f.reason == 2) {
        const uint64_t address = f.detail[0], reference_address = f.detail[1];
        return label + ": bytes [" + Hex(address) + ", " + Hex(address + p.nbytes) +
               ") overlap shared buffer " + name + " at [" + Hex(reference_address) + ", " +
               Hex(reference_address + f.reference.nbytes) + ") as bound for method " +
               reference_method;
      }
      return label + ": " + Extent(p.offset, p.nbytes) + " in arena " +
             to_string(f.reference.memory_id) + " overlaps shared buffer " + name + " (" +
             Extent(f.reference.offset, f.reference.nbytes) +
             (f.reason == 0
                  ? ") without lying inside it"
                  : ", as in method " + reference_method + "; this method must keep it free)");
    case FindingKind::kUnprovenAlias:
      return UnprovenAliasText(f, label);
    case FindingKind::kPrivateStateOverlap:
      return label + ": " + Extent(p.offset, p.nbytes) + " in arena " +
             to_string(f.reference.memory_id) + " overlaps the state of " +
             TensorLabel(reference_method, f.reference_value_index, name) + ", " +
             Extent(f.reference.offset, f.reference.nbytes) +
             ", which is no shared buffer: with one set of arenas, running method " + method +
             " overwrites it between calls of method " + reference_method;
    case FindingKind::kUnknownMethod:
      return "binding for method " + method + ": the program has no such method";
    case FindingKind::kArenaNotBound:
      return "method " + method + ": arena " + to_string(p.memory_id) + " (" +
             to_string(f.detail[0]) + " bytes) has no buffer (" + to_string(f.actual) +
             " buffers given, " + to_string(f.expected) + " arenas in the method)";
    case FindingKind::kBindingTooSmall:
      return "method " + method + ": arena " + to_string(p.memory_id) +
             " is bound to a buffer of " + to_string(f.actual) + " bytes, the method needs " +
             to_string(f.expected);
    case FindingKind::kAddressMismatch:
      return shared_label + ": at address " + Hex(f.actual) + " (arena " + to_string(p.memory_id) +
             " + " + to_string(p.offset) + "), but at " + Hex(f.expected) + " (arena " +
             to_string(f.reference.memory_id) + " + " + to_string(f.reference.offset) +
             ") in method " + reference_method + " (value " + to_string(f.reference_value_index) +
             ")";
    case FindingKind::kInitialStateInSeveralMethods:
      return "shared buffer " + name + " has an initial state in " + to_string(f.actual) +
             " methods (" + MethodsWithInitialState(shared, name) +
             "): " + loader::kStateRecopiedOnLoad;
    case FindingKind::kArenaNotSharedByModule:
      return "shared buffer " + name + " is in arena " + to_string(p.memory_id) + ": " +
             loader::kModuleSharesArenasOneAndTwo +
             ", so the application must bind this arena itself";
    case FindingKind::kUnpairedState: {
      std::string mismatch;
      if (f.reason == 1) {
        mismatch = "they have " + to_string(f.detail[0]) + " and " + to_string(f.detail[1]) +
                   " unnamed mutable buffers";
      } else {
        auto describe = [](const std::string& in, uint64_t value, const Shape& shape,
                           uint64_t arena) {
          return in + ":" + to_string(value) + " (" + ShapeText(shape, false) + ", arena " +
                 to_string(arena) + ")";
        };
        mismatch = "unnamed mutable buffer " + to_string(f.detail[0]) + " is " +
                   describe(reference_method, f.detail[1], f.reference_shape, f.detail[3] >> 32) +
                   " but " + describe(method, f.detail[2], f.shape, f.detail[3] & 0xffffffffu);
      }
      return "the unnamed state of methods " + reference_method + " and " + method +
             " does not pair (" + mismatch +
             "), so its sharing is not checked; name the buffers to check with "
             "METHOD:VALUE=NAME assignments";
    }
  }
  return FindingKindName(f.kind);
}

}  // namespace pteshare::runtime_check::internal

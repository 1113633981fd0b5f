// A flat::Problem (flat_reader.h) as one line with its numbers, for hosts:
// the reader itself keeps no text, so it builds without the C++ standard
// library.
#pragma once

#include <string>

#include "flat_reader.h"

namespace pteshare::flat {

inline std::string ProblemText(const Problem& p) {
  const std::string at = std::to_string(p.at);
  switch (p.rule) {
    case Rule::kNone:
      return "";
    case Rule::kBufferTooLarge:
      return "the buffer of " + std::to_string(p.size) +
             " bytes is beyond the FlatBuffers limit of " + std::to_string(Reader::kMaxBufferSize) +
             " bytes";
    case Rule::kPastEnd:
      return std::string(p.what) + " at byte " + at + " (" + std::to_string(p.length) +
             " bytes) runs past the end of the " + std::to_string(p.size) + "-byte buffer";
    case Rule::kMisaligned:
      return std::string(p.what) + " at byte " + at + " is not " + std::to_string(p.length) +
             "-byte aligned";
    case Rule::kOverBudget:
      return "the tables refer to the same bytes over and over (more reading than a " +
             std::to_string(p.size) + "-byte buffer can need): a damaged or hostile file";
    case Rule::kVtableBeforeStart:
      return "the vtable of the table at byte " + at + " lies before byte 0";
    case Rule::kBadOffset:
      return "the offset " + std::to_string(p.length) + " at byte " + at +
             " is not a valid FlatBuffers offset";
    case Rule::kNotTerminated:
      return "the string at byte " + at + " is not NUL-terminated";
    case Rule::kSchema:
      return std::string(p.what) + " (at byte " + at + ")";
  }
  return "";
}

}  // namespace pteshare::flat

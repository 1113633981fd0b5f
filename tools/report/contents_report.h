// How `pteshare inspect` shows a program's contents (program_contents.h):
// the operators and delegates of each method, what each segment holds, the
// data a .ptd file must provide, as text lines and as members of the
// --json document (which the Python module's inspect() returns too).
#pragma once

#include <string>
#include <vector>

#include "rewriter/program/program_contents.h"
#include "tools/report/json_writer.h"

namespace pteshare::cli {

/// "operators (12 kinds, 340 calls): aten::mm.out x64, aten::add.out x32, ...":
/// the most-called first, at most kOperatorsShown (--json lists all).
std::string OperatorsLine(const MethodContents& method);
inline constexpr size_t kOperatorsShown = 10;

/// "delegates (1, 2 calls):" and one line per delegate, each starting with
/// `indent`; empty when the method has none.
std::vector<std::string> DelegateLines(const MethodContents& method, const std::string& indent);

/// "constant data (5 buffers)", "delegate blob of method forward's delegate
/// #0 (XnnpackBackend)", ... joined by "; "; empty when no table names it.
std::string SegmentUseText(const std::vector<SegmentUse>& uses);

/// "external data: 2 tensors (576 bytes) by key from a .ptd data file given
/// at load (...); keys: linear.weight, linear.bias"; empty without any.
std::string ExternalDataLine(const ProgramContents& contents);
/// At most this many keys in ExternalDataLine (--json lists all).
inline constexpr size_t kKeysShown = 10;

/// "named data: 2 keys in 2 segments (896 bytes) that backends look up by
/// key (...)"; empty without any (the segment lines name each key).
std::string NamedDataLine(const ProgramContents& contents);

/// The method's members: "kernel_calls", "calls_without_operator",
/// "delegate_calls", "operators", "delegates", "external_tensors".
void WriteMethodContentsJson(JsonWriter& json, const MethodContents& method);

/// The value of a segment's "holds": an array of what the tables say.
void WriteSegmentUsesJson(JsonWriter& json, const std::vector<SegmentUse>& uses);

/// The program's members: "external_data", "named_data",
/// "dangling_segment_references", "inline_constants".
void WriteProgramContentsJson(JsonWriter& json, const ProgramContents& contents);

}  // namespace pteshare::cli

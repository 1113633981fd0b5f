// `pteshare inspect FILE [--json]`: what is in a program, at a glance: the
// file layout (and what each segment holds), the data a .ptd file must
// provide, then per method its instructions, operators, delegates, planned
// tensors, arenas and mutable buffers.
#include <cstdio>
#include <string>

#include "rewriter/open_program.h"
#include "tools/pteshare/commands.h"
#include "tools/pteshare/exit_codes.h"
#include "tools/pteshare/json_document.h"
#include "tools/pteshare/open_input.h"
#include "tools/pteshare/output.h"
#include "tools/pteshare/plan_report.h"
#include "tools/report/bundle_report.h"
#include "tools/report/contents_report.h"
#include "tools/report/inspect_report.h"

namespace pteshare::cli {
namespace {

/// `line` after two spaces, unless it is empty (nothing to say).
void PrintIndented(const std::string& line) {
  if (!line.empty()) std::printf("  %s\n", line.c_str());
}

/// The file's parts: flatbuffer, slack, each segment and what it holds,
/// constants inline, the data a .ptd file must provide, named data.
void PrintLayout(const PteFile& file, const PteLayout& layout, const ProgramContents& contents) {
  // For a bundle, the sizes below are its program's (the bundle line says
  // where it lies).
  std::printf("  %s %s bytes\n", file.bundle() ? "program    " : "file       ",
              Grouped(layout.file_size).c_str());
  if (layout.header.present) {
    std::printf("  flatbuffer  %s bytes (extended header: %u bytes)\n",
                Grouped(layout.program_size).c_str(), layout.header.length);
  } else {
    std::printf("  flatbuffer  %s bytes (no extended header)\n",
                Grouped(layout.program_size).c_str());
  }
  std::printf("  slack       %s bytes before the segments\n", Grouped(layout.slack()).c_str());
  std::printf("  segments    %s, %s at offset %s\n", Grouped(layout.segments.size()).c_str(),
              HumanBytes(layout.segment_bytes()).c_str(),
              Grouped(layout.segment_base_offset).c_str());
  for (size_t i = 0; i < layout.segments.size(); ++i) {
    const SegmentExtent& s = layout.segments[i];
    const std::string holds = SegmentUseText(contents.segment_uses[i]);
    std::printf("    #%zu  file offset %s, %s bytes: %s\n", i, Grouped(s.file_offset).c_str(),
                Grouped(s.size).c_str(),
                holds.empty() ? "named by no table of the program" : holds.c_str());
  }
  if (!contents.dangling_segment_uses.empty()) {
    std::printf("  segments the program names but lacks: %s\n",
                SegmentUseText(contents.dangling_segment_uses).c_str());
  }
  if (contents.inline_constant_bytes > 0) {
    std::printf("  constants   %s bytes inline in the flatbuffer (constant_buffer, %s entries)\n",
                Grouped(contents.inline_constant_bytes).c_str(),
                Grouped(contents.inline_constant_buffers).c_str());
  }
  PrintIndented(ExternalDataLine(contents));
  PrintIndented(NamedDataLine(contents));
}

/// The mutable buffers (TensorValue::is_mutable_buffer, the one definition
/// every command counts by): how many, their bytes, then one line each.
void PrintMutableBuffers(const MethodView& method) {
  size_t count = 0;
  uint64_t bytes = 0;
  for (const TensorValue& t : method.tensors) {
    if (!t.is_mutable_buffer()) continue;
    ++count;
    bytes += t.nbytes;
  }
  if (count == 0) return;
  std::printf("  mutable buffers (%s, %s bytes):\n", Grouped(count).c_str(),
              Grouped(bytes).c_str());
  for (const TensorValue& t : method.tensors) {
    if (!t.is_mutable_buffer()) continue;
    std::string name = t.name.empty() ? "(unnamed)" : std::string(t.name);
    std::printf("    %-44s value %-5u arena %u offset %s, %s bytes%s\n", name.c_str(),
                t.value_index, t.placement.memory_id, Grouped(t.placement.offset).c_str(),
                Grouped(t.nbytes).c_str(), t.has_initial_state ? ", initial state" : "");
  }
}

void PrintMethod(const MethodView& method, const MethodContents& calls) {
  MethodSummary s = Summarize(method);
  std::printf("\nmethod %s: %s, %s, %s\n", method.name.c_str(),
              Counted(method.instruction_count, "instruction", "instructions").c_str(),
              Counted(method.value_count, "value", "values").c_str(),
              Counted(s.planned, "planned tensor", "planned tensors").c_str());
  // The exporter's constant methods have no instruction: nothing to list.
  if (method.instruction_count > 0) PrintIndented(OperatorsLine(calls));
  for (const std::string& line : DelegateLines(calls, "")) PrintIndented(line);
  if (s.missing_fields > 0) {
    std::printf("  %s %s a field (a rewrite that needs it reuses or appends a table)\n",
                Counted(s.missing_fields, "allocation table", "allocation tables").c_str(),
                s.missing_fields == 1 ? "lacks" : "lack");
  }
  for (const Arena& arena : method.arenas) {
    std::printf("  arena %u  %-8s %s bytes, tensors reach %s\n", arena.memory_id,
                DeviceName(static_cast<int8_t>(arena.device), arena.device_index).c_str(),
                Grouped(arena.size).c_str(), Grouped(s.highest_end[arena.memory_id - 1]).c_str());
  }
  PrintMutableBuffers(method);
}

void PrintText(const std::string& path, const PteFile& file, const ProgramView& view) {
  const ProgramContents contents = ReadProgramContents(*file.program(), view);
  std::fputs(BundleLine(path, file).c_str(), stdout);
  std::printf("%s: ET12 program%s, %s\n", path.c_str(), file.bundle() ? " (inside the bundle)" : "",
              Counted(view.methods.size(), "method", "methods").c_str());
  PrintLayout(file, view.layout, contents);
  for (size_t m = 0; m < view.methods.size(); ++m)
    PrintMethod(view.methods[m], contents.methods[m]);
}

struct InspectArgs {
  std::string file;
  bool json = false;
};

}  // namespace

void AddInspect(CLI::App& app, int& exit_status) {
  auto args = std::make_shared<InspectArgs>();
  CLI::App* cmd = app.add_subcommand(
      "inspect",
      "Show what is in a program: flatbuffer size, slack, the segments and what each holds "
      "(constant data, initial state, delegate blobs, named data), the tensors a .ptd data "
      "file must provide by key; then per method its instructions, the operators it calls "
      "(with counts), its delegates (backend, blob location and size, compile specs), planned "
      "tensors, arenas (size and device) and mutable buffers (named or not) with their "
      "placement. Reads only the program part of the file, never the weights.\n"
      "Example: pteshare inspect llm.pte\n"
      "         pteshare inspect llm.pte --json | jq '.methods[].arenas'");
  cmd->add_option("FILE", args->file, "The .pte file, or a .bpte bundle (its program is shown)")
      ->required()
      ->type_name("");
  cmd->add_flag("--json", args->json, "Print the same facts as JSON (shape in the README)");
  cmd->callback([args, &exit_status] {
    std::optional<OpenedProgram> opened = OpenInput(args->file);
    if (!opened) {
      exit_status = kExitBadInput;
      return;
    }
    if (args->json) {
      PrintJsonDocument(InspectJson(args->file, opened->file, opened->view));
    } else {
      PrintText(args->file, opened->file, opened->view);
    }
    exit_status = kExitOk;
  });
}

}  // namespace pteshare::cli

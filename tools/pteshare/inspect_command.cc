// `pteshare inspect FILE [--json]`: what is in a program, at a glance: the
// file layout, then per method its instructions, planned tensors, arenas
// and named mutable buffers.
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
#include "tools/report/inspect_report.h"

namespace pteshare::cli {
namespace {

void PrintText(const std::string& path, const PteFile& file, const ProgramView& view) {
  const PteLayout& layout = view.layout;
  std::fputs(BundleLine(path, file).c_str(), stdout);
  std::printf("%s: ET12 program%s, %zu method%s\n", path.c_str(),
              file.bundle() ? " (inside the bundle)" : "", view.methods.size(),
              view.methods.size() == 1 ? "" : "s");
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
  std::printf("  segments    %zu, %s at offset %s\n", layout.segments.size(),
              HumanBytes(layout.segment_bytes()).c_str(),
              Grouped(layout.segment_base_offset).c_str());
  for (size_t i = 0; i < layout.segments.size(); ++i) {
    const SegmentExtent& s = layout.segments[i];
    std::printf("    #%zu  file offset %s, %s bytes\n", i, Grouped(s.file_offset).c_str(),
                Grouped(s.size).c_str());
  }
  for (const MethodView& method : view.methods) {
    MethodSummary s = Summarize(method);
    std::printf("\nmethod %s: %u instructions, %u values, %zu planned tensors\n",
                method.name.c_str(), method.instruction_count, method.value_count, s.planned);
    if (s.missing_fields > 0) {
      std::printf(
          "  %zu allocation table%s lack a field (a rewrite that needs it reuses or appends a "
          "table)\n",
          s.missing_fields, s.missing_fields == 1 ? "" : "s");
    }
    for (const Arena& arena : method.arenas) {
      std::printf("  arena %u  %-8s %s bytes, tensors reach %s\n", arena.memory_id,
                  DeviceName(static_cast<int8_t>(arena.device), arena.device_index).c_str(),
                  Grouped(arena.size).c_str(), Grouped(s.highest_end[arena.memory_id - 1]).c_str());
    }
    bool header_printed = false;
    for (const TensorValue& t : method.tensors) {
      if (!t.is_mutable_buffer()) continue;
      if (!header_printed) {
        std::printf("  mutable buffers:\n");
        header_printed = true;
      }
      std::string name = t.name.empty() ? "(unnamed)" : std::string(t.name);
      std::printf("    %-44s value %-5u arena %u offset %s, %s bytes%s\n", name.c_str(),
                  t.value_index, t.placement.memory_id, Grouped(t.placement.offset).c_str(),
                  Grouped(t.nbytes).c_str(), t.has_initial_state ? ", initial state" : "");
    }
  }
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
      "Show a program's layout: flatbuffer size, slack and segments, then per method its "
      "instructions, planned tensors, arenas (size and device) and mutable buffers (named or "
      "not) with their placement. Reads only the program part of the file, never the "
      "weights.\n"
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

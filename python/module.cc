// `import pteshare`: the CLI's inspect, plan, verify and rewrite for export
// scripts, on a path or on the program's bytes. Each returns what the
// command's --json prints, as a dict: the same C++ builds the same JSON
// text (tools/report/), which json.loads turns into the dict. Errors raise
// pteshare.Error subclasses (errors.h) with the CLI's one-line messages.
#include <pybind11/pybind11.h>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "python/call_arguments.h"
#include "python/errors.h"
#include "python/keywords.h"
#include "python/source.h"
#include "rewriter/rewrite.h"
#include "rewriter/write/output_target.h"
#include "tools/report/inspect_report.h"
#include "tools/report/plan_json.h"
#include "tools/report/rewrite_report.h"
#include "tools/report/verify_report.h"

namespace pteshare::python {
namespace {

namespace py = pybind11;
namespace fs = std::filesystem;

py::object Loads(const std::string& document) {
  return py::module_::import("json").attr("loads")(py::str(document));
}

py::object Inspect(const py::object& source_object) {
  const Source source(source_object);
  const OpenedProgram opened = source.Open();
  return Loads(cli::InspectJson(source.path(), opened.file, opened.view));
}

py::object Plan(const py::object& source_object, const py::object& share,
                const py::object& share_auto, const py::object& names, const py::object& strategy,
                const py::object& layout, const py::object& alignment,
                const py::object& arena_limits) {
  const Source source(source_object);
  const std::string& file = source.path();
  const ShareRequest request = ShareFrom(file, share, share_auto, names);
  PlanOptions options = PlanOptionsFrom(file, strategy, layout, alignment, arena_limits);
  // As `pteshare plan`: both strategies' sizes, and what each layout costs.
  options.compare_strategies = true;
  options.compare_layouts = true;
  const OpenedProgram opened = source.Open();
  std::optional<Result<VerifiedPlan>> verified;
  {
    py::gil_scoped_release unlocked;
    verified.emplace(PlanAndVerify(opened.view, request, options));
  }
  if (!verified->ok()) Raise(file, verified->error());
  if (!verified->value().fits()) Raise(file, LimitMisses(verified->value().planned.plan));
  // A plan with violations is reported, as by the CLI ("verified": false).
  return Loads(cli::PlanJson(file, opened.file, opened.view, verified->value()));
}

py::object Verify(const py::object& source_object, const py::object& share,
                  const py::object& share_auto, const py::object& names) {
  const Source source(source_object);
  const ShareRequest request = ShareFrom(source.path(), share, share_auto, names);
  const OpenedProgram opened = source.Open();
  Result<runtime_check::Report> report = cli::CheckForVerify(opened.file, request);
  if (!report.ok()) Raise(source.path(), report.error());
  return Loads(cli::VerifyJson(source.path(), opened.file, *report));
}

// Bytes in: (rewritten bytes, report).
py::object RewriteInMemory(const Source& source, const ShareRequest& share,
                           const PlanOptions& options, bool write_names) {
  std::optional<Result<RewriteOutcome>> outcome;
  {
    py::gil_scoped_release unlocked;
    outcome.emplace(RewriteBytes(source.bytes(), share, options, write_names));
  }
  if (!outcome->ok()) Raise("", outcome->error());
  const RewriteOutcome& done = outcome->value();
  py::bytes bytes(reinterpret_cast<const char*>(done.bytes.data()), done.bytes.size());
  return py::make_tuple(bytes, Loads(cli::RewriteJson("", "", false, done)));
}

// A path in: the report, after writing `output` (or the file in place) as
// `pteshare rewrite FILE -o OUTPUT` does.
py::object RewriteOnDisk(const Source& source, const py::object& output, bool in_place,
                         const ShareRequest& share, const PlanOptions& options, bool write_names) {
  const std::string& file = source.path();
  RewriteRequest request;
  request.input = file;
  request.in_place = in_place;
  request.share = share;
  request.options = options;
  request.write_names = write_names;
  std::string out;
  if (!in_place) {  // a folder means FOLDER/BASENAME, as for the CLI
    Source output_path(output);
    if (output_path.is_bytes()) throw py::type_error("rewrite: output= is a path");
    Result<OutputTarget> target = ResolveOutputTarget(file, output_path.path());
    if (!target.ok()) Raise(output_path.path(), target.error());
    out = target->path.string();
    request.output = target->path;
  }
  // Waiting for another writer, a rollback: warnings, as the CLI's notes;
  // given once the pipeline is done, since a warning may raise.
  std::vector<std::string> notes;
  request.say = [&](const std::string& line) { notes.push_back(line); };
  std::optional<Result<RewriteOutcome>> outcome;
  {
    py::gil_scoped_release unlocked;
    outcome.emplace(RewriteFile(request));
  }
  for (const std::string& note : notes) Warn(file, note);
  if (!outcome->ok()) {
    // A failed write is about the file being written.
    const bool about_output = outcome->error().kind == ErrorKind::kIo && !in_place;
    Raise(about_output ? out : file, outcome->error());
  }
  return Loads(cli::RewriteJson(file, out, in_place, outcome->value()));
}

py::object Rewrite(const py::object& source_object, const py::object& output,
                   const py::object& in_place_object, const py::object& share,
                   const py::object& share_auto, const py::object& names,
                   const py::object& strategy, const py::object& layout,
                   const py::object& alignment, const py::object& arena_limits,
                   const py::object& write_names_object) {
  const bool in_place = BoolKeyword(in_place_object, "in_place");
  const bool write_names = BoolKeyword(write_names_object, "write_names");
  const Source source(source_object);
  const ShareRequest request = ShareFrom(source.path(), share, share_auto, names);
  const PlanOptions options =
      PlanOptionsFrom(source.path(), strategy, layout, alignment, arena_limits);
  if (source.is_bytes()) {
    if (!output.is_none() || in_place) {
      Raise("", Error{"rewrite: bytes in give bytes back; output= and in_place= are for a path"});
    }
    return RewriteInMemory(source, request, options, write_names);
  }
  if (in_place == !output.is_none()) {
    Raise("", Error{"rewrite: give exactly one of output= and in_place=True"});
  }
  return RewriteOnDisk(source, output, in_place, request, options, write_names);
}

}  // namespace
}  // namespace pteshare::python

PYBIND11_MODULE(pteshare, module) {
  namespace py = pybind11;
  using namespace pteshare::python;
  module.doc() =
      "pteshare: make the methods of an ExecuTorch program share their state buffers (KV "
      "caches) at one arena offset. Each function takes a path or the program's bytes and "
      "returns what `pteshare COMMAND --json` prints, as a dict.";
  module.attr("__version__") = PTESHARE_VERSION;
  AddExceptions(module);
  // The docstrings below give the signatures; pybind11's would read
  // (*args, **kwargs), which is how the arguments are taken (call_arguments.h).
  py::options options;
  options.disable_function_signatures();
  const py::object none = py::none();
  const py::object no = py::bool_(false);
  module.def(
      "inspect",
      [](const py::args& args, const py::kwargs& kwargs) {
        const CallArguments call("inspect", args, kwargs, {});
        return Inspect(call.source());
      },
      "inspect(source) -> dict: the program's layout, methods, arenas and mutable "
      "buffers (`pteshare inspect --json`). source: a path or the program's bytes.");
  module.def(
      "plan",
      [none, no](const py::args& args, const py::kwargs& kwargs) {
        const CallArguments call("plan", args, kwargs,
                                 {{"share", none},
                                  {"share_auto", no},
                                  {"names", none},
                                  {"strategy", py::str("best")},
                                  {"layout", py::str("front")},
                                  {"alignment", py::int_(0)},
                                  {"arena_limits", none}});
        return Plan(call.source(), call["share"], call["share_auto"], call["names"],
                    call["strategy"], call["layout"], call["alignment"], call["arena_limits"]);
      },
      "plan(source, *, share=None, share_auto=False, names=None, strategy='best', "
      "layout='front', alignment=0, arena_limits=None) -> dict: the verified plan (`pteshare plan "
      "--json`). Writes nothing.");
  module.def(
      "verify",
      [none, no](const py::args& args, const py::kwargs& kwargs) {
        const CallArguments call("verify", args, kwargs,
                                 {{"share", none}, {"share_auto", no}, {"names", none}});
        return Verify(call.source(), call["share"], call["share_auto"], call["names"]);
      },
      "verify(source, *, share=None, share_auto=False, names=None) -> dict: runtime_check's "
      "findings on the placements (`pteshare verify --json`); 'ok' is False on findings.");
  module.def(
      "rewrite",
      [none, no](const py::args& args, const py::kwargs& kwargs) {
        const CallArguments call("rewrite", args, kwargs,
                                 {{"output", none},
                                  {"in_place", no},
                                  {"share", none},
                                  {"share_auto", no},
                                  {"names", none},
                                  {"strategy", py::str("best")},
                                  {"layout", py::str("front")},
                                  {"alignment", py::int_(0)},
                                  {"arena_limits", none},
                                  {"write_names", no}});
        return Rewrite(call.source(), call["output"], call["in_place"], call["share"],
                       call["share_auto"], call["names"], call["strategy"], call["layout"],
                       call["alignment"], call["arena_limits"], call["write_names"]);
      },
      "rewrite(source, *, output=None, in_place=False, share=None, share_auto=False, "
      "names=None, strategy='best', layout='front', alignment=0, arena_limits=None, "
      "write_names=False): "
      "for bytes, returns (rewritten bytes, dict), the bytes those `pteshare rewrite -o` "
      "writes; for a path, writes output= (or the file itself with in_place=True) and "
      "returns the dict (`pteshare rewrite --json`).");
}

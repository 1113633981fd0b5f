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

py::object Plan(const CallArguments& call, const FunctionKeywords& keywords) {
  const Source source(call.source());
  const std::string& file = source.path();
  options::OptionSettings settings = keywords.Read(file, call);
  // As `pteshare plan`: both strategies' sizes, and what each layout costs.
  settings.plan.compare_strategies = true;
  settings.plan.compare_layouts = true;
  const OpenedProgram opened = source.Open();
  std::optional<Result<VerifiedPlan>> verified;
  {
    py::gil_scoped_release unlocked;
    verified.emplace(PlanAndVerify(opened.view, settings.share, settings.plan));
  }
  if (!verified->ok()) Raise(file, verified->error());
  if (!verified->value().fits()) Raise(file, LimitMisses(verified->value().planned.plan));
  // A plan with violations is reported, as by the CLI ("verified": false).
  return Loads(cli::PlanJson(file, opened.file, opened.view, verified->value()));
}

py::object Verify(const CallArguments& call, const FunctionKeywords& keywords) {
  const Source source(call.source());
  const ShareRequest request = keywords.Read(source.path(), call).share;
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

py::object Rewrite(const CallArguments& call, const FunctionKeywords& keywords) {
  const bool in_place = BoolKeyword(call["in_place"], "in_place");
  const bool write_names = BoolKeyword(call["write_names"], "write_names");
  const py::object output = call["output"];
  const Source source(call.source());
  const options::OptionSettings settings = keywords.Read(source.path(), call);
  if (source.is_bytes()) {
    if (!output.is_none() || in_place) {
      Raise("", Error{"rewrite: bytes in give bytes back; output= and in_place= are for a path"});
    }
    return RewriteInMemory(source, settings.share, settings.plan, write_names);
  }
  if (in_place == !output.is_none()) {
    Raise("", Error{"rewrite: give exactly one of output= and in_place=True"});
  }
  return RewriteOnDisk(source, output, in_place, settings.share, settings.plan, write_names);
}

}  // namespace
}  // namespace pteshare::python

PYBIND11_MODULE(pteshare, module) {
  namespace py = pybind11;
  using namespace pteshare::python;
  using pteshare::options::OptionGroup;
  module.doc() =
      "pteshare: make the methods of an ExecuTorch program share their state buffers (KV "
      "caches) at one arena offset. Each function takes a path or the program's bytes and "
      "returns what `pteshare COMMAND --json` prints, as a dict.";
  module.attr("__version__") = PTESHARE_VERSION;
  AddExceptions(module);
  // The docstrings below give the signatures; pybind11's would read
  // (*args, **kwargs), which is how the arguments are taken (call_arguments.h).
  // pybind11 copies a docstring, so each may be made here.
  py::options options;
  options.disable_function_signatures();
  // Each function's keywords: the option table's (keywords.h) and a
  // function's own; the signature in its docstring is made from the same
  // list.
  const py::object none = py::none();
  const py::object no = py::bool_(false);
  const FunctionKeywords inspect_keywords({}, {});
  const FunctionKeywords plan_keywords({}, {OptionGroup::kShare, OptionGroup::kPlan});
  const FunctionKeywords verify_keywords({}, {OptionGroup::kShare});
  const FunctionKeywords rewrite_keywords({{"output", none}, {"in_place", no}},
                                          {OptionGroup::kShare, OptionGroup::kPlan},
                                          {{"write_names", no}});
  module.def(
      "inspect",
      [inspect_keywords](const py::args& args, const py::kwargs& kwargs) {
        const CallArguments call("inspect", args, kwargs, inspect_keywords.defaults());
        return Inspect(call.source());
      },
      (inspect_keywords.Signature("inspect") +
       " -> dict: the program's layout, methods, arenas and mutable buffers (`pteshare inspect "
       "--json`). source: a path or the program's bytes.")
          .c_str());
  module.def(
      "plan",
      [plan_keywords](const py::args& args, const py::kwargs& kwargs) {
        const CallArguments call("plan", args, kwargs, plan_keywords.defaults());
        return Plan(call, plan_keywords);
      },
      (plan_keywords.Signature("plan") +
       " -> dict: the verified plan (`pteshare plan --json`). Writes nothing.")
          .c_str());
  module.def(
      "verify",
      [verify_keywords](const py::args& args, const py::kwargs& kwargs) {
        const CallArguments call("verify", args, kwargs, verify_keywords.defaults());
        return Verify(call, verify_keywords);
      },
      (verify_keywords.Signature("verify") +
       " -> dict: runtime_check's findings on the placements (`pteshare verify --json`); 'ok' "
       "is False on findings.")
          .c_str());
  module.def(
      "rewrite",
      [rewrite_keywords](const py::args& args, const py::kwargs& kwargs) {
        const CallArguments call("rewrite", args, kwargs, rewrite_keywords.defaults());
        return Rewrite(call, rewrite_keywords);
      },
      (rewrite_keywords.Signature("rewrite") +
       ": for bytes, returns (rewritten bytes, dict), the bytes those `pteshare rewrite -o` "
       "writes; for a path, writes output= (or the file itself with in_place=True) and returns "
       "the dict (`pteshare rewrite --json`).")
          .c_str());
}

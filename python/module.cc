// `pteshare._native`: the C++ under the `pteshare` package
// (python/pteshare/__init__.py is the typed, documented API over it). The
// CLI's inspect, plan, verify, rewrite and plot on a path or on the
// program's bytes: each returns what the command's --json prints, as a
// dict (the same C++ builds the same JSON text, tools/report/, which
// json.loads turns into the dict), and run_cli is the whole command line.
// Errors raise pteshare.Error subclasses (errors.h) with the CLI's one-line
// messages, the options named by their keywords.
#include <pybind11/pybind11.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "python/call_arguments.h"
#include "python/errors.h"
#include "python/keywords.h"
#include "python/source.h"
#include "rewriter/rewrite.h"
#include "rewriter/write/output_target.h"
#include "tools/plot/plot_document.h"
#include "tools/pteshare/command_line.h"
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
  Result<runtime_check::Report> report = cli::CheckForVerify(opened, request);
  if (!report.ok()) Raise(source.path(), report.error());
  return Loads(cli::VerifyJson(source.path(), opened.file, *report));
}

// The Python side of OutputMemory (rewrite.h): a bytes object made
// uninitialised, with the GIL taken back for that moment, for the library
// to fill while the GIL is released. The bytes are made once, in the
// object returned: no copy of the rewritten file, no zero-fill.
class BytesOutput {
 public:
  OutputMemory Allocator() {
    return [this](uint64_t size) -> Result<std::span<uint8_t>> {
      py::gil_scoped_acquire locked;
      if (size > static_cast<uint64_t>(PY_SSIZE_T_MAX)) {
        return Error{"the rewritten program of " + std::to_string(size) +
                     " bytes is too large for a Python bytes object"};
      }
      PyObject* made = PyBytes_FromStringAndSize(nullptr, static_cast<Py_ssize_t>(size));
      if (made == nullptr) {  // MemoryError: raised as it is, once the rewrite has returned
        failure_.emplace();
        return Error{"cannot allocate " + std::to_string(size) + " bytes"};
      }
      bytes_ = py::reinterpret_steal<py::object>(made);
      return std::span<uint8_t>(reinterpret_cast<uint8_t*>(PyBytes_AS_STRING(made)), size);
    };
  }
  /// Raises the allocation's Python error, if it failed.
  void RaiseFailure() {
    if (failure_) throw *failure_;
  }
  const py::object& bytes() const { return bytes_; }

 private:
  py::object bytes_;  // made and released with the GIL held
  std::optional<py::error_already_set> failure_;
};

// Bytes in: (rewritten bytes, report). `name`: the file the bytes were
// read from, for the messages and the report, or empty.
py::object RewriteInMemory(const Source& source, const std::string& name, const ShareRequest& share,
                           const PlanOptions& options, WriteNames write_names) {
  BytesOutput output;
  std::optional<Result<RewriteOutcome>> outcome;
  {
    py::gil_scoped_release unlocked;
    outcome.emplace(
        RewriteBytesInto(source.bytes(), share, options, write_names, output.Allocator()));
  }
  output.RaiseFailure();
  if (!outcome->ok()) Raise(name, outcome->error());
  return py::make_tuple(output.bytes(), Loads(cli::RewriteJson(name, "", false, outcome->value())));
}

// A path in: the report, after writing `output` (or the file in place) as
// `pteshare rewrite FILE -o OUTPUT` does.
py::object RewriteOnDisk(const Source& source, const py::object& output, bool in_place,
                         const ShareRequest& share, const PlanOptions& options,
                         WriteNames write_names) {
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
  return py::make_tuple(py::none(), Loads(cli::RewriteJson(file, out, in_place, outcome->value())));
}

// (bytes or None, report): bytes for bytes in, None for a path.
py::object Rewrite(const CallArguments& call, const FunctionKeywords& keywords) {
  const bool in_place = BoolKeyword(call["in_place"], "in_place");
  // write_names=True stores the names given; allow_position_names=True
  // also a pair's made-up paired_state.K (rewrite.h, WriteNames).
  const bool names_on = BoolKeyword(call["write_names"], "write_names");
  const bool positions = BoolKeyword(call["allow_position_names"], "allow_position_names");
  const WriteNames write_names = !names_on   ? WriteNames::kNo
                                 : positions ? WriteNames::kGivenAndPositions
                                             : WriteNames::kGiven;
  const py::object output = call["output"];
  const py::object file_name = call["file_name"];
  const Source source(call.source());
  const std::string name =
      source.is_bytes() && !file_name.is_none() ? file_name.cast<std::string>() : source.path();
  const options::OptionSettings settings = keywords.Read(name, call);
  if (source.is_bytes()) {
    if (!output.is_none() || in_place) {
      Raise(name, Error{"rewrite(): output= and in_place=True write a file: give the program's "
                        "path, or take the rewritten bytes from the result's .data"});
    }
    return RewriteInMemory(source, name, settings.share, settings.plan, write_names);
  }
  if (in_place == !output.is_none()) {
    Raise(source.path(), Error{in_place ? "rewrite(): give output= or in_place=True, not both"
                                        : "rewrite(): say where the result goes: output=PATH, "
                                          "in_place=True, or return_data=True for the bytes "
                                          "alone"});
  }
  return RewriteOnDisk(source, output, in_place, settings.share, settings.plan, write_names);
}

// trace=: False (or None) for no trace, True for the trace in the facts, a
// path to write it there too. Returns the path ("" for none).
std::string TracePath(const py::object& trace, bool* wanted) {
  *wanted = false;
  if (trace.is_none()) return "";
  if (py::isinstance<py::bool_>(trace)) {
    *wanted = trace.cast<bool>();
    return "";
  }
  Source path(trace);
  if (path.is_bytes()) throw py::type_error("plot(): trace= is True or a path");
  *wanted = true;
  return path.path();
}

// (document, facts): the picture `pteshare plot` draws, written to out=
// when given, and its trace when asked for.
py::object Plot(const CallArguments& call, const FunctionKeywords& keywords) {
  const py::object out = call["out"];
  const py::object method_object = call["method"];
  const py::object format_object = call["format"];
  const Source source(call.source());
  const std::string& file = source.path();
  const options::OptionSettings settings = keywords.Read(file, call);
  plot::PlotInput input;
  input.file = file.empty() ? "program" : file;
  input.arena_limits = settings.plan.arena_limits;
  if (!method_object.is_none()) input.method = method_object.cast<std::string>();
  std::string out_path;
  if (!out.is_none()) {
    Source out_source(out);
    if (out_source.is_bytes()) throw py::type_error("plot(): out= is a path");
    out_path = out_source.path();
    Result<plot::PictureFormat> format = plot::PictureFormatOf(out_path, false);
    if (!format.ok()) Raise(out_path, format.error());
    input.format = *format;
  }
  if (!format_object.is_none()) {
    const std::string word = format_object.cast<std::string>();
    Result<plot::PictureFormat> asked = plot::PictureFormatNamed(word);
    if (!asked.ok()) Raise(file, asked.error());
    if (!out_path.empty() && *asked != input.format) {
      Raise(out_path, Error{"format='" + word +
                            "' but out= names another format (its "
                            "extension decides); give one of them"});
    }
    input.format = *asked;
  }
  const std::string trace_path = TracePath(call["trace"], &input.trace);
  const OpenedProgram opened = source.Open();
  const ProgramView& view = opened.view;
  input.view = &view;
  if (Status method = plot::CheckPlotMethod(view, input.method); !method.ok()) {
    Raise(file, method.error());
  }
  // The plan `plan()` makes with the same keywords; without buffers to
  // share, a program the planner refuses is drawn as it stands (as the CLI).
  std::optional<Result<VerifiedPlan>> verified;
  plot::PicturePlan default_plan;
  const bool shares = settings.share.chooses_buffers() || !settings.share.namings.empty();
  {
    py::gil_scoped_release unlocked;
    if (shares) {
      verified.emplace(PlanAndVerify(view, settings.share, settings.plan));
    } else {
      default_plan = plot::DefaultPlan(view, settings.plan);
    }
  }
  if (verified && !verified->ok()) Raise(file, verified->error());
  if (verified) {
    input.plan = &verified->value();
  } else if (default_plan.plan) {
    input.plan = &*default_plan.plan;
  }
  input.not_planned = default_plan.not_planned;
  plot::PlotDocument document;
  {
    py::gil_scoped_release unlocked;
    document = plot::RenderPlot(input);
  }
  using Output = std::pair<const std::string*, const std::string*>;
  for (const auto& [path, text] :
       {Output{&out_path, &document.text}, Output{&trace_path, &document.trace}}) {
    if (path->empty()) continue;
    Status written;
    {
      py::gil_scoped_release unlocked;
      written = plot::WritePicture(*path, *text);
    }
    if (!written.ok()) Raise(*path, written.error());
  }
  py::dict facts;
  facts["panels"] = document.stats.panels;
  facts["tensor_rectangles"] = document.stats.tensor_rects;
  facts["density_tensors"] = document.stats.aggregated_tensors;
  facts["zoom_panels"] = document.stats.zoom_panels;
  facts["planned"] = input.plan != nullptr;
  facts["changed"] = document.after;
  facts["caption"] = document.caption;
  facts["fits"] = input.plan == nullptr || input.plan->fits();
  facts["verified"] = input.plan == nullptr || input.plan->verified();
  facts["format"] = plot::PictureFormatName(input.format);
  facts["trace"] = input.trace ? Loads(document.trace) : py::none();
  return py::make_tuple(py::str(document.text), facts);
}

// The whole command line, as the pteshare executable runs it. The
// arguments come as bytes (os.fsencode: what the executable's argv holds).
int RunCli(const py::list& argv) {
  std::vector<std::string> args;
  for (const py::handle arg : argv) {
    if (!py::isinstance<py::bytes>(arg)) throw py::type_error("run_cli(): argv holds bytes");
    args.push_back(arg.cast<std::string>());
  }
  std::vector<const char*> pointers;
  for (const std::string& arg : args) pointers.push_back(arg.c_str());
  py::gil_scoped_release unlocked;
  return cli::RunCommandLine(static_cast<int>(pointers.size()), pointers.data());
}

}  // namespace
}  // namespace pteshare::python

PYBIND11_MODULE(_native, module) {
  namespace py = pybind11;
  using namespace pteshare::python;
  using pteshare::options::OptionGroup;
  module.doc() =
      "The C++ under pteshare (use the package's functions: they are typed and documented). "
      "Each function takes keywords only after the program and returns what `pteshare COMMAND "
      "--json` prints, as a dict.";
  module.attr("__version__") = PTESHARE_VERSION;
  AddExceptions(module);
  const py::object none = py::none();
  const py::object no = py::bool_(false);
  // Each function's keywords: its own and the option table's (keywords.h),
  // in the order of the package's signatures. keywords(NAME) lists them
  // with their defaults, so that a test holds the package to the table.
  // Never freed: they hold Python objects, which must not be released
  // after the interpreter has ended.
  static const FunctionKeywords& inspect_keywords = *new FunctionKeywords({}, {});
  static const FunctionKeywords& plan_keywords =
      *new FunctionKeywords({}, {OptionGroup::kShare, OptionGroup::kPlan});
  static const FunctionKeywords& verify_keywords = *new FunctionKeywords({}, {OptionGroup::kShare});
  static const FunctionKeywords& rewrite_keywords = *new FunctionKeywords(
      {{"output", none}, {"in_place", no}}, {OptionGroup::kShare, OptionGroup::kPlan},
      {{"write_names", no}, {"allow_position_names", no}, {"file_name", none}});
  static const FunctionKeywords& plot_keywords =
      *new FunctionKeywords({{"out", none}, {"method", none}, {"format", none}, {"trace", no}},
                            {OptionGroup::kShare, OptionGroup::kPlan});
  module.def(
      "inspect",
      [](const py::args& args, const py::kwargs& kwargs) {
        const CallArguments call("inspect", args, kwargs, inspect_keywords.defaults());
        return Inspect(call.source());
      },
      "inspect(program) -> dict (`pteshare inspect --json`)");
  module.def(
      "plan",
      [](const py::args& args, const py::kwargs& kwargs) {
        const CallArguments call("plan", args, kwargs, plan_keywords.defaults());
        return Plan(call, plan_keywords);
      },
      "plan(program, **options) -> dict (`pteshare plan --json`)");
  module.def(
      "verify",
      [](const py::args& args, const py::kwargs& kwargs) {
        const CallArguments call("verify", args, kwargs, verify_keywords.defaults());
        return Verify(call, verify_keywords);
      },
      "verify(program, **options) -> dict (`pteshare verify --json`)");
  module.def(
      "rewrite",
      [](const py::args& args, const py::kwargs& kwargs) {
        const CallArguments call("rewrite", args, kwargs, rewrite_keywords.defaults());
        return Rewrite(call, rewrite_keywords);
      },
      "rewrite(program, **options) -> (bytes | None, dict) (`pteshare rewrite --json`)");
  module.def(
      "plot",
      [](const py::args& args, const py::kwargs& kwargs) {
        const CallArguments call("plot", args, kwargs, plot_keywords.defaults());
        return Plot(call, plot_keywords);
      },
      "plot(program, **options) -> (str, dict): the picture `pteshare plot` draws");
  module.def("run_cli", &RunCli, py::arg("argv"),
             "The pteshare command line (argv[0] is the program's name): prints as the "
             "executable does and returns its exit status.");
  module.def(
      "keywords",
      [](const std::string& function) -> py::list {
        const FunctionKeywords* keywords = function == "inspect"   ? &inspect_keywords
                                           : function == "plan"    ? &plan_keywords
                                           : function == "verify"  ? &verify_keywords
                                           : function == "rewrite" ? &rewrite_keywords
                                           : function == "plot"    ? &plot_keywords
                                                                   : nullptr;
        if (keywords == nullptr) throw py::value_error("no function '" + function + "'");
        py::list list;
        for (const auto& [keyword, fallback] : keywords->defaults()) {
          list.append(py::make_tuple(keyword, fallback));
        }
        return list;
      },
      py::arg("function"), "keywords(function) -> [(keyword, default)]: what it takes, in order");
}

// The option table (tools/options/option_table.h) and the two front ends
// that walk it: every row is a flag in the --help of each command that
// takes it and a keyword, with its default, in the signature of each Python
// function that takes it; each kind of value is read from text as the CLI
// reads it; and a bad value gets the same reason from the CLI and from
// Python, each naming the option its own way.
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "tests/test_support.h"
#include "tools/options/option_table.h"
#include "tools/options/option_text.h"

namespace pteshare {
namespace {

using options::OptionGroup;
using options::OptionRow;
using options::OptionSettings;
using options::OptionValue;
using options::ValueKind;
using test_support::CommandOutput;
using test_support::Contains;
using test_support::RunTool;
using test_support::TempDir;

const OptionRow& Row(const std::string& flag) {
  for (const OptionRow& row : options::OptionTable()) {
    if (row.flag == flag) return row;
  }
  ADD_FAILURE() << "no row " << flag;
  return options::OptionTable().front();
}

// The commands and Python functions that take each group.
const std::map<OptionGroup, std::vector<std::string>> kCommandsTaking = {
    {OptionGroup::kShare, {"plan", "rewrite", "verify", "plot"}},
    {OptionGroup::kPlan, {"plan", "rewrite", "plot"}}};
const std::map<OptionGroup, std::vector<std::string>> kFunctionsTaking = {
    {OptionGroup::kShare, {"plan", "rewrite", "verify"}},
    {OptionGroup::kPlan, {"plan", "rewrite"}}};

bool Takes(const std::map<OptionGroup, std::vector<std::string>>& taking, OptionGroup group,
           const std::string& name) {
  for (const std::string& taker : taking.at(group)) {
    if (taker == name) return true;
  }
  return false;
}

// The row's value from `texts` stored in fresh settings; the read's error
// if it failed.
Result<OptionSettings> Read(const OptionRow& row, const std::vector<std::string>& texts) {
  Result<OptionValue> value = options::ReadTexts(row, texts);
  if (!value.ok()) return value.error();
  OptionSettings settings;
  row.set(settings, std::move(value).value());
  return settings;
}

std::string ErrorOf(const OptionRow& row, const std::vector<std::string>& texts) {
  Result<OptionValue> value = options::ReadTexts(row, texts);
  return value.ok() ? "(read)" : value.error().message;
}

TEST(OptionTable, EveryRowIsInTheHelpOfEachCommandThatTakesIt) {
  for (const std::string command : {"inspect", "plan", "rewrite", "verify", "plot", "pack"}) {
    SCOPED_TRACE(command);
    const CommandOutput help = RunTool("pteshare", {command, "--help"});
    ASSERT_EQ(help.exit_status, 0) << help.err;
    for (const OptionRow& row : options::OptionTable()) {
      SCOPED_TRACE(row.flag);
      const std::string usage =
          "  " + std::string(row.flag) +
          (row.kind == ValueKind::kSwitch ? "" : " " + options::ValueName(row)) +
          (row.kind == ValueKind::kWord ? "=" + std::string(row.default_text) : "");
      if (!Takes(kCommandsTaking, row.group, command)) {
        // pack has an --alignment of its own: the row's help is what must
        // be absent.
        EXPECT_FALSE(Contains(help.out, row.help)) << help.out;
        continue;
      }
      EXPECT_TRUE(Contains(help.out, usage)) << help.out;
      EXPECT_TRUE(Contains(help.out, row.help)) << help.out;
    }
  }
}

TEST(OptionTable, AWordIsOneOfTheLibrarysNames) {
  const OptionRow& strategy = Row("--strategy");
  EXPECT_EQ(options::ValueName(strategy), "relocate|replan|best");
  EXPECT_EQ(options::WordList(Row("--layout")), "front or arena");
  Result<OptionSettings> replan = Read(strategy, {"replan"});
  ASSERT_TRUE(replan.ok()) << replan.error().message;
  EXPECT_EQ(replan->plan.strategy, Strategy::kReplan);
  // Not given: the front ends' default, best (the library's is relocate).
  EXPECT_EQ(Read(strategy, {})->plan.strategy, Strategy::kBest);
  EXPECT_EQ(Read(Row("--layout"), {"arena"})->plan.layout, Layout::kArena);
  EXPECT_EQ(ErrorOf(strategy, {"2"}), "--strategy: '2': expected relocate, replan or best");
  EXPECT_EQ(ErrorOf(Row("--layout"), {""}), "--layout: '': expected front or arena");
}

TEST(OptionTable, AnUnsignedIsDigitsOnlyAndEchoedAsTyped) {
  const OptionRow& alignment = Row("--alignment");
  EXPECT_EQ(Read(alignment, {"64"})->plan.alignment, 64u);
  EXPECT_EQ(Read(alignment, {})->plan.alignment, 0u);  // detected
  EXPECT_EQ(ErrorOf(alignment, {"-1"}), "--alignment: '-1' is not a non-negative integer");
  EXPECT_EQ(ErrorOf(alignment, {"0x10"}), "--alignment: '0x10' is not a non-negative integer");
  EXPECT_EQ(ErrorOf(alignment, {"18446744073709551616"}),
            "--alignment: '18446744073709551616' is more than 18446744073709551615");
  EXPECT_EQ(options::ReadUnsigned("4294967296", UINT32_MAX).error().message,
            "'4294967296' is more than 4294967295");
}

TEST(OptionTable, ArenaLimitsAreIdEqualsBytesOnePerArena) {
  const OptionRow& limit = Row("--arena-limit");
  Result<OptionSettings> read = Read(limit, {"1=1048576", "2=0", "1=1048576"});
  ASSERT_TRUE(read.ok()) << read.error().message;
  EXPECT_EQ(read->plan.arena_limits, (std::map<uint32_t, uint64_t>{{1, 1048576}, {2, 0}}));
  EXPECT_TRUE(Read(limit, {})->plan.arena_limits.empty());
  EXPECT_EQ(ErrorOf(limit, {"1:5"}), "--arena-limit '1:5': expected ID=BYTES, e.g. 1=1048576");
  EXPECT_EQ(ErrorOf(limit, {"1=5x"}), "--arena-limit '1=5x': expected ID=BYTES, e.g. 1=1048576");
  EXPECT_EQ(ErrorOf(limit, {"=5"}), "--arena-limit '=5': expected ID=BYTES, e.g. 1=1048576");
  EXPECT_EQ(ErrorOf(limit, {"0=5"}), "--arena-limit '0=5': arena ids start at 1");
  EXPECT_EQ(ErrorOf(limit, {"1=5", "1=6"}), "--arena-limit: arena 1 is given two limits, 5 and 6");
}

TEST(OptionTable, NamesAndNamingsAndSwitches) {
  Result<OptionSettings> share = Read(Row("--share"), {"a", "b"});
  EXPECT_EQ(share->share.names, (std::vector<std::string>{"a", "b"}));
  EXPECT_FALSE(Read(Row("--share-auto"), {})->share.share_auto);
  EXPECT_TRUE(Read(Row("--share-auto"), {"--share-auto"})->share.share_auto);

  const OptionRow& name = Row("--name");
  Result<OptionSettings> named = Read(name, {"prefill:22=k0", "a:b:3=x"});
  ASSERT_TRUE(named.ok()) << named.error().message;
  ASSERT_EQ(named->share.namings.size(), 2u);
  EXPECT_EQ(named->share.namings[0].method, "prefill");
  EXPECT_EQ(named->share.namings[0].value_index, 22u);
  EXPECT_EQ(named->share.namings[0].name, "k0");
  EXPECT_EQ(named->share.namings[1].method, "a:b");  // split at the last ':'
  EXPECT_EQ(ErrorOf(name, {"prefill=oops"}),
            "--name 'prefill=oops': expected METHOD:VALUE_INDEX=NAME or paired_state.K=NAME");
  EXPECT_EQ(ErrorOf(name, {"decode:22="}),
            "--name 'decode:22=': expected METHOD:VALUE_INDEX=NAME or paired_state.K=NAME");
  EXPECT_EQ(ErrorOf(name, {"decode:x=y"}),
            "--name 'decode:x=y': VALUE_INDEX 'x' is not a non-negative integer");
  // A pair of unnamed state, by the K of its paired_state.K.
  Result<OptionSettings> pair = Read(name, {"paired_state.012=layers.6.v_cache"});
  ASSERT_TRUE(pair.ok()) << pair.error().message;
  EXPECT_EQ(pair->share.namings[0].pair, 12u);
  EXPECT_EQ(pair->share.namings[0].name, "layers.6.v_cache");
  EXPECT_EQ(ErrorOf(name, {"paired_state.x=k"}),
            "--name 'paired_state.x=k': K 'x' of paired_state.K is not a non-negative integer");
}

// --names-from: --name's namings, a line each, read from a file; added to
// those of --name (in either order), each knowing its file and line.
TEST(OptionTable, NamesFromReadsNamingsWithTheirFileAndLine) {
  TempDir dir;
  const std::string file = (dir / "names.txt").string();
  test_support::WriteFileBytes(file,
                               "# the caches\n"
                               "paired_state.000=layers.0.k_cache  # prefill:34 <-> decode:34\n"
                               "\n"
                               "  prefill:50=extra\r\n");
  const OptionRow& from = Row("--names-from");
  Result<OptionSettings> read = Read(from, {file});
  ASSERT_TRUE(read.ok()) << read.error().message;
  const std::vector<ValueNaming>& namings = read->share.namings;
  ASSERT_EQ(namings.size(), 2u);
  EXPECT_EQ(namings[0].pair, 0u);
  EXPECT_EQ(namings[0].name, "layers.0.k_cache");
  EXPECT_EQ(namings[0].origin, file + ":2");
  EXPECT_EQ(namings[1].method, "prefill");
  EXPECT_EQ(namings[1].value_index, 50u);
  EXPECT_EQ(namings[1].origin, file + ":4");
  OptionSettings both;
  Row("--name").set(both, std::vector<ValueNaming>{{"decode", 1, "d"}});
  from.set(both, namings);
  EXPECT_EQ(both.share.namings.size(), 3u);
  // A bad line is the file's error, naming its line (names_file_test.cc).
  test_support::WriteFileBytes(file, "paired_state.000=k\nfoo\n");
  EXPECT_EQ(ErrorOf(from, {file}),
            file + ":2: expected METHOD:VALUE_INDEX=NAME or paired_state.K=NAME, got 'foo'");
}

#if defined(PTESHARE_PYTHON_EXECUTABLE) && defined(PTESHARE_PYTHON_MODULE_DIR)

// Runs `script` in the interpreter the module was built for, with the
// build's module importable and `file` as sys.argv[1]; its stdout.
std::string RunPython(const TempDir& dir, const std::string& script, const std::string& file) {
  const std::string script_path = (dir / "script.py").string();
  const std::string out_path = (dir / "out.txt").string();
  test_support::WriteFileBytes(script_path, script);
  const std::string command = "PYTHONPATH='" + std::string(PTESHARE_PYTHON_MODULE_DIR) + "' '" +
                              PTESHARE_PYTHON_EXECUTABLE + "' '" + script_path + "' '" + file +
                              "' > '" + out_path + "' 2>&1";
  EXPECT_EQ(std::system(command.c_str()), 0) << test_support::ReadFileBytes(out_path);
  return test_support::ReadFileBytes(out_path);
}

// The keyword's default as the docstring shows it.
std::string PythonDefault(const OptionRow& row) {
  switch (row.kind) {
    case ValueKind::kWord:
      return "'" + std::string(row.default_text) + "'";
    case ValueKind::kUnsigned:
      return row.default_text;
    case ValueKind::kSwitch:
      return "False";
    default:
      return "None";
  }
}

TEST(OptionTable, EveryRowIsAKeywordOfEachFunctionThatTakesIt) {
  TempDir dir;
  const std::string file = test_support::SynthLlm(dir.path(), "llm.pte");
  // Each function's docstring, then, for each row, whether the function
  // takes its keyword with the default the docstring shows given
  // explicitly ("takes"), or the TypeError it raises.
  std::string rows = "rows = {";
  for (const OptionRow& row : options::OptionTable()) {
    rows += "'" + std::string(row.keyword) + "': " + PythonDefault(row) + ", ";
  }
  const std::string script =
      "import inspect, sys, pteshare\n" + rows +
      "}\n"
      "for name in ('plan', 'rewrite', 'verify'):\n"
      "    f = getattr(pteshare, name)\n"
      "    shown = [p.name + ('' if p.default is p.empty else '=' + repr(p.default))\n"
      "             for p in inspect.signature(f).parameters.values()]\n"
      "    print('doc', name, name + '(' + ', '.join(shown) + ')')\n"
      "    extra = {'output': sys.argv[1] + '.out'} if name == 'rewrite' else {}\n"
      "    for keyword, default in rows.items():\n"
      "        given = dict(extra, share_auto=True)\n"
      "        given[keyword] = default\n"
      "        try:\n"
      "            f(sys.argv[1], **given)\n"
      "            print('takes', name, keyword)\n"
      "        except TypeError as error:\n"
      "            print('refuses', name, keyword, error)\n";
  const std::string out = RunPython(dir, script, file);
  for (const std::string function : {"plan", "rewrite", "verify"}) {
    SCOPED_TRACE(function);
    for (const OptionRow& row : options::OptionTable()) {
      SCOPED_TRACE(row.keyword);
      const std::string in_signature = " " + std::string(row.keyword) + "=" + PythonDefault(row);
      const std::string taken = "takes " + function + " " + row.keyword + "\n";
      if (Takes(kFunctionsTaking, row.group, function)) {
        EXPECT_TRUE(Contains(out, "doc " + function + " " + function + "(program, ")) << out;
        EXPECT_TRUE(Contains(out, in_signature)) << out;
        EXPECT_TRUE(Contains(out, taken)) << out;
      } else {
        EXPECT_FALSE(Contains(out, taken)) << out;
        EXPECT_TRUE(Contains(out, "refuses " + function + " " + row.keyword + " " + function +
                                      "() got an unexpected keyword argument '" + row.keyword +
                                      "'"))
            << out;
      }
    }
  }
}

// The reason after the option's name is the table's, from both front ends:
// the CLI names the flag, Python the keyword.
TEST(OptionTable, TheCliAndPythonGiveTheSameReasonForTheSameBadValue) {
  TempDir dir;
  const std::string file = test_support::SynthLlm(dir.path(), "llm.pte");
  struct Case {
    std::vector<std::string> flags;  // after `pteshare plan FILE --share-auto`
    std::string keywords;            // Python: pteshare.plan(FILE, share_auto=True, ...)
    std::string reason;              // the table's (or the library's) words
  };
  const std::vector<Case> cases = {
      {{"--strategy", "fastest"},
       "strategy='fastest'",
       options::ReadWord(Row("--strategy"), "fastest").error().message},
      {{"--layout", "back"},
       "layout='back'",
       options::ReadWord(Row("--layout"), "back").error().message},
      {{"--arena-limit", "0=5"}, "arena_limits={0: 5}", options::CheckArenaId(0).error().message},
      // Checked by the library, past the table: the same line, the option
      // named as each front end takes it (python/keyword_message.h).
      {{"--alignment", "24"}, "alignment=24", "24 is not a power of two"},
  };
  std::string script = "import sys, pteshare\n";
  for (const Case& c : cases) {
    script += "try:\n    pteshare.plan(sys.argv[1], share_auto=True, " + c.keywords +
              ")\nexcept pteshare.BadInputError as error:\n    print(error)\n";
  }
  std::istringstream python(RunPython(dir, script, file));
  for (const Case& c : cases) {
    SCOPED_TRACE(c.keywords);
    std::vector<std::string> args = {"plan", file, "--share-auto"};
    args.insert(args.end(), c.flags.begin(), c.flags.end());
    const CommandOutput cli = RunTool("pteshare", args);
    EXPECT_EQ(cli.exit_status, 2) << cli.err;
    std::string raised;
    std::getline(python, raised);
    EXPECT_TRUE(Contains(cli.err, c.reason)) << cli.err;
    EXPECT_TRUE(Contains(raised, file + ": ")) << raised;
    EXPECT_TRUE(Contains(raised, c.reason)) << raised;
    const OptionRow& row = Row(c.flags[0]);
    EXPECT_TRUE(Contains(cli.err, "pteshare: ")) << cli.err;
    EXPECT_TRUE(Contains(cli.err, row.flag)) << cli.err;
    EXPECT_TRUE(Contains(raised, row.keyword)) << raised;
    EXPECT_FALSE(Contains(raised, row.flag)) << raised;
  }
}

#endif

}  // namespace
}  // namespace pteshare

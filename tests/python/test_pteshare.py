"""The Python package (python/pteshare/__init__.py) as an export script
uses it, against the CLI.

Every result is compared with what the pteshare executable of the same
build prints or writes for the same input and options: the rewritten bytes
byte for byte, the dicts against json.loads of --json, the exceptions'
messages against the CLI's one-line errors (options named by keyword).
ctest runs this with the interpreter of a fresh virtual environment the
build's wheel was installed in (tests/python/install_wheel.py), and
PTESHARE_BIN naming the programs' folder; the corpus cases skip, saying so,
when ../shared/corpus is absent.
"""

import csv
import json
import os
import pathlib
import subprocess
import tempfile
import unittest

import pteshare

BIN = pathlib.Path(os.environ["PTESHARE_BIN"])
CORPUS = pathlib.Path(os.environ.get("PTESHARE_SHARED_DIR", "")) / "corpus"
# Corpus files above this size are left to the C++ corpus tests.
CORPUS_MAX_BYTES = 4 << 20
# The programs run without the sanitizer runtime ctest preloads into the
# interpreter in a sanitizer build: they carry their own (clang links it
# into each program, and two ASan runtimes in one process refuse to start).
TOOL_ENV = {key: value for key, value in os.environ.items() if key != "LD_PRELOAD"}


def cli(*args):
    """Runs the pteshare executable; returns (exit status, stdout, stderr)."""
    done = subprocess.run([str(BIN / "pteshare"), *map(str, args)], capture_output=True,
                          text=True, check=False, env=TOOL_ENV)
    return done.returncode, done.stdout, done.stderr


def cli_error(stderr):
    """The CLI's error line without its "pteshare: " prefix, its flags named
    as the keywords the cases below give (python/keyword_message.h)."""
    lines = [line for line in stderr.splitlines() if line.startswith("pteshare: ")]
    assert lines, stderr
    line = lines[-1][len("pteshare: "):]
    for flag, keyword in (("--arena-limit", "arena_limits"), ("--share-auto", "share_auto=True"),
                          ("--share NAME", "share=['NAME']")):
        line = line.replace(flag, keyword)
    return line


def synth_llm(path, *extra, layers=2):
    subprocess.run([str(BIN / "pte-synth"), "llm", "--layers", str(layers), "-o", str(path),
                    *extra],
                   check=True, capture_output=True, env=TOOL_ENV)
    return path


def corpus_files(extension):
    """Corpus files of one kind, small enough here, in MANIFEST order."""
    manifest = CORPUS / "MANIFEST.tsv"
    if not manifest.is_file():
        return []
    with open(manifest, newline="", encoding="utf-8", errors="replace") as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    return [CORPUS / row["file"] for row in rows
            if row["file"].endswith(extension) and int(row["bytes"]) <= CORPUS_MAX_BYTES]


def flags(share=None, share_auto=False, names=None, names_from=None, strategy=None,
          layout=None, arena_limits=None, write_names=False, allow_position_names=False):
    """The CLI flags for the module's keyword arguments."""
    out = []
    for name in [share] if isinstance(share, str) else share or []:
        out += ["--share", name]
    if share_auto:
        out.append("--share-auto")
    for key, name in (names or {}).items():
        key = key if isinstance(key, str) else f"{key[0]}:{key[1]}"
        out += ["--name", f"{key}={name}"]
    if names_from is not None:
        out += ["--names-from", os.fspath(names_from)]
    if strategy:
        out += ["--strategy", strategy]
    if layout:
        out += ["--layout", layout]
    for memory_id, limit in (arena_limits or {}).items():
        out += ["--arena-limit", f"{memory_id}={limit}"]
    if write_names:
        out.append("--write-names")
    if allow_position_names:
        out.append("--allow-position-names")
    return out


class PteshareTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.dir = pathlib.Path(cls.tmp.name)
        cls.llm = synth_llm(cls.dir / "llm.pte")  # unnamed caches, as exported
        cls.named = synth_llm(cls.dir / "named.pte", "--named")

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def expect_rewrite_parity(self, path, **options):
        """rewrite(bytes) and rewrite(path) against `pteshare rewrite -o`."""
        cli_out = self.dir / ("cli-" + path.name)
        status, stdout, stderr = cli("rewrite", path, "-o", cli_out, "--json", *flags(**options))
        data = path.read_bytes()
        if status not in (0, 3):  # refused: the same class of error, the same message
            error = pteshare.BadInputError if status == 2 else pteshare.NoValidPlanError
            with self.assertRaises(error) as raised:
                pteshare.rewrite(data, **options)
            self.assertEqual(f"{path}: {raised.exception}", cli_error(stderr))
            return None
        expected = json.loads(stdout)
        result = pteshare.rewrite(data, **options)
        self.assertIsInstance(result.data, bytes)
        self.assertEqual(result.data, cli_out.read_bytes())
        self.assertEqual(result.report, dict(expected, file=None, output=None, in_place=False))
        self.assertEqual(result.changed, expected["changed"])
        # 3: asked to share, nothing could be; the module says it in .outcome.
        self.assertEqual(status == 3, options.get("share_auto", False) and
                         result.outcome not in ("shared", "already_shared"))
        module_out = self.dir / ("module-" + path.name)
        on_disk = pteshare.rewrite(str(path), output=module_out, **options)
        self.assertIsNone(on_disk.data)
        self.assertEqual(module_out.read_bytes(), cli_out.read_bytes())
        self.assertEqual(on_disk.report, dict(expected, output=str(module_out)))
        self.assertEqual(on_disk.output, str(module_out))
        return result.data

    def test_rewrite_of_bytes_is_the_cli_output_byte_for_byte(self):
        rewritten = self.expect_rewrite_parity(self.llm, share_auto=True)
        self.assertIsNotNone(rewritten)
        self.assertNotEqual(rewritten, self.llm.read_bytes())
        self.expect_rewrite_parity(self.llm, share_auto=True, write_names=True,
                                   allow_position_names=True, strategy="relocate")
        named = pteshare.inspect(self.named)["methods"][0]["mutable_buffers"]
        self.expect_rewrite_parity(self.named, share=[b["name"] for b in named][:2])
        self.expect_rewrite_parity(self.llm, names={"prefill:34": "k0", ("decode", 34): "k0"},
                                   share=["k0"])
        self.expect_rewrite_parity(self.llm)  # replan only
        self.expect_rewrite_parity(self.llm, share_auto=True, layout="arena")
        # Deeper: more tables appended, the bytes made in the returned object.
        self.expect_rewrite_parity(synth_llm(self.dir / "deep.pte", layers=24), share_auto=True)

    def test_rewritten_bytes_verify_and_rewrite_again_to_themselves(self):
        first = pteshare.rewrite(self.llm.read_bytes(), share_auto=True)
        self.assertTrue(first.changed)
        rewritten = first.data
        self.assertTrue(pteshare.verify(rewritten)["ok"])
        again = pteshare.rewrite(rewritten, share_auto=True)
        self.assertFalse(again.changed)
        self.assertEqual(again.data, rewritten)
        # bytearray and memoryview are read as the same bytes.
        self.assertEqual(pteshare.rewrite(bytearray(rewritten), share_auto=True).data, rewritten)
        self.assertEqual(pteshare.rewrite(memoryview(rewritten), share_auto=True).data, rewritten)

    def test_buffers_of_any_layout_are_read_as_their_bytes(self):
        # Issue 23: a reversed memoryview was read as if contiguous (a heap
        # over-read that crashed the interpreter) and [::2] read the wrong
        # bytes. Each is now read as bytes(view) would be.
        data = self.llm.read_bytes()
        mirrored = bytes(reversed(data))
        self.assertEqual(pteshare.verify(memoryview(mirrored)[::-1]), pteshare.verify(data))
        doubled = bytes(b for byte in data for b in (byte, 0))
        self.assertEqual(pteshare.inspect(memoryview(doubled)[::2]), pteshare.inspect(data))
        # A view whose bytes are no program is refused as the bytes are.
        with self.assertRaises(pteshare.BadInputError) as from_view:
            pteshare.inspect(memoryview(data)[::-1])
        with self.assertRaises(pteshare.BadInputError) as from_bytes:
            pteshare.inspect(data[::-1])
        self.assertEqual(str(from_view.exception), str(from_bytes.exception))

    def test_a_path_with_a_nul_is_a_value_error(self):
        # Issue 23: the path was cut at the NUL, naming another file.
        for call in (pteshare.inspect, pteshare.verify):
            with self.assertRaises(ValueError):
                call(str(self.llm) + "\0.ignored")
        with tempfile.TemporaryDirectory() as folder:
            with self.assertRaises(ValueError):
                pteshare.rewrite(self.llm, output=folder + "/out.pte\0.ignored", share_auto=True)
            self.assertEqual(os.listdir(folder), [])

    def test_corpus_programs_replanned_as_the_cli_does(self):
        files = corpus_files(".pte")
        if not files:
            self.skipTest(f"{CORPUS} is absent: corpus cases skipped")
        for path in files:
            with self.subTest(path.name):
                self.expect_rewrite_parity(path)
                self.expect_rewrite_parity(path, share_auto=True)

    def test_corpus_bundles_replanned_as_the_cli_does(self):
        bundles = corpus_files(".bpte")
        if not bundles:
            self.skipTest(f"{CORPUS} is absent: corpus cases skipped")
        # Every corpus bundle holds a one-method program: nothing to share,
        # so replan only.
        for path in bundles:
            with self.subTest(path.name):
                self.expect_rewrite_parity(path)

    def test_rewrite_in_place_is_the_cli_in_place(self):
        mine, theirs = self.dir / "mine.pte", self.dir / "theirs.pte"
        mine.write_bytes(self.llm.read_bytes())
        theirs.write_bytes(self.llm.read_bytes())
        status, stdout, _ = cli("rewrite", theirs, "--in-place", "--share-auto", "--json")
        self.assertEqual(status, 0)
        result = pteshare.rewrite(pathlib.Path(mine), in_place=True, share_auto=True)
        self.assertEqual(mine.read_bytes(), theirs.read_bytes())
        self.assertEqual(result.report, dict(json.loads(stdout), file=str(mine)))
        self.assertEqual(result.output, str(mine))

    def test_inspect_plan_verify_are_the_cli_json(self):
        shared = self.dir / "shared.pte"
        pteshare.rewrite(self.llm, output=shared, share_auto=True)
        cases = [
            ("inspect", self.llm, {}),
            ("inspect", shared, {}),
            ("plan", self.llm, {"share_auto": True}),
            ("plan", self.named, {"share_auto": True, "strategy": "relocate"}),
            ("plan", self.llm, {"arena_limits": {1: 1 << 30}}),
            ("plan", self.llm, {"share_auto": True, "layout": "arena"}),
            ("verify", shared, {}),
            ("verify", self.llm, {"share_auto": True}),
            ("verify", self.llm, {"names": {"prefill:34": "k0", "decode:34": "k0"},
                                  "share": "k0"}),
        ]
        for command, path, options in cases:
            with self.subTest(command=command, path=path.name, options=options):
                status, stdout, stderr = cli(command, path, "--json", *flags(**options))
                self.assertIn(status, (0, 1), stderr)
                expected = json.loads(stdout)
                function = getattr(pteshare, command)
                self.assertEqual(function(str(path), **options), expected)
                self.assertEqual(function(path, **options), expected)  # os.PathLike
                self.assertEqual(function(path.read_bytes(), **options),
                                 dict(expected, file=None))

    def expect_error(self, error_class, call, cli_args, file_label=None):
        """`call` raises error_class with the message the CLI prints for cli_args."""
        status, _, stderr = cli(*cli_args)
        self.assertEqual(status, 2 if error_class is not pteshare.NoValidPlanError else 1)
        with self.assertRaises(error_class) as raised:
            call()
        self.assertIsInstance(raised.exception, pteshare.Error)
        message = str(raised.exception)
        if file_label is not None:  # bytes in: the message names no file
            message = f"{file_label}: {message}"
        self.assertEqual(message, cli_error(stderr))

    def test_errors_raise_the_class_of_their_kind_with_the_cli_message(self):
        bad = self.dir / "bad.pte"
        bad.write_bytes(b"PK\x03\x04 not a program at all")
        for command in ("inspect", "plan", "verify"):
            with self.subTest(command):
                self.expect_error(pteshare.BadInputError,
                                  lambda: getattr(pteshare, command)(bad.read_bytes()),
                                  [command, bad], file_label=str(bad))
                self.expect_error(pteshare.BadInputError,
                                  lambda: getattr(pteshare, command)(str(bad)), [command, bad])
        self.expect_error(pteshare.BadInputError, lambda: pteshare.rewrite(bad.read_bytes()),
                          ["rewrite", bad, "-o", self.dir / "x.pte"], file_label=str(bad))
        self.expect_error(pteshare.BadInputError,
                          lambda: pteshare.plan(self.llm, share=["no.such.buffer"]),
                          ["plan", self.llm, "--share", "no.such.buffer"])
        self.expect_error(
            pteshare.BadInputError,
            lambda: pteshare.rewrite(self.llm.read_bytes(), share=["no.such.buffer"]),
            ["rewrite", self.llm, "-o", self.dir / "x.pte", "--share", "no.such.buffer"],
            file_label=str(self.llm))
        self.expect_error(pteshare.NoValidPlanError,
                          lambda: pteshare.plan(str(self.llm), share_auto=True,
                                                arena_limits={1: 4096}),
                          ["plan", self.llm, "--share-auto", "--arena-limit", "1=4096"])
        self.expect_error(
            pteshare.NoValidPlanError,
            lambda: pteshare.rewrite(self.llm.read_bytes(), share_auto=True,
                                     arena_limits={1: 4096}),
            ["rewrite", self.llm, "-o", self.dir / "x.pte", "--share-auto", "--arena-limit",
             "1=4096"], file_label=str(self.llm))
        self.assertFalse((self.dir / "x.pte").exists())

    def test_a_write_that_fails_raises_io_error_naming_the_output(self):
        # A folder that is not there, and one nobody may write in (even root):
        # the plan is made, the write fails, the input is untouched.
        outputs = [self.dir / "missing" / "out.pte"]
        if pathlib.Path("/proc/self").is_dir():
            outputs.append("/proc/")
        before = self.llm.read_bytes()
        for out in outputs:
            with self.subTest(str(out)):
                self.expect_error(
                    pteshare.IoError,
                    lambda: pteshare.rewrite(str(self.llm), output=str(out), share_auto=True),
                    ["rewrite", self.llm, "-o", out, "--share-auto"])
        self.assertEqual(self.llm.read_bytes(), before)

    def test_an_output_folder_gets_the_input_name_as_for_the_cli(self):
        folder = self.dir / "out-folder"
        folder.mkdir()
        result = pteshare.rewrite(self.llm, output=folder, share_auto=True)
        self.assertEqual(result.output, str(folder / self.llm.name))
        self.assertTrue((folder / self.llm.name).is_file())

    def test_type_errors_name_the_keyword_never_the_input(self):
        # Issue 23: a wrong keyword type on a 6 MB input gave a TypeError
        # quoting the whole input (18.8 million characters).
        big = self.llm.read_bytes() + bytes(6 << 20)
        calls = [
            lambda: pteshare.verify(big, share_auto="yes"),
            lambda: pteshare.verify(big, shareauto=True),
            lambda: pteshare.plan(big, alignment=-1),
            lambda: pteshare.plan(big, strategy=b"best"),
            lambda: pteshare.rewrite(big, "out.pte"),
            lambda: pteshare.rewrite(big, in_place=1),
            lambda: pteshare.inspect(),
            lambda: pteshare.inspect(big, program=big),
        ]
        for call in calls:
            with self.assertRaises(TypeError) as raised:
                call()
            self.assertLess(len(str(raised.exception)), 200, str(raised.exception)[:300])
        with self.assertRaises(TypeError) as raised:
            pteshare.verify(big, shareauto=True)
        self.assertIn("'shareauto'", str(raised.exception))
        # Keywords still work as keywords, the program as program=.
        self.assertEqual(pteshare.inspect(program=self.llm)["file"], str(self.llm))

    def test_a_name_that_is_not_utf8_is_escaped_in_json_and_reaches_python_as_str(self):
        # Issue 23: inspect --json printed the raw byte (invalid JSON) and
        # Python raised UnicodeDecodeError.
        name = b"layers.0.attention.kv_cache.k_cache"
        data = self.named.read_bytes()
        self.assertIn(name, data)
        odd = self.dir / "odd-name.pte"
        odd.write_bytes(data.replace(name, name[:-1] + b"\xff"))
        status, stdout, stderr = cli("inspect", odd, "--json")
        self.assertEqual(status, 0, stderr)
        document = json.loads(stdout.encode("utf-8"))  # strict: valid UTF-8 and JSON
        self.assertEqual(pteshare.inspect(odd), document)
        names = json.dumps(document)
        self.assertIn("k_cach\\\\xff", names)
        status, stdout, stderr = cli("verify", odd, "--share-auto", "--json")
        json.loads(stdout)
        self.assertEqual(pteshare.verify(odd, share_auto=True), json.loads(stdout))

    def test_threads_rewriting_and_reading_one_file_see_the_input_or_the_result(self):
        # Issue 23: rewrite(in_place=True) in one thread and inspect() in
        # another rolled back the writer's journal while it wrote (56 of 95
        # runs ended with a file that was neither).
        import threading
        # The fewest layers whose padding the rewrite outgrows (it depends on
        # the flatbuffer's size modulo 128): the segments must move.
        for layers in range(2, 33):
            source = synth_llm(self.dir / "threads-in.pte", "--named", layers=layers)
            data = source.read_bytes()
            result = pteshare.rewrite(data, share_auto=True).data
            if len(result) > len(data):
                break
        self.assertGreater(len(result), len(data), "the segments must move")
        seen = {str(pteshare.inspect(data)), str(pteshare.inspect(result))}
        path = self.dir / "threads.pte"
        stop = threading.Event()
        failures = []

        def read():
            while not stop.is_set():
                try:
                    report = pteshare.inspect(path)
                    report["file"] = None
                    if str(report) not in seen:
                        failures.append("a read that is neither the input nor the result")
                except pteshare.Error as error:  # never expected
                    failures.append(str(error))

        def write(rounds):
            for _ in range(rounds):
                try:
                    pteshare.rewrite(path, in_place=True, share_auto=True)
                except pteshare.Error as error:
                    failures.append(str(error))

        for round_ in range(8):
            path.write_bytes(data)
            stop.clear()
            readers = [threading.Thread(target=read) for _ in range(2)]
            writers = [threading.Thread(target=write, args=(3,)) for _ in range(3)]
            for thread in readers + writers:
                thread.start()
            for thread in writers:
                thread.join()
            stop.set()
            for thread in readers:
                thread.join()
            self.assertEqual(failures, [], f"round {round_}")
            self.assertEqual(path.read_bytes(), result)
            self.assertFalse(pathlib.Path(str(path) + ".pteshare-journal").exists())

    def test_rewrite_gives_one_result_shape_for_every_kind_of_program(self):
        data = self.llm.read_bytes()
        expected = pteshare.rewrite(data, share_auto=True)
        saved = expected.report["plan"]["memory"]["total"]
        self.assertEqual(expected.saved_bytes, saved["separate_before"] - saved["one_set_after"])
        self.assertGreater(expected.saved_bytes, 0)
        # The answer the CLI prints first, with the same numbers.
        self.assertEqual(expected.outcome, "shared")
        code, out, _ = cli("rewrite", self.llm, "--share-auto", "-o", self.dir / "summary.pte")
        self.assertEqual(code, 0)
        self.assertEqual(out.splitlines()[0].split(": ", 1)[1], expected.summary)
        self.assertEqual(expected.report["saving"]["before_bytes"] -
                         expected.report["saving"]["after_bytes"], expected.saved_bytes)

        class ProgramManager:  # what to_executorch() returns, as far as pteshare looks
            buffer = data

        given = {"bytes": data, "bytearray": bytearray(data), "memoryview": memoryview(data),
                 "program manager": ProgramManager(), "str": str(self.llm),
                 "path": self.llm}
        for kind, program in given.items():
            with self.subTest(kind):
                result = pteshare.rewrite(program, share_auto=True, return_data=True)
                self.assertIsInstance(result, pteshare.RewriteResult)
                self.assertEqual(result.data, expected.data)
                self.assertTrue(result.changed)
                self.assertEqual(result.saved_bytes, expected.saved_bytes)
                from_path = kind in ("str", "path")
                self.assertEqual(result.report, dict(expected.report,
                                                     file=str(self.llm) if from_path else None))
                self.assertIsNone(result.output)  # nothing written
        # A path with output= writes; return_data=True reads back what it wrote.
        out = self.dir / "shape-out.pte"
        written = pteshare.rewrite(self.llm, output=out, share_auto=True, return_data=True)
        self.assertEqual(written.data, out.read_bytes())
        self.assertEqual(written.data, expected.data)
        self.assertIsNone(pteshare.rewrite(self.llm, output=out, share_auto=True).data)

    def test_executorch_words_mean_what_they_mean_there(self):
        named = [b["name"] for b in pteshare.inspect(self.named)["methods"][0]["mutable_buffers"]]
        by_share = pteshare.rewrite(self.named.read_bytes(), share=named[:2])
        by_fqns = pteshare.rewrite(self.named.read_bytes(), shared_buffer_fqns=named[:2])
        self.assertEqual(by_share.data, by_fqns.data)
        self.assertEqual(by_share.report, by_fqns.report)
        with self.assertRaises(TypeError) as raised:
            pteshare.plan(self.named, share=named[:1], shared_buffer_fqns=named[:1])
        self.assertIn("not both", str(raised.exception))
        # The enums are their words.
        self.assertEqual(pteshare.plan(self.llm, share_auto=True, strategy=pteshare.Strategy.REPLAN,
                                       layout=pteshare.Layout.ARENA),
                         pteshare.plan(self.llm, share_auto=True, strategy="replan",
                                       layout="arena"))

    def test_a_missing_program_is_said_first_as_a_file_not_found(self):
        missing = self.dir / "missing.pte"
        for call in (lambda: pteshare.rewrite(missing, share_auto=True),
                     lambda: pteshare.rewrite(str(missing), share_auto=True, in_place=True),
                     lambda: pteshare.inspect(missing), lambda: pteshare.plot(missing)):
            with self.assertRaises(FileNotFoundError) as raised:
                call()
            self.assertIsInstance(raised.exception, pteshare.IoError)
            self.assertEqual(raised.exception.filename, str(missing))
            status, _, stderr = cli("inspect", missing)
            self.assertEqual(status, 2)
            self.assertEqual(str(raised.exception), cli_error(stderr))

    def test_messages_name_the_keywords_not_the_flags(self):
        data = self.llm.read_bytes()
        cases = [
            (dict(names={"prefill:999": "k0"}, share="k0"), "names={'prefill:999': 'k0'}: "),
            (dict(share_auto=True, alignment=3), "alignment=3 is not a power of two"),
            (dict(share_auto=True, arena_limits={1: 4096}), "no plan fits arena_limits: "),
        ]
        for options, words in cases:
            with self.subTest(options):
                with self.assertRaises(pteshare.Error) as raised:
                    pteshare.plan(data, **options)
                self.assertIn(words, str(raised.exception))
                self.assertNotIn("--", str(raised.exception))
        with self.assertRaises(pteshare.BadInputError) as raised:
            pteshare.rewrite(self.llm, share_auto=True)
        self.assertIn("output=PATH, in_place=True, or return_data=True", str(raised.exception))

    def test_plot_draws_what_the_cli_draws(self):
        for options in ({}, {"share_auto": True}, {"share_auto": True, "method": "decode"}):
            for suffix in (".svg", ".html"):
                with self.subTest(options=options, suffix=suffix):
                    mine, theirs = self.dir / ("mine" + suffix), self.dir / ("theirs" + suffix)
                    method = ["--method", options["method"]] if "method" in options else []
                    status, _, stderr = cli("plot", self.llm, "-o", theirs, *method,
                                            *(["--share-auto"] if options else []))
                    self.assertEqual(status, 0, stderr)
                    result = pteshare.plot(self.llm, out=mine, **options)
                    self.assertEqual(mine.read_bytes(), theirs.read_bytes())
                    self.assertEqual(result.document.encode(), theirs.read_bytes())
                    self.assertEqual(result.output, str(mine))
                    self.assertEqual(result.format, suffix[1:])
                    # The plan `plan()` makes with the same keywords, drawn
                    # after: it shrinks both methods' arenas.
                    self.assertTrue(result.planned)
                    self.assertTrue(result.changed)
                    self.assertTrue(result.caption.startswith("after = the replanned layout"),
                                    result.caption)
                    self.assertIsNone(result.trace)
                    # Bytes in, nothing written: the same picture but for its title.
                    in_memory = pteshare.plot(self.llm.read_bytes(), format=suffix[1:], **options)
                    self.assertIsNone(in_memory.output)
                    self.assertEqual(in_memory.panels, result.panels)
        with self.assertRaises(pteshare.BadInputError):
            pteshare.plot(self.llm, out=self.dir / "picture.png")
        with self.assertRaises(pteshare.BadInputError):
            pteshare.plot(self.llm, method="no_such_method")

    def test_plot_traces_what_the_cli_traces(self):
        for options in ({}, {"share_auto": True}):
            with self.subTest(options=options):
                theirs, mine = self.dir / "theirs.json", self.dir / "mine.json"
                status, _, stderr = cli("plot", self.llm, "--trace", theirs,
                                        *(["--share-auto"] if options else []))
                self.assertEqual(status, 0, stderr)
                result = pteshare.plot(self.llm, trace=mine, **options)
                self.assertEqual(mine.read_bytes(), theirs.read_bytes())
                self.assertEqual(result.trace, json.loads(theirs.read_text()))
                self.assertEqual(result.format, "svg")  # the picture is still drawn
                events = [e for e in result.trace["traceEvents"] if e["ph"] == "X"]
                self.assertEqual({e["args"]["layout"] for e in events}, {"before", "after"})
                # trace=True: the same dict, nothing written; format="json":
                # the trace is the document.
                self.assertEqual(pteshare.plot(self.llm, trace=True, **options).trace,
                                 result.trace)
                as_document = pteshare.plot(self.llm, format="json", **options)
                self.assertEqual(as_document.document.encode(), theirs.read_bytes())
                self.assertEqual(as_document.format, "json")
        with self.assertRaises(TypeError):
            pteshare.plot(self.llm, trace=3)
        with self.assertRaises(pteshare.BadInputError):
            pteshare.plot(self.llm, format="png")

    def test_names_from_a_file_are_the_cli_names_and_written_names_must_be_real(self):
        names = self.dir / "names.txt"
        names.write_text("# llm.pte's caches\n"
                         "paired_state.000=layers.0.k_cache\n"
                         "paired_state.001=layers.0.v_cache\n"
                         "paired_state.002=layers.1.k_cache  # prefill:133 <-> decode:133\n"
                         "paired_state.003=layers.1.v_cache\n")
        rewritten = self.expect_rewrite_parity(self.llm, share_auto=True, names_from=names,
                                               write_names=True)
        self.assertIsNotNone(rewritten)
        self.assertEqual(pteshare.verify(rewritten)["shared"][0]["name"], "layers.0.k_cache")
        self.expect_rewrite_parity(self.llm, share_auto=True, names_from=str(names))
        # The same pairs by dict: "paired_state.K" keys.
        by_dict = pteshare.rewrite(self.llm.read_bytes(), share_auto=True, write_names=True,
                                   names={f"paired_state.{k}": name for k, name in enumerate(
                                       ["layers.0.k_cache", "layers.0.v_cache",
                                        "layers.1.k_cache", "layers.1.v_cache"])})
        self.assertEqual(by_dict.data, rewritten)
        plan = pteshare.plan(self.llm, share_auto=True, names_from=names)
        self.assertEqual([(p["name"], p["position"], p["position_name"]) for p in plan["pairs"]],
                         [("layers.0.k_cache", 0, False), ("layers.0.v_cache", 1, False),
                          ("layers.1.k_cache", 2, False), ("layers.1.v_cache", 3, False)])
        # Made-up names are not written unless allowed.
        with self.assertRaises(pteshare.BadInputError) as raised:
            pteshare.rewrite(self.llm.read_bytes(), share_auto=True, write_names=True)
        self.assertIn("write_names=True would store made-up names: paired_state.000 to "
                      "paired_state.003 are positions", str(raised.exception))
        self.assertIn("give the real ones with names_from='FILE'", str(raised.exception))
        self.assertIn("or add allow_position_names=True", str(raised.exception))
        # A bad line names the file and the line, as the CLI does.
        bad = self.dir / "bad-names.txt"
        bad.write_text("paired_state.000=k\nfoo\n")
        status, _, stderr = cli("plan", self.llm, "--names-from", bad)
        self.assertEqual(status, 2)
        with self.assertRaises(pteshare.BadInputError) as raised:
            pteshare.plan(self.llm, names_from=bad)
        self.assertEqual(stderr, f"pteshare: {raised.exception}\n".replace(f"{self.llm}: ", ""))
        with self.assertRaises(pteshare.IoError):
            pteshare.plan(self.llm, names_from=self.dir / "no-such-names.txt")
        with self.assertRaises(TypeError):
            pteshare.plan(self.llm, names_from=3)

    def test_option_mistakes(self):
        with self.assertRaises(pteshare.BadInputError):
            pteshare.rewrite(self.llm)  # neither output= nor in_place=True
        with self.assertRaises(pteshare.BadInputError):
            pteshare.rewrite(self.llm.read_bytes(), output="x.pte")
        with self.assertRaises(pteshare.BadInputError):
            pteshare.plan(self.llm, strategy="fastest")
        with self.assertRaises(pteshare.BadInputError):
            pteshare.plan(self.llm, layout="back")
        with self.assertRaises(pteshare.BadInputError):
            pteshare.plan(self.llm, names={"prefill": "k0"})
        with self.assertRaises(pteshare.BadInputError):
            pteshare.plan(self.llm, arena_limits={0: 10})
        with self.assertRaises(TypeError):
            pteshare.inspect(42)
        self.assertTrue(issubclass(pteshare.IoError, pteshare.Error))
        self.assertEqual(pteshare.__version__, cli("--version")[1].split()[-1])


if __name__ == "__main__":
    unittest.main()

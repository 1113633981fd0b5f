"""`python -m pteshare` (python/pteshare/__main__.py) is the CLI: the same
output and exit status as the pteshare executable for the same arguments,
whatever the command, including usage errors, --help and --version."""

import os
import pathlib
import subprocess
import sys
import tempfile
import unittest

BIN = pathlib.Path(os.environ["PTESHARE_BIN"])
# The programs run without the sanitizer runtime ctest preloads into the
# interpreter in a sanitizer build (they carry their own).
TOOL_ENV = {key: value for key, value in os.environ.items() if key != "LD_PRELOAD"}


def run(command, cwd, env=None):
    done = subprocess.run(command, capture_output=True, check=False, cwd=cwd, env=env)
    return done.returncode, done.stdout, done.stderr


class MainTest(unittest.TestCase):
    def test_python_m_pteshare_is_the_executable(self):
        with tempfile.TemporaryDirectory() as folder:
            subprocess.run([str(BIN / "pte-synth"), "llm", "--layers", "2", "-o", "llm.pte"],
                           check=True, capture_output=True, cwd=folder, env=TOOL_ENV)
            cases = [
                ["--version"], ["--help"], ["plan", "--help"], [], ["bogus"],
                ["inspect", "llm.pte"], ["inspect", "llm.pte", "--json"],
                ["plan", "llm.pte", "--share-auto"], ["plan", "llm.pte", "--share", "nope"],
                ["verify", "llm.pte", "--share-auto", "--json"],
                ["rewrite", "llm.pte", "--share-auto", "-o", "out.pte"],
                ["rewrite", "missing.pte", "--share-auto", "-o", "out2.pte"],
                ["plan", "llm.pte", "--share-auto", "--arena-limit", "1=4096"],
            ]
            out = pathlib.Path(folder, "out.pte")
            for args in cases:
                with self.subTest(args):
                    # What each writes is kept apart: both write out.pte.
                    theirs = run([str(BIN / "pteshare"), *args], folder, TOOL_ENV)
                    if out.exists():
                        out.rename(pathlib.Path(folder, "cli.pte"))
                    mine = run([sys.executable, "-m", "pteshare", *args], folder)
                    if out.exists():
                        out.rename(pathlib.Path(folder, "module.pte"))
                    self.assertEqual(mine, theirs)
            self.assertEqual(pathlib.Path(folder, "module.pte").read_bytes(),
                             pathlib.Path(folder, "cli.pte").read_bytes())

    def test_pip_installed_the_pteshare_command(self):
        command = pathlib.Path(sys.executable).parent / "pteshare"
        if not command.is_file():
            self.skipTest(f"{command} is absent: not run from the installed wheel")
        self.assertEqual(run([str(command), "--version"], None),
                         run([str(BIN / "pteshare"), "--version"], None, TOOL_ENV))


if __name__ == "__main__":
    unittest.main()

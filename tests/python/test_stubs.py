"""The package's types (python/pteshare/_native.pyi, py.typed and the
annotations of __init__.py) against the module as built: what stubtest
would check, with the standard library only (Debian's mypy is not this
interpreter's). Every public function is annotated and documented, the stub
lists exactly what the extension has, and each function's keywords are the
option table's, in order and with its defaults (`_native.keywords`)."""

import ast
import enum
import inspect
import pathlib
import typing
import unittest

import pteshare
from pteshare import _native

PACKAGE = pathlib.Path(pteshare.__file__).parent
# Keywords of the package alone: ExecuTorch's word for share=, and rewrite's
# choice of bytes for a path. file_name is how the package names bytes it
# read from a path.
PACKAGE_ONLY = {"shared_buffer_fqns", "return_data"}
NATIVE_ONLY = {"file_name"}


def native_names():
    return {name for name, value in vars(_native).items()
            if not name.startswith("__") and callable(value) and not isinstance(value, type)}


class StubsTest(unittest.TestCase):
    def test_the_package_is_marked_typed(self):
        self.assertTrue((PACKAGE / "py.typed").is_file())

    def test_the_native_stub_lists_exactly_what_the_extension_has(self):
        stub = ast.parse((PACKAGE / "_native.pyi").read_text(encoding="utf-8"))
        functions = {node.name: node for node in stub.body if isinstance(node, ast.FunctionDef)}
        self.assertEqual(set(functions), native_names())
        variables = {node.target.id for node in stub.body if isinstance(node, ast.AnnAssign)}
        for name in variables:
            self.assertTrue(hasattr(_native, name), name)
        for name, node in functions.items():
            with self.subTest(name):
                self.assertIsNotNone(node.returns, f"{name} has no return type")
                for argument in node.args.args + node.args.kwonlyargs:
                    self.assertIsNotNone(argument.annotation, f"{name}({argument.arg})")

    def test_every_public_function_is_annotated_and_documented(self):
        hints_namespace = vars(pteshare)
        for name in pteshare.__all__:
            value = getattr(pteshare, name)
            if not inspect.isfunction(value):
                continue
            with self.subTest(name):
                self.assertTrue(inspect.getdoc(value), f"{name} has no docstring")
                hints = typing.get_type_hints(value, hints_namespace)
                self.assertIn("return", hints)
                for parameter in inspect.signature(value).parameters:
                    self.assertIn(parameter, hints, f"{name}({parameter}) is not annotated")

    def test_each_function_takes_the_option_tables_keywords(self):
        for name in ("inspect", "plan", "verify", "rewrite", "plot"):
            with self.subTest(name):
                parameters = list(inspect.signature(getattr(pteshare, name)).parameters.values())
                self.assertEqual(parameters[0].name, "program")
                mine = [(p.name, p.default) for p in parameters[1:]
                        if p.name not in PACKAGE_ONLY]
                for p in parameters[1:]:
                    self.assertEqual(p.kind, inspect.Parameter.KEYWORD_ONLY, p.name)
                theirs = [(keyword, default) for keyword, default in _native.keywords(name)
                          if keyword not in NATIVE_ONLY]
                self.assertEqual(mine, theirs)

    def test_the_enums_are_the_words_the_extension_takes(self):
        for keyword, cls in (("strategy", pteshare.Strategy), ("layout", pteshare.Layout)):
            with self.subTest(keyword):
                self.assertTrue(issubclass(cls, enum.Enum))
                with self.assertRaises(pteshare.BadInputError) as raised:
                    pteshare.plan(b"", **{keyword: "no-such-word"})
                words = [member.value for member in cls]
                for word in words:
                    self.assertIn(word, str(raised.exception))
                literal = typing.get_args(getattr(pteshare, keyword.capitalize() + "Name"))
                self.assertEqual(list(literal), words)


if __name__ == "__main__":
    unittest.main()

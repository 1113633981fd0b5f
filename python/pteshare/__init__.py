"""pteshare: make the methods of a compiled ExecuTorch program share their
state buffers (KV caches and other mutable buffers) at one arena offset, and
check that the sharing holds, after export, without exporting again.

In an export script, right after ``to_executorch()``::

    import pteshare

    program = edge.to_executorch()              # ExecutorchProgramManager
    result = pteshare.rewrite(program, share_auto=True)
    with open("model.pte", "wb") as f:
        f.write(result.data)
    print(result.saved_bytes, "bytes of arena memory saved")

Every function takes the program as a path (str or os.PathLike), as its
bytes (bytes, bytearray, memoryview) or as an object with a ``.buffer``
(ExecuTorch's program manager), and the options as keywords. The names to
share are ``shared_buffer_fqns=`` (ExecuTorch's word, as in
``MemoryPlanningPass(shared_buffer_fqns=...)``) or ``share=``; or
``share_auto=True`` shares every mutable buffer that two or more methods
have. Results are what ``pteshare COMMAND --json`` prints, as dicts
(``rewrite`` and ``plot`` wrap theirs in a result object). Failures raise
``pteshare.Error`` subclasses with the CLI's one-line message.
"""

from __future__ import annotations

import enum
import os
import signal
import sys
import threading
from typing import Any, Dict, Iterable, List, Literal, Mapping, Optional, Protocol, Sequence, Tuple, Union

from pteshare._errors import BadInputError, Error, IoError, MissingFileError, NoValidPlanError
from pteshare import _native

__all__ = [
    "inspect", "plan", "verify", "rewrite", "plot", "main",
    "RewriteResult", "PlotResult", "Strategy", "Layout",
    "Error", "BadInputError", "NoValidPlanError", "IoError", "MissingFileError",
    "__version__",
]

__version__: str = _native.__version__


class Strategy(str, enum.Enum):
    """How a plan makes room for the shared buffers at the front of their
    arenas (the CLI's ``--strategy``)."""

    RELOCATE = "relocate"
    """Shift the other tensors by a translation that keeps every overlap."""
    REPLAN = "replan"
    """Plan every arena again from the tensors' lifetimes (smaller arenas)."""
    BEST = "best"
    """Per method and arena, the smaller of the two (the default)."""


class Layout(str, enum.Enum):
    """Where the shared buffers go (the CLI's ``--layout``)."""

    FRONT = "front"
    """At the front of the arena each is in (the default)."""
    ARENA = "arena"
    """In a new arena of their own per device, in every method."""


StrategyName = Literal["relocate", "replan", "best"]
LayoutName = Literal["front", "arena"]
PictureFormat = Literal["svg", "html", "json"]


class ProgramManager(Protocol):
    """What ExecuTorch's ``ExecutorchProgramManager`` offers: the serialized
    program as ``.buffer``."""

    @property
    def buffer(self) -> bytes: ...


#: A program: a path, its bytes, or ExecuTorch's program manager.
Program = Union[str, "os.PathLike[str]", bytes, bytearray, memoryview, ProgramManager]
#: Names of buffers to share: one name or several.
SharedNames = Union[str, Iterable[str], None]
#: Names for unnamed buffers by position: {"prefill:22": "k_cache", ("decode", 22): "k_cache"},
#: or a pair of unnamed state in every method it pairs: {"paired_state.0": "k_cache"}.
ValueNames = Optional[Mapping[Union[str, Tuple[str, int]], str]]
#: A names file (``--names-from``): a line each, ``prefill:22=k_cache`` or
#: ``paired_state.000=k_cache``; ``#`` comments.
NamesFile = Union[str, "os.PathLike[str]", None]
#: The most bytes an arena may take in every method: {memory_id: bytes}.
ArenaLimits = Optional[Mapping[int, int]]


class _Result:
    """Plain fields, compared and shown by value (a dataclass without the
    import cost: dataclasses imports inspect, half of this package's import
    time)."""

    __slots__ = ()

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return all(getattr(self, f) == getattr(other, f) for f in self.__slots__)

    def __repr__(self) -> str:
        fields = ", ".join(f"{f}={getattr(self, f)!r:.80}" for f in self.__slots__)
        return f"{type(self).__name__}({fields})"

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"{type(self).__name__} is read-only")

    def _set(self, **fields: object) -> None:
        for name, value in fields.items():
            object.__setattr__(self, name, value)


class RewriteResult(_Result):
    """What ``rewrite`` did, whatever the program was given as.

    data: the rewritten program's bytes (given bytes, or ``return_data=True``),
    else None. report: the same dict as ``pteshare rewrite --json`` prints."""

    __slots__ = ("data", "report")
    data: Optional[bytes]
    report: Dict[str, Any]

    def __init__(self, data: Optional[bytes], report: Dict[str, Any]) -> None:
        self._set(data=data, report=report)

    @property
    def changed(self) -> bool:
        """False when the program already shared its buffers as asked."""
        return bool(self.report["changed"])

    @property
    def output(self) -> Optional[str]:
        """The file written (None for bytes; the input itself in place)."""
        if self.report["in_place"]:
            return self.report["file"]
        return self.report["output"]

    @property
    def summary(self) -> str:
        """The first line ``pteshare rewrite`` prints: the memory saved, or
        why nothing could be shared (``report["saving"]`` has the numbers)."""
        return str(self.report["saving"]["summary"])

    @property
    def outcome(self) -> str:
        """"shared", "already_shared", "replanned" (nothing to share, the
        arenas shrank) or "unchanged". With share_auto or share, anything
        but the first two is what ``pteshare rewrite`` exits 3 for:
        ``report["saving"]["nothing_to_share"]`` says why."""
        return str(self.report["saving"]["outcome"])

    @property
    def saved_bytes(self) -> int:
        """Arena memory an application no longer allocates. When state is
        shared: a separate set of arenas per method before, minus one set for
        every method after; otherwise one set before minus one set after."""
        return int(self.report["saving"]["saved_bytes"])


class PlotResult(_Result):
    """The picture ``plot`` drew.

    document: the SVG, the HTML page, or (format ``"json"``) the trace
    itself. output: the file written, or None. planned: whether there is a
    plan (False only where the planner refuses the program: ``caption``
    says why). changed: whether it changes a placement or an arena size, so
    that "after" is drawn next to "before". caption: what the picture says
    of the plan ("after = the replanned layout: one set of arenas 1,204,224
    -> 1,003,520 bytes (-200,704, -16.7%), ...", "the plan changes
    nothing: ..."). fits: False when no plan fits ``arena_limits`` (the
    input is drawn, the limits marked). verified: False when the plan failed
    its verifier (drawn all the same). trace: with ``trace=``, the Chrome /
    Perfetto trace of the same layouts as a dict, else None."""

    __slots__ = ("document", "output", "format", "panels", "tensor_rectangles", "planned",
                 "changed", "caption", "fits", "verified", "trace")
    document: str
    output: Optional[str]
    format: PictureFormat
    panels: int
    tensor_rectangles: int
    planned: bool
    changed: bool
    caption: str
    fits: bool
    verified: bool
    trace: Optional[Dict[str, Any]]

    def __init__(self, *, document: str, output: Optional[str], format: PictureFormat,
                 panels: int, tensor_rectangles: int, planned: bool, changed: bool,
                 caption: str, fits: bool, verified: bool,
                 trace: Optional[Dict[str, Any]]) -> None:
        self._set(document=document, output=output, format=format, panels=panels,
                  tensor_rectangles=tensor_rectangles, planned=planned, changed=changed,
                  caption=caption, fits=fits, verified=verified, trace=trace)


def _type_name(value: object) -> str:
    return type(value).__name__


def _program(program: Program, function: str) -> Union[str, bytes, bytearray, memoryview]:
    """The program as the extension takes it: a path (checked to exist, so
    that a missing file is said first) or a bytes-like object."""
    if isinstance(program, (bytes, bytearray, memoryview)):
        return program
    if isinstance(program, (str, os.PathLike)):
        path = os.fsdecode(os.fspath(program))
        try:
            os.stat(path)
        except FileNotFoundError:
            raise MissingFileError(path) from None
        except (OSError, ValueError):
            pass  # the extension says what is wrong with it
        return path
    buffer = getattr(program, "buffer", None)
    if buffer is not None and not callable(buffer):
        return buffer
    raise TypeError(f"{function}(): program is a path, bytes, bytearray, memoryview or an object "
                    f"with .buffer (ExecuTorch's program manager), not {_type_name(program)}")


def _names(function: str, share: SharedNames, shared_buffer_fqns: SharedNames) -> SharedNames:
    if share is not None and shared_buffer_fqns is not None:
        raise TypeError(f"{function}(): give share= or shared_buffer_fqns= (the same thing), "
                        "not both")
    return share if share is not None else shared_buffer_fqns


def _word(value: object) -> object:
    # An enum member as its word; anything else goes to the extension, which
    # says what is wrong with it.
    return value.value if isinstance(value, enum.Enum) else value


def _share_options(function: str, share: SharedNames, shared_buffer_fqns: SharedNames,
                   share_auto: bool, names: ValueNames,
                   names_from: NamesFile) -> Dict[str, Any]:
    return {"share": _names(function, share, shared_buffer_fqns), "share_auto": share_auto,
            "names": names, "names_from": names_from}


def _plan_options(strategy: object, layout: object, alignment: int, arena_limits: ArenaLimits,
                  own_loader: bool) -> Dict[str, Any]:
    return {"strategy": _word(strategy), "layout": _word(layout),
            "alignment": alignment, "arena_limits": arena_limits, "own_loader": own_loader}


def inspect(program: Program) -> Dict[str, Any]:
    """The program's layout and contents: its segments and what each holds,
    the keys a ``.ptd`` data file must provide, and per method its
    operators (with call counts), delegates (backend, blob place and size,
    compile specs), arenas (planned buffer i is memory_id i + 1) and
    mutable buffers, as ``pteshare inspect --json`` prints it."""
    return _native.inspect(_program(program, "inspect"))


def plan(program: Program, *, share: SharedNames = None, shared_buffer_fqns: SharedNames = None,
         share_auto: bool = False, names: ValueNames = None, names_from: NamesFile = None,
         strategy: Union[Strategy, StrategyName] = "best",
         layout: Union[Layout, LayoutName] = "front", alignment: int = 0,
         arena_limits: ArenaLimits = None, own_loader: bool = False) -> Dict[str, Any]:
    """The verified plan that would share the buffers, as ``pteshare plan
    --json`` prints it; writes nothing.

    share / shared_buffer_fqns: the buffers to share, by fully qualified name
    (one or several). share_auto: every mutable buffer that two or more
    methods have (unnamed state is paired by position). names: names for
    unnamed buffers by position, ``{"prefill:22": "k_cache"}``, or for pair
    K of the unnamed state in every method, ``{"paired_state.0":
    "k_cache"}``. names_from: a file of such names, a line each
    (``paired_state.000=k_cache``, ``#`` comments), as ``--names-from``.
    strategy, layout: see ``Strategy`` and ``Layout``. alignment: of the shared slots
    (0: detected from the program). arena_limits: ``{memory_id: bytes}`` no
    method's arena may exceed (NoValidPlanError when no plan fits).
    own_loader: with layout="arena", the application's loader binds every
    arena itself, so a state arena ExecuTorch's
    ``Module(share_memory_arenas=true)`` cannot share (arena 3 or higher, or
    off the CPU) is accepted instead of refused.

    A plan that fails its verifier is returned with ``"verified": False``.
    """
    return _native.plan(_program(program, "plan"),
                        **_share_options("plan", share, shared_buffer_fqns, share_auto, names,
                                         names_from),
                        **_plan_options(strategy, layout, alignment, arena_limits, own_loader))


def verify(program: Program, *, share: SharedNames = None, shared_buffer_fqns: SharedNames = None,
           share_auto: bool = False, names: ValueNames = None,
           names_from: NamesFile = None) -> Dict[str, Any]:
    """The runtime checker's findings on the placements the program has, as
    ``pteshare verify --json`` prints them: ``"ok"`` is False on findings.
    The keywords choose the shared buffers as for ``plan``."""
    return _native.verify(_program(program, "verify"),
                          **_share_options("verify", share, shared_buffer_fqns, share_auto,
                                           names, names_from))


def rewrite(program: Program, *, output: Union[str, "os.PathLike[str]", None] = None,
            in_place: bool = False, return_data: bool = False, share: SharedNames = None,
            shared_buffer_fqns: SharedNames = None, share_auto: bool = False,
            names: ValueNames = None, names_from: NamesFile = None,
            strategy: Union[Strategy, StrategyName] = "best",
            layout: Union[Layout, LayoutName] = "front", alignment: int = 0,
            arena_limits: ArenaLimits = None, own_loader: bool = False,
            write_names: bool = False, allow_position_names: bool = False) -> RewriteResult:
    """Rewrites the program so that its methods share the buffers: the plan
    of ``plan()``, verified, patched into the allocation info; the weights
    are not copied in memory.

    Given bytes (or a program manager), returns the rewritten bytes as
    ``.data``, the same bytes ``pteshare rewrite -o`` writes. Given a path,
    writes ``output`` (a file, or a folder for FOLDER/BASENAME) or, with
    ``in_place=True``, the file itself, crash-safe: it either fully happens
    or the file stays as it was. ``return_data=True`` also returns the bytes
    (with neither output nor in_place, nothing is written). write_names:
    writes the names ``names`` or ``names_from`` gave into the program; a
    pair of unnamed state named by nothing is called paired_state.K, a
    position, and is refused (BadInputError) unless
    ``allow_position_names=True``. The other keywords are ``plan()``'s. ``.report`` is ``pteshare rewrite
    --json``'s dict; ``.changed`` is False when nothing had to change.
    """
    source = _program(program, "rewrite")
    options = dict(_share_options("rewrite", share, shared_buffer_fqns, share_auto, names,
                                  names_from),
                   **_plan_options(strategy, layout, alignment, arena_limits, own_loader),
                   write_names=write_names, allow_position_names=allow_position_names)
    if not isinstance(return_data, bool):
        raise TypeError(f"rewrite(): return_data: a bool, not {_type_name(return_data)}")
    if isinstance(source, str) and return_data and output is None and in_place is False:
        with open(source, "rb") as f:  # in memory: nothing is written
            data, report = _native.rewrite(f.read(), file_name=source, **options)
        return RewriteResult(data, report)
    data, report = _native.rewrite(source, output=output, in_place=in_place, **options)
    result = RewriteResult(data, report)
    if return_data and data is None:
        with open(result.output, "rb") as f:
            return RewriteResult(f.read(), report)
    return result


def plot(program: Program, *, out: Union[str, "os.PathLike[str]", None] = None,
         method: Optional[str] = None, format: Optional[PictureFormat] = None,
         trace: Union[bool, str, "os.PathLike[str]"] = False,
         share: SharedNames = None, shared_buffer_fqns: SharedNames = None,
         share_auto: bool = False, names: ValueNames = None, names_from: NamesFile = None,
         strategy: Union[Strategy, StrategyName] = "best",
         layout: Union[Layout, LayoutName] = "front", alignment: int = 0,
         arena_limits: ArenaLimits = None, own_loader: bool = False) -> PlotResult:
    """The memory layout of every arena of every method as a picture, as
    ``pteshare plot`` draws it: instruction index across, arena offset up,
    one rectangle per planned tensor. The plan ``plan()`` makes with the
    same keywords is drawn next to the input (before | after) wherever it
    changes a placement or an arena size; ``.caption`` says by how much the
    arenas shrink, or that the plan changes nothing.

    out: the file to write, ``NAME.svg``, ``NAME.html`` (one page with
    hover tooltips) or ``NAME.json`` (the trace); its extension decides the
    format. Without it nothing is written and ``.document`` holds the
    picture, SVG unless ``format="html"`` (or ``"json"``). method: draw
    only this method. trace: True for the layouts as a Chrome / Perfetto
    trace in ``.trace`` (a dict, ``pteshare plot --trace``'s JSON), or a
    path to write that trace to as well.
    """
    if method is not None and not isinstance(method, str):
        raise TypeError(f"plot(): method: a str, not {_type_name(method)}")
    if format is not None and not isinstance(format, str):
        raise TypeError(f"plot(): format: 'svg', 'html' or 'json', not {_type_name(format)}")
    if not isinstance(trace, (bool, str, os.PathLike)):
        raise TypeError(f"plot(): trace: True, False or a path, not {_type_name(trace)}")
    document, facts = _native.plot(
        _program(program, "plot"), out=out, method=method, format=format, trace=trace,
        **_share_options("plot", share, shared_buffer_fqns, share_auto, names, names_from),
        **_plan_options(strategy, layout, alignment, arena_limits, own_loader))
    return PlotResult(document=document, output=None if out is None else os.fspath(out),
                      format=facts["format"], panels=facts["panels"],
                      tensor_rectangles=facts["tensor_rectangles"], planned=facts["planned"],
                      changed=facts["changed"], caption=facts["caption"], fits=facts["fits"],
                      verified=facts["verified"], trace=facts["trace"])


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Runs the pteshare command line on ``argv`` (default: ``sys.argv[1:]``)
    and returns its exit status: ``python -m pteshare`` is the CLI."""
    args: List[str] = list(sys.argv[1:] if argv is None else argv)
    sys.stdout.flush()
    sys.stderr.flush()
    # Ctrl-C stops the command as it stops the executable: Python's handler
    # would only run after the command returned.
    restore = None
    if threading.current_thread() is threading.main_thread():
        restore = signal.signal(signal.SIGINT, signal.SIG_DFL)
    try:
        return _native.run_cli([b"pteshare", *map(os.fsencode, args)])
    finally:
        if restore is not None:
            signal.signal(signal.SIGINT, restore)

"""The exceptions pteshare raises: one class per way a call can fail, so a
script can tell bad input from a plan that does not fit from a failed
write, as the CLI's exit status does (2, 1, 2)."""

from __future__ import annotations

import errno

__all__ = ["Error", "BadInputError", "NoValidPlanError", "IoError", "MissingFileError"]


class Error(Exception):
    """A pteshare call failed; the message is the CLI's one line (FILE: what
    went wrong), with options named by their keywords."""


class BadInputError(Error):
    """Bad options, or an unreadable or invalid program (the CLI exits 2)."""


class NoValidPlanError(Error):
    """The program is fine but no plan fits an arena limit, verifies or can
    be patched in (the CLI exits 1)."""


class IoError(Error, OSError):
    """Reading or writing a file failed. After a failed write the input is as
    it was, unless the message says the result is in place and only its
    folder's fsync failed (the CLI exits 2)."""


class MissingFileError(IoError, FileNotFoundError):
    """The program's path names no file (also a FileNotFoundError, with
    errno ENOENT and the path as filename)."""

    def __init__(self, path: str) -> None:
        super().__init__(errno.ENOENT, f"{path}: cannot open: no such file", path)

    def __str__(self) -> str:
        return str(self.strerror)  # the CLI's line, as every Error's

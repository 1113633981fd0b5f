"""The PEP 517 build backend of `pip install .` and `pip wheel .`
(pyproject.toml names it): builds the extension with CMake and writes the
wheel itself.

Why our own: the package is C++ built by the project's CMake, and the usual
bridges are not at hand offline. Debian 12 has no scikit-build-core, and
setuptools builds a wheel only with the `wheel` package, which a fresh
virtual environment does not have and PyPI is not reachable to give. A wheel
is a zip with three small metadata files, so this file needs nothing but the
standard library: the backend asks for no requirements, and pip builds with
or without build isolation, offline.

What it does: configures a build tree (CMake, Release, tests off, the
interpreter running this hook as Python3_EXECUTABLE; `build-python/TAG/` in
the source tree, reused by the next build), builds the one target
pteshare_python, which assembles the package in BUILD/python/pteshare/, and
zips that folder with the metadata. The wheel is deterministic: entries in
order, fixed times (SOURCE_DATE_EPOCH when set).

config_settings (pip: --config-settings KEY=VALUE):
  build-dir=PATH   another build tree (e.g. the one .ci/test made)
  build=no         package what is there without building (the tests do)
  strip=no         keep the extension's symbols (default: strip them)
"""

from __future__ import annotations

import base64
import hashlib
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import time
import zipfile
from pathlib import Path
from typing import Dict, List, Optional

SOURCE = Path(__file__).resolve().parent.parent
NAME = "pteshare"
SUMMARY = ("Make the methods of a compiled ExecuTorch program share their state buffers "
           "(KV caches) at one arena offset, and check that the sharing holds")
BUILD_DEPENDENCIES = ("cmake, g++, libflatbuffers-dev, flatbuffers-compiler, libcli11-dev, "
                      "pybind11-dev and the headers of this Python")


class BuildError(RuntimeError):
    pass


def _version() -> str:
    text = (SOURCE / "CMakeLists.txt").read_text(encoding="utf-8")
    found = re.search(r"project\(\s*pteshare\s+VERSION\s+([0-9.]+)", text)
    if not found:
        raise BuildError("CMakeLists.txt: no project(pteshare VERSION X.Y.Z)")
    return found.group(1)


def _tag() -> str:
    """cp311-cp311-linux_x86_64: the extension works with this interpreter
    (its ABI) on this platform only."""
    if sys.implementation.name != "cpython":
        raise BuildError(f"pteshare's extension is built for CPython, not {sys.implementation.name}")
    python = f"cp{sys.version_info.major}{sys.version_info.minor}"
    suffix = sysconfig.get_config_var("EXT_SUFFIX") or ""
    found = re.match(r"\.cpython-(\d+[a-z]*)-", suffix)
    abi = "cp" + found.group(1) if found else python
    platform = re.sub(r"[^A-Za-z0-9_]", "_", sysconfig.get_platform())
    return f"{python}-{abi}-{platform}"


def _setting(config_settings: Optional[Dict[str, str]], key: str, default: str) -> str:
    value = (config_settings or {}).get(key, default)
    return value[-1] if isinstance(value, list) else value


def _run(command: List[str], what: str) -> None:
    print("pteshare build:", " ".join(command), flush=True)
    try:
        subprocess.run(command, check=True)
    except FileNotFoundError as error:
        raise BuildError(f"{what}: {command[0]} not found; building pteshare needs "
                         f"{BUILD_DEPENDENCIES} (bash .ci/install-deps installs them)") from error
    except subprocess.CalledProcessError as error:
        raise BuildError(f"{what} failed (exit {error.returncode}; its output is above); "
                         f"building pteshare needs {BUILD_DEPENDENCIES} (bash .ci/install-deps "
                         "installs them)") from error


def _build(build: Path) -> None:
    if not (build / "CMakeCache.txt").is_file():
        command = ["cmake", "-S", str(SOURCE), "-B", str(build), "-DCMAKE_BUILD_TYPE=Release",
                   "-DPTESHARE_BUILD_TESTS=OFF", "-DPTESHARE_PYTHON=ON",
                   f"-DPython3_EXECUTABLE={sys.executable}"]
        if shutil.which("ninja"):
            command += ["-G", "Ninja"]
        _run(command, "configuring the build (cmake)")
    jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL") or str(os.cpu_count() or 1)
    _run(["cmake", "--build", str(build), "--target", "pteshare_python", "-j", jobs],
         "building the extension (cmake --build)")


def _package_files(build: Path) -> List[Path]:
    """The files CMake lists for the package (python/CMakeLists.txt writes
    them, the extension's name included, to BUILD/python/package_files.txt)."""
    listing = build / "python" / "package_files.txt"
    if not listing.is_file():
        raise BuildError(f"{listing} is missing; was {build} configured with PTESHARE_PYTHON=ON?")
    folder = build / "python" / NAME
    files = [folder / name for name in listing.read_text(encoding="utf-8").split()]
    missing = [str(f) for f in files if not f.is_file()]
    if missing:
        raise BuildError("the build tree lacks " + ", ".join(missing) +
                         " (is the extension built?)")
    return sorted(files)


def _record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def _metadata(version: str) -> Dict[str, bytes]:
    dist_info = f"{NAME}-{version}.dist-info"
    metadata = (f"Metadata-Version: 2.1\nName: {NAME}\nVersion: {version}\n"
                f"Summary: {SUMMARY}\nRequires-Python: >=3.9\n")
    wheel = (f"Wheel-Version: 1.0\nGenerator: pteshare build_backend\nRoot-Is-Purelib: false\n"
             f"Tag: {_tag()}\n")
    # `pip install .` also gives the `pteshare` command (pteshare.main).
    entry_points = "[console_scripts]\npteshare = pteshare:main\n"
    return {f"{dist_info}/METADATA": metadata.encode(), f"{dist_info}/WHEEL": wheel.encode(),
            f"{dist_info}/entry_points.txt": entry_points.encode()}


def _stripped(extension: Path) -> bytes:
    strip = shutil.which("strip")
    if strip is None:
        return extension.read_bytes()
    out = extension.with_name(extension.name + ".stripped")
    _run([strip, "--strip-unneeded", "-o", str(out), str(extension)], "stripping the extension")
    data = out.read_bytes()
    out.unlink()
    return data


def _write_wheel(path: Path, entries: Dict[str, bytes], executable: set) -> None:
    epoch = int(os.environ.get("SOURCE_DATE_EPOCH", "315532800"))  # 1980-01-01
    stamp = time.gmtime(max(epoch, 315532800))[:6]
    partial = path.with_name(path.name + ".partial")
    with zipfile.ZipFile(partial, "w", compression=zipfile.ZIP_DEFLATED) as wheel:
        for name in sorted(entries, key=lambda n: (n.endswith("/RECORD"), n)):
            info = zipfile.ZipInfo(name, date_time=stamp)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = (0o755 if name in executable else 0o644) << 16
            wheel.writestr(info, entries[name])
    os.replace(partial, path)  # a wheel is there whole or not at all


def build_wheel(wheel_directory: str, config_settings: Optional[Dict[str, str]] = None,
                metadata_directory: Optional[str] = None) -> str:
    tag = _tag()
    build = Path(_setting(config_settings, "build-dir", str(SOURCE / "build-python" / tag)))
    if _setting(config_settings, "build", "yes") != "no":
        _build(build)
    version = _version()
    entries: Dict[str, bytes] = {}
    executable = set()
    for file in _package_files(build):
        name = f"{NAME}/{file.name}"
        if file.suffix == ".so":
            strip = _setting(config_settings, "strip", "yes") != "no"
            entries[name] = _stripped(file) if strip else file.read_bytes()
            executable.add(name)
        else:
            entries[name] = file.read_bytes()
    entries.update(_metadata(version))
    record = f"{NAME}-{version}.dist-info/RECORD"
    lines = [_record_line(name, data) for name, data in sorted(entries.items())]
    entries[record] = ("\n".join(lines + [f"{record},,"]) + "\n").encode()
    filename = f"{NAME}-{version}-{tag}.whl"
    Path(wheel_directory).mkdir(parents=True, exist_ok=True)
    _write_wheel(Path(wheel_directory) / filename, entries, executable)
    return filename


def get_requires_for_build_wheel(config_settings: Optional[Dict[str, str]] = None) -> List[str]:
    return []  # the standard library and the system's build tools only


if __name__ == "__main__":
    # python3 python/build_backend.py OUT_DIR [KEY=VALUE ...]: the wheel,
    # with the same settings as --config-settings.
    settings = dict(arg.split("=", 1) for arg in sys.argv[2:])
    try:
        print(Path(sys.argv[1]) / build_wheel(sys.argv[1], settings))
    except BuildError as error:
        print(f"build_backend: {error}", file=sys.stderr)
        sys.exit(2)

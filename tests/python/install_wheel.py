"""The python_wheel test (tests/CMakeLists.txt): the package as a user gets
it. Builds the wheel from BUILD_DIR with the backend `pip wheel .` uses
(python/build_backend.py; the extension as built, not built again), makes a
fresh virtual environment VENV_DIR, installs the wheel there with pip,
offline, and checks what was installed. The python_module test then runs
tests/python/ with VENV_DIR's interpreter.

    python3 tests/python/install_wheel.py BUILD_DIR VENV_DIR
"""

import pathlib
import shutil
import subprocess
import sys
import venv
import zipfile

SOURCE = pathlib.Path(__file__).resolve().parents[2]
PACKAGE_FILES = {"__init__.py", "__main__.py", "_errors.py", "_native.pyi", "py.typed"}


def main(build, env_dir):
    sys.path.insert(0, str(SOURCE / "python"))
    import build_backend  # noqa: E402 (the backend pip runs, as a module)

    dist = build / "python" / "dist"
    shutil.rmtree(dist, ignore_errors=True)
    # strip=no: a sanitizer build's extension keeps what its runtime reads.
    wheel = dist / build_backend.build_wheel(str(dist), {"build-dir": str(build), "build": "no",
                                                         "strip": "no"})
    names = set(zipfile.ZipFile(wheel).namelist())
    packaged = {name.split("/", 1)[1] for name in names if name.startswith("pteshare/")}
    missing = PACKAGE_FILES - packaged
    assert not missing, f"{wheel.name} lacks {sorted(missing)}"
    assert any(name.startswith("_native.") and name.endswith(".so") for name in packaged), packaged
    print(f"{wheel.name}: {wheel.stat().st_size:,} bytes, {len(names)} files")

    shutil.rmtree(env_dir, ignore_errors=True)
    venv.create(env_dir, with_pip=True, clear=True)
    python = env_dir / "bin" / "python"
    subprocess.run([str(python), "-m", "pip", "install", "--no-index", "--no-deps",
                    "--disable-pip-version-check", "--quiet", str(wheel)], check=True)
    # Installed where the environment looks, typed, with the CLI's command.
    # Found, not imported: a sanitizer build's extension loads only with its
    # runtime preloaded, which python_module's environment has.
    where = subprocess.run([str(python), "-I", "-c",
                            "import importlib.util, pathlib; "
                            "print(pathlib.Path(importlib.util.find_spec('pteshare').origin).parent)"],
                           check=True, capture_output=True, text=True).stdout.strip()
    installed = pathlib.Path(where)
    assert installed.is_relative_to(env_dir), f"imported from {installed}, not {env_dir}"
    for name in PACKAGE_FILES:
        assert (installed / name).is_file(), f"{installed / name} is not installed"
    assert (env_dir / "bin" / "pteshare").is_file(), "pip made no pteshare command"
    print(f"installed in {installed}")


if __name__ == "__main__":
    main(pathlib.Path(sys.argv[1]).resolve(), pathlib.Path(sys.argv[2]).resolve())

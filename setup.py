"""Builds the focal Python package for `pip install .` and `pip wheel .` (pyproject.toml
holds the metadata). The compiled module focal._focal is built by the project's own
CMake, Release, with the tests and benchmarks left out: only the targets the module
links (engine, converter, command line, bindings) are compiled. The version is read
from CMakeLists.txt's project(), the single place it is written.

Environment: CMAKE_BUILD_PARALLEL_LEVEL (build jobs; default: every CPU), and
FOCAL_CMAKE_ARGS (more -D options for the configure step, split on spaces)."""
import os
import pathlib
import re
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = pathlib.Path(__file__).resolve().parent


def project_version():
    """CMakeLists.txt's `project(focal VERSION x.y.z ...)`."""
    match = re.search(r"project\(\s*focal\s+VERSION\s+([0-9][0-9.]*)", (ROOT / "CMakeLists.txt").read_text())
    if match is None:
        raise RuntimeError("CMakeLists.txt has no project(focal VERSION ...)")
    return match.group(1)


class CMakeExtension(Extension):
    """An extension whose sources CMake knows (python/CMakeLists.txt), not setuptools."""

    def __init__(self, name):
        super().__init__(name, sources=[])


class CMakeBuild(build_ext):
    """Configures the project in build_temp and builds the _focal target alone."""

    def build_extension(self, ext):
        build_dir = pathlib.Path(self.build_temp).resolve() / "cmake"
        subprocess.run(["cmake", "-S", str(ROOT), "-B", str(build_dir), *configure_options()], check=True)
        environment = dict(os.environ)
        environment.setdefault("CMAKE_BUILD_PARALLEL_LEVEL", str(os.cpu_count() or 1))
        subprocess.run(["cmake", "--build", str(build_dir), "--target", "_focal"], check=True, env=environment)
        built = sorted((build_dir / "python" / "focal").glob("_focal*.so"))
        if len(built) != 1:
            raise RuntimeError(f"expected one compiled module in {build_dir}/python/focal, found {built}")
        destination = pathlib.Path(self.get_ext_fullpath(ext.name))
        destination.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(built[0], destination)


def configure_options():
    """Release, the module for this interpreter, no tests or benchmarks; Ninja and ccache
    when the machine has them (ccache makes a rebuild from a fresh clone quick)."""
    options = ["-DCMAKE_BUILD_TYPE=Release", "-DFOCAL_PYTHON=ON", "-DFOCAL_BUILD_TESTS=OFF",
               "-DFOCAL_BUILD_BENCH=OFF", f"-DPython_EXECUTABLE={sys.executable}"]
    if shutil.which("ninja"):
        options += ["-G", "Ninja"]
    if shutil.which("ccache"):
        options += ["-DCMAKE_C_COMPILER_LAUNCHER=ccache", "-DCMAKE_CXX_COMPILER_LAUNCHER=ccache"]
    return options + os.environ.get("FOCAL_CMAKE_ARGS", "").split()


setup(version=project_version(), ext_modules=[CMakeExtension("focal._focal")], cmdclass={"build_ext": CMakeBuild})

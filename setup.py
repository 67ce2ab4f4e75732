"""`pip install .`: builds the extension module with the project's CMake build (no network:
with Debian's setuptools, `python3 -m pip install --no-build-isolation .`).

Environment: CMAKE_ARGS, extra configure options (e.g. "-DSPMVKIT_CUDA=OFF"); SPMVKIT_BUILD_DIR,
an already configured build folder to build the module in (nothing is reconfigured), else
build-pip/cmake is configured here."""
import os
import pathlib
import shlex
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = pathlib.Path(__file__).resolve().parent


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        build = os.environ.get("SPMVKIT_BUILD_DIR")
        if build:
            build = pathlib.Path(build).resolve()
        else:
            build = ROOT / "build-pip" / "cmake"
            configure = ["cmake", "-S", str(ROOT), "-B", str(build), "-DCMAKE_BUILD_TYPE=Release",
                         "-DSPMVKIT_PYTHON=ON", "-DSPMVKIT_TESTS=OFF",
                         f"-DPython3_EXECUTABLE={sys.executable}"]
            if shutil.which("ninja"):
                configure += ["-G", "Ninja"]
            configure += shlex.split(os.environ.get("CMAKE_ARGS", ""))
            subprocess.run(configure, check=True)
        subprocess.run(["cmake", "--build", str(build), "--target", "spmvkit_python", "-j",
                        str(os.cpu_count() or 1)], check=True)
        built = sorted((build / "python" / "spmvkit").glob("_spmvkit*.so"))
        if not built:
            raise RuntimeError(f"no _spmvkit module under {build}/python/spmvkit")
        target = pathlib.Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(built[-1], target)


(ROOT / "build-pip").mkdir(exist_ok=True)
setup(
    name="spmvkit",
    version="0.1.0",
    description="Sparse matrix-vector products and Krylov solvers on NVIDIA GPUs and CPUs",
    packages=["spmvkit"],
    package_dir={"": "python"},
    ext_modules=[Extension("spmvkit._spmvkit", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    python_requires=">=3.8",
    install_requires=["numpy", "scipy"],
    options={"build": {"build_base": "build-pip"}, "egg_info": {"egg_base": "build-pip"}},
    zip_safe=False,
)

"""The README's Python example and examples/python_solve.py run, and give right answers."""
import os
import pathlib
import re
import subprocess
import sys

import numpy as np

from conftest import DATA

ROOT = DATA.parents[1]


def test_readme_example():
    text = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert blocks, "README.md has no ```python block"
    code = blocks[0]
    assert len(code.strip().splitlines()) <= 5
    scope = {}
    exec(compile(code, "README.md", "exec"), scope)
    a, op, y, x, info = (scope[k] for k in ("A", "op", "y", "x", "info"))
    assert info == 0
    x = x.get() if hasattr(x, "get") else x
    y = y.get() if hasattr(y, "get") else y
    assert np.linalg.norm(a @ x - y) <= 1e-5 * np.linalg.norm(y)
    assert np.allclose(y, a @ np.ones(a.shape[1]))


def test_python_solve_example():
    r = subprocess.run([sys.executable, str(ROOT / "examples" / "python_solve.py"), "24",
                        "--backend", "cpu"], capture_output=True, text=True, env=os.environ,
                       timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "cg: converged" in r.stdout


def test_pip_install(tmp_path):
    """`pip install .` (no network, no build isolation) into a folder, reusing the build the
    tests run from (SPMVKIT_BUILD_DIR, set by ctest), then imported from there alone."""
    import pytest
    build = os.environ.get("SPMVKIT_BUILD_DIR")
    if not build:
        pytest.skip("SPMVKIT_BUILD_DIR not set (ctest sets it)")
    env = dict(os.environ, SPMVKIT_BUILD_DIR=build)
    target = tmp_path / "site"
    r = subprocess.run([sys.executable, "-m", "pip", "install", "--no-build-isolation",
                        "--no-deps", "--no-cache-dir", "--no-index", "--target", str(target),
                        str(ROOT)], capture_output=True, text=True, env=env, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    env = dict(os.environ, PYTHONPATH=str(target))
    code = ("import numpy as np, scipy.sparse as sp, spmvkit; "
            "print(spmvkit.__file__); "
            "op = spmvkit.Operator(sp.identity(3) * 2.0, backend='cpu'); "
            "print((op @ np.ones(3)).tolist())")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                       cwd=tmp_path, timeout=120)
    assert r.returncode == 0, r.stderr
    path, values = r.stdout.splitlines()
    assert path.startswith(str(target)) and values == "[2.0, 2.0, 2.0]"

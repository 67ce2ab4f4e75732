"""Shared fixtures: matrices against which every result is checked in float64 (scipy.sparse),
and the CuPy/GPU switch (CuPy tests skip, saying why, without CuPy or a GPU)."""
import os
import pathlib

import numpy as np
import pytest
import scipy.sparse

import spmvkit

DATA = pathlib.Path(os.environ.get("SPMVKIT_SOURCE_DIR",
                                   pathlib.Path(__file__).resolve().parents[2])) / "tests" / "data"


def rel_err(z, ref):
    """||z - ref|| / ||ref|| in float64 (the absolute error when ref is 0)."""
    z = np.asarray(z, dtype=np.float64)
    ref = np.asarray(ref, dtype=np.float64)
    scale = np.linalg.norm(ref)
    return np.linalg.norm(z - ref) / (scale if scale > 0 else 1.0)


def tolerance(dtype):
    return 1e-5 if np.dtype(dtype) == np.float32 else 1e-12


def random_matrix(rows, cols, density=0.1, seed=0, dtype=np.float64):
    rng = np.random.default_rng(seed)
    return scipy.sparse.random(rows, cols, density=density, format="csr", dtype=dtype,
                               random_state=rng, data_rvs=lambda n: rng.uniform(-1, 1, n))


def spd_matrix(n=200, seed=0):
    """Symmetric, strictly diagonally dominant: CG and BiCGSTAB converge."""
    a = random_matrix(n, n, density=0.02, seed=seed)
    a = a + a.T
    return (a + scipy.sparse.diags(np.asarray(abs(a).sum(axis=1)).ravel() + 1.0)).tocsr()


def cpu_formats():
    return [name for name, f in spmvkit.formats().items() if f["cpu"]]


def _cupy_or_reason():
    try:
        import cupy
    except ImportError:
        return None, "cupy is not installed"
    if not spmvkit.cuda_available():
        return None, "no GPU (or spmvkit built without CUDA)"
    try:
        cupy.zeros(1).sum()
    except Exception as e:  # CuPy installed but without a usable device
        return None, f"cupy cannot use the GPU: {e}"
    return cupy, ""


@pytest.fixture(scope="session")
def cp():
    cupy, why = _cupy_or_reason()
    if cupy is None:
        pytest.skip(why)
    return cupy

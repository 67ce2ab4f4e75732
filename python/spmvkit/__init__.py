"""spmvkit: sparse matrix-vector products and Krylov solvers on NVIDIA GPUs and CPUs.

    import scipy.sparse, numpy as np, spmvkit
    A = spmvkit.generate("stencil7_20")            # a scipy.sparse.csr_matrix
    op = spmvkit.Operator(A, backend="cpu")        # format "auto"; backend "cuda" on a GPU
    y = op @ np.ones(A.shape[1])
    x, info = spmvkit.linalg.cg(op, y)
"""
import json
import os
import tempfile

import numpy as np
import scipy.sparse

from . import _spmvkit, linalg
from ._operator import Operator, canonical_csr, default_backend
from ._spmvkit import CudaError, UnsupportedError, cuda_available, cuda_compiled

__all__ = ["Operator", "linalg", "formats", "read_matrix_market", "write_matrix_market",
           "generate", "bench", "CudaError", "UnsupportedError", "cuda_available",
           "cuda_compiled", "default_backend"]


def formats():
    """The registry: {name: {name, summary, peer, cpu, cuda, params: [{name, type, default,
    allowed, cuda_only, meaning}]}}, in the registry's order."""
    return {f["name"]: f for f in _spmvkit.formats()}


def _csr(t):
    rows, cols, row_ptr, col_idx, values = t
    return scipy.sparse.csr_matrix((values, col_idx, row_ptr), shape=(rows, cols))


def read_matrix_market(path):
    """A Matrix Market file (.mtx, .mtx.gz; real, integer or pattern; general, symmetric or
    skew-symmetric) as a float64 scipy.sparse.csr_matrix. ValueError naming file and line for
    a malformed file."""
    return _csr(_spmvkit.read_matrix_market(os.fspath(path)))


def write_matrix_market(path, A, comment=""):
    """Writes a scipy.sparse matrix as `coordinate real general` (gzip when path ends in .gz)."""
    rows, cols, row_ptr, col_idx, values = canonical_csr(A, np.float64)
    _spmvkit.write_matrix_market(os.fspath(path), rows, cols, row_ptr, col_idx, values, comment)


def generate(name):
    """A generated matrix by name, as the CLI names them (stencil27_50, reservoir_bs7_10,
    powerlaw_100000, banded_1000_8, random_100_80_5, convdiff2d_64, expand_bs4_NAME), as a
    float64 scipy.sparse.csr_matrix."""
    if not isinstance(name, str):
        raise ValueError(f"name: expected a generator name, got {name!r}")
    return _csr(_spmvkit.generate(name))


def _params_text(params):
    if params is None:
        return ""
    if isinstance(params, str):
        return params
    if isinstance(params, dict):  # {format: {key: value}} or {format: "k=v,k2=v2"}
        parts = []
        for fmt, kv in params.items():
            if isinstance(kv, dict):
                kv = ",".join(f"{k}={str(v).lower() if isinstance(v, bool) else v}"
                              for k, v in kv.items())
            parts.append(f"{fmt}:{kv}")
        return ";".join(parts)
    raise ValueError(f"params: expected a dict or 'format:key=value;...', got {params!r}")


def bench(A, formats=None, backend=None, dtype="float64", params=None, reps=50, warmup=10,
          check=True, name=None, full_report=False):
    """Times formats on A with the benchmark harness (what `spmvkit bench` runs), each next to
    the backend's peers (cuSPARSE on cuda, Eigen on cpu). A: a scipy.sparse matrix, or a
    matrix name the CLI accepts (generator name, .mtx path, bundled name). formats: None (all
    on this backend), a name or a list. Returns the records (dicts with the JSON's fields), or
    the whole report (device, ceiling_gbs, ..., results) with full_report=True."""
    if not _spmvkit.has_bench:
        raise RuntimeError("bench: this build has no benchmark harness (SPMVKIT_CLI=OFF)")
    backend = default_backend() if backend is None else backend
    if not isinstance(backend, str):
        raise ValueError(f"backend: {backend!r} is not 'cpu' or 'cuda'")
    if np.dtype(dtype) not in (np.dtype(np.float32), np.dtype(np.float64)):
        raise ValueError(f"dtype: {dtype} is not supported (float32 or float64)")
    if formats is None:
        formats = []
    elif isinstance(formats, str):
        formats = [f for f in formats.split(",") if f]
    else:
        formats = list(formats)
    if not all(isinstance(f, str) for f in formats):
        raise ValueError(f"formats: expected format names, got {formats!r}")
    for v, what in ((reps, "reps"), (warmup, "warmup")):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
            raise ValueError(f"{what}: expected an integer, got {v!r}")
    args = (backend, np.dtype(dtype) == np.float64, formats, _params_text(params), int(warmup),
            int(reps), bool(check))
    if isinstance(A, (str, os.PathLike)):
        report = json.loads(_spmvkit.bench([os.fspath(A)], *args))
    else:
        with tempfile.TemporaryDirectory(prefix="spmvkit-bench-") as d:
            path = os.path.join(d, "matrix.mtx")
            write_matrix_market(path, A)
            report = json.loads(_spmvkit.bench([path], *args))
            for r in report["results"]:
                r["matrix"] = name or "matrix"
    if name is not None:
        for r in report["results"]:
            r["matrix"] = name
    return report if full_report else report["results"]

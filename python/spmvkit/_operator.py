"""spmvkit.Operator: a sparse matrix built into one of the registry's formats, on the CPU or
the GPU, used with NumPy or CuPy arrays and as a scipy.sparse.linalg.LinearOperator."""
import numbers

import numpy as np
import scipy.sparse
import scipy.sparse.linalg

from . import _arrays, _spmvkit

_INDEX_MAX = np.iinfo(np.int32).max


def default_backend():
    """"cuda" when this build has the CUDA backend and a GPU is there, else "cpu"."""
    return "cuda" if _spmvkit.cuda_available() else "cpu"


def _registry():
    return {f["name"]: f for f in _spmvkit.formats()}


def _choose_format(format, backend, block_size):
    """"auto" goes to the registry when it has it (the library's selector); until then a
    sensible fixed choice: BSR for a matrix given in BSR, else the load-balanced CSR."""
    if not isinstance(format, str):
        raise ValueError(f"format: expected a format name, got {format!r}")
    registry = _registry()
    if format != "auto" or "auto" in registry:
        return format
    wanted = ["bsr"] if block_size > 1 else []
    for name in wanted + ["csr_balanced", "csr_vector", "csr_scalar"]:
        f = registry.get(name)
        if f is not None and f[backend]:
            return name
    raise ValueError(f"format: no format of this build runs on the {backend} backend")


def _param_text(key, value):
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (str, numbers.Real)) and not isinstance(value, complex):
        return str(value)
    raise ValueError(f"parameter {key}: {value!r} is not a number, flag or name")


def canonical_csr(A, dtype=None, what="A"):
    """A scipy.sparse matrix (or array) as a CSR with sorted, summed indices (explicit zeros
    kept: a BSR matrix keeps its blocks), int32 indices and float32/float64 values."""
    if hasattr(A, "get") and type(A).__module__.startswith("cupyx"):
        A = A.get()  # a cupyx.scipy.sparse matrix: built on the host like any other
    if not scipy.sparse.issparse(A):
        raise ValueError(f"{what}: expected a scipy.sparse matrix, got {type(A).__name__}")
    if len(A.shape) != 2:
        raise ValueError(f"{what}: expected 2 dimensions, got shape {A.shape}")
    if dtype is None:
        if A.dtype.kind not in "biuf":
            raise ValueError(f"{what}: dtype {A.dtype} is not supported (real values only)")
        dtype = A.dtype if A.dtype in _arrays.FLOAT_DTYPES else np.dtype(np.float64)
    dtype = _arrays.value_dtype(dtype, "dtype")
    if A.dtype.kind not in "biuf":
        raise ValueError(f"{what}: dtype {A.dtype} cannot be converted to {dtype}")
    rows, cols = A.shape
    if rows > _INDEX_MAX or cols > _INDEX_MAX or A.nnz > _INDEX_MAX:
        raise ValueError(f"{what}: {rows}x{cols} with {A.nnz} entries exceeds 32-bit indices")
    c = A.tocsr(copy=True)
    c.sum_duplicates()
    return (rows, cols, np.ascontiguousarray(c.indptr, dtype=np.int32),
            np.ascontiguousarray(c.indices, dtype=np.int32),
            np.ascontiguousarray(c.data, dtype=dtype))


class Operator(scipy.sparse.linalg.LinearOperator):
    """A sparse matrix built into a format of the registry on one backend.

    Operator(A, format="auto", backend=None, dtype=None, **params): A any scipy.sparse matrix
    (converted as needed; a BSR matrix keeps its blocks); format a registry name (see
    spmvkit.formats()); backend "cuda" or "cpu" (default: cuda when a GPU is there); dtype
    float32 or float64 (default: A's, float64 for integer matrices); params the format's
    parameters (spmvkit.formats()[name]["params"]).

    op @ x, op.matvec(x), op.apply(x, y=None, alpha=1, beta=0, out=None, stream=None) take
    NumPy arrays (copied to the GPU on the cuda backend) or CuPy arrays (used in place, on
    CuPy's current stream or `stream`).
    """

    def __init__(self, A, format="auto", backend=None, dtype=None, **params):
        if backend is None:
            backend = default_backend()
        if backend not in ("cpu", "cuda"):
            raise ValueError(f"backend: {backend!r} is not 'cpu' or 'cuda'")
        block_size = 1
        if scipy.sparse.issparse(A) and A.format == "bsr" and A.blocksize[0] == A.blocksize[1]:
            block_size = A.blocksize[0]
        rows, cols, row_ptr, col_idx, values = canonical_csr(A, dtype)
        name = _choose_format(format, backend, block_size)
        text = {k: _param_text(k, v) for k, v in params.items()}
        spec = _registry().get(name)
        if (block_size > 1 and "block_size" not in text and spec is not None and
                any(p["name"] == "block_size" for p in spec["params"])):
            text["block_size"] = str(block_size)
        self._core = _spmvkit.CoreOperator(name, rows, cols, row_ptr, col_idx, values, text,
                                           backend)
        super().__init__(dtype=values.dtype, shape=(rows, cols))

    @property
    def info(self):
        """The operator's facts as a dict: format, backend, dtype, rows, cols, nnz,
        matrix_bytes, paper_bytes, details (the parameters in effect)."""
        return self._core.info

    @property
    def format(self):
        return self._core.info["format"]

    @property
    def backend(self):
        return self._core.info["backend"]

    def __repr__(self):
        i = self.info
        return (f"<spmvkit.Operator {i['rows']}x{i['cols']} nnz={i['nnz']} format={i['format']}"
                f" backend={i['backend']} dtype={i['dtype']}>")

    def apply(self, x, y=None, alpha=1.0, beta=0.0, out=None, stream=None):
        """out = alpha*A*x + beta*y (y is not read when beta == 0 and may be None; out may be
        y itself). Returns out (allocated when None) in the kind of array x is."""
        alpha, beta = _scalar(alpha, "alpha"), _scalar(beta, "beta")
        rows, cols = self.shape
        device = _arrays.is_device_array(x)
        x = _arrays.as_input(x, "x", self.dtype, cols, device)
        if y is None and beta != 0:
            raise ValueError("y: required when beta != 0")
        if beta == 0:
            y = None
        if out is None:
            out = _arrays.empty(rows, self.dtype, device)
        else:
            out = _arrays.check_output(out, "out", self.dtype, rows, device)
        if y is not None:
            same = y is out
            y = out if same else _arrays.as_input(y, "y", self.dtype, rows, device)
        if device:
            stream = _arrays.stream_handle(stream, [x])
            self._core.apply_device(_arrays.device_pointer(x, "x", self.dtype, cols),
                                    0 if y is None else _arrays.pointer(y),
                                    _arrays.device_pointer(out, "out", self.dtype, rows, True),
                                    alpha, beta, stream)
        else:
            if stream is not None:
                raise ValueError("stream: only for device (CuPy) arrays")
            self._core.apply_host(x, y, out, alpha, beta)
        return out

    def _matvec(self, x):
        return self.apply(np.asarray(x).reshape(-1))

    def matvec(self, x):
        if _arrays.is_device_array(x):
            return self._device_dot(x)
        return super().matvec(x)

    def dot(self, x):
        if _arrays.is_device_array(x):
            return self._device_dot(x)
        return super().dot(x)

    def _device_dot(self, x):
        shape = tuple(x.__cuda_array_interface__["shape"])
        if len(shape) == 1 or (len(shape) == 2 and shape[1] == 1):
            y = self.apply(x)
            return y if len(shape) == 1 else y.reshape(-1, 1)
        if len(shape) != 2:
            raise ValueError(f"x: expected 1 or 2 dimensions, got shape {shape}")
        cp = _arrays._cupy()
        x = cp.asarray(x)
        if x.shape[0] != self.shape[1]:
            raise ValueError(f"x: expected {self.shape[1]} rows, got shape {x.shape}")
        return cp.stack([self.apply(x[:, j]) for j in range(x.shape[1])], axis=1)


def _scalar(v, what):
    if isinstance(v, bool) or not isinstance(v, numbers.Real):
        raise ValueError(f"{what}: expected a real number, got {v!r}")
    return float(v)

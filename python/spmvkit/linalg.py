"""Krylov solvers with SciPy's calling convention: x, info = cg(A, b) / bicgstab(A, b).

The iteration is spmvkit's (solvers/, docs/solvers.md): stop when ||b - A x_k|| <= max(rtol *
||b||, atol), the true residual checked at the end. Two differences from SciPy:
- callback(k, residual_norm) gets the iteration number and the residual norm (the iterate
  stays on the device between checks), not x_k;
- M, SciPy's preconditioner (an approximation of inv(A)), is applied by calling back into
  Python from the solver: on NumPy arrays for a scipy.sparse matrix, a NumPy array, a
  scipy.sparse.linalg.LinearOperator or anything aslinearoperator() takes; on CuPy arrays
  for a cupyx.scipy.sparse matrix, a CuPy array or a cupyx LinearOperator (cuda backend).
  Each apply waits for the GPU, so the merged CUDA solver then runs without CUDA graphs and
  learns the residual every iteration (check_every=1 unless given);
- or preconditioners come by name, precond="jacobi" or "block_jacobi[:BS]" (spmvkit's own,
  applied inside the merged solvers, on the GPU; A must then be a scipy.sparse matrix).
"""
import dataclasses
import numbers

import numpy as np
import scipy.sparse

from . import _arrays, _spmvkit
from ._operator import Operator, canonical_csr

__all__ = ["cg", "bicgstab", "SolveResult"]


@dataclasses.dataclass
class SolveResult:
    """What a solve did (full_result=True). `info` is SciPy's: 0 converged, > 0 not converged
    after that many iterations, < 0 a breakdown or a NaN/Inf (`status` and `breakdown` say
    which)."""
    x: object
    info: int
    status: str              # converged | max_iterations | breakdown | non_finite
    breakdown: str           # for a breakdown: the zero divisor, e.g. "rho = (r0^, r)"
    iterations: int
    restarts: int            # restarts after a gap between recursive and true residual
    b_norm: float
    tolerance: float         # max(rtol * ||b||, atol)
    residual_norm: float     # the recursive residual at the end
    true_residual_norm: float  # ||b - A x|| recomputed at the end
    true_rel_residual: float
    history: list            # ||r_k||, k = 0 .. iterations
    solve_ms: float
    iter_ms: float
    spmv_per_iter: int
    spmv_ms_per_iter: float
    other_ms_per_iter: float
    cuda_graph: bool
    format: str
    backend: str

    @property
    def converged(self):
        return self.status == "converged"


def _info(result):
    if result["status"] == "converged":
        return 0
    if result["status"] == "max_iterations":
        return max(result["iterations"], 1)
    return -1


def _is_device_object(M):
    """True for CuPy arrays, cupyx.scipy.sparse matrices and cupyx LinearOperators."""
    return _arrays.is_device_array(M) or type(M).__module__.split(".")[0] in ("cupy", "cupyx")


def _m_apply(M, n, dtype, backend):
    """(apply, device_arrays) for the extension's PythonPreconditioner: apply(x, y, z, alpha,
    beta) writes z = alpha*M*x + beta*y (y None when beta is 0), on NumPy arrays, or on
    device addresses when device_arrays (wrapped here as CuPy arrays)."""
    device = _is_device_object(M)
    if device and backend != "cuda":
        raise ValueError(f"M: a CuPy (device) preconditioner, but the operator is on the "
                         f"{backend} backend")
    if device:
        cp = _arrays._cupy()
        import cupyx.scipy.sparse.linalg as splinalg
    else:
        import scipy.sparse.linalg as splinalg
    try:
        op = splinalg.aslinearoperator(M)
    except (TypeError, ValueError) as e:
        raise ValueError(f"M: expected a sparse matrix, a dense array or a LinearOperator, got "
                         f"{type(M).__name__} ({e})") from e
    if tuple(op.shape) != (n, n):
        raise ValueError(f"M: shape {tuple(op.shape)}, expected ({n}, {n}) like A")
    if op.dtype is not None and np.dtype(op.dtype).kind == "c":
        raise ValueError(f"M: dtype {op.dtype}: complex preconditioners are not supported")

    def combine(r, y, z, alpha, beta):
        # M's result may be (n, 1) (a matrix-like M) or of another real dtype; z may be y.
        r = r.reshape(-1)
        if r.shape != (n,):
            raise ValueError(f"M: matvec returned shape {r.shape}, expected ({n},)")
        if alpha != 1.0:
            r = alpha * r
        if y is not None:
            r = r + beta * y
        z[...] = r

    if not device:
        def apply(x, y, z, alpha, beta):
            combine(np.asarray(op.matvec(x)), y, z, alpha, beta)
        return apply, False

    def view(ptr):
        mem = cp.cuda.UnownedMemory(ptr, n * np.dtype(dtype).itemsize, None)
        return cp.ndarray((n,), dtype, cp.cuda.MemoryPointer(mem, 0))

    def apply_device(x_ptr, y_ptr, z_ptr, alpha, beta):
        # spmvkit's stream is done with x (the extension waited for it); the work queued here,
        # on CuPy's current stream, must be done before spmvkit goes on.
        stream = cp.cuda.get_current_stream()
        try:
            r = cp.asarray(op.matvec(view(x_ptr)))
            combine(r, view(y_ptr) if y_ptr else None, view(z_ptr), alpha, beta)
        finally:
            stream.synchronize()
    return apply_device, True


def _solve(method, A, b, x0, rtol, atol, maxiter, M, callback, impl, precond, full_result,
           format, backend, check_every, cuda_graph):
    if M is not None and precond is not None:
        raise ValueError("M and precond: give one preconditioner, not both")
    if M is not None and cuda_graph:
        raise ValueError("cuda_graph: a Python M cannot run inside a CUDA graph (leave "
                         "cuda_graph None or False)")
    if precond is not None and not isinstance(precond, str):
        raise ValueError(f"precond: expected None, 'jacobi' or 'block_jacobi[:BS]', "
                         f"got {precond!r}")
    if callback is not None and not callable(callback):
        raise ValueError(f"callback: {callback!r} is not callable")
    if isinstance(A, Operator):
        op = A
        if backend is not None and backend != op.backend:
            raise ValueError(f"backend: {backend!r}, but A is an Operator on {op.backend}")
    elif scipy.sparse.issparse(A) or type(A).__module__.startswith("cupyx"):
        op = Operator(A, format=format, backend=backend)
    else:
        raise ValueError(f"A: expected a scipy.sparse matrix or spmvkit.Operator, got "
                         f"{type(A).__name__}")
    rows, cols = op.shape
    if rows != cols:
        raise ValueError(f"A: not square ({rows}x{cols})")
    if precond is not None:
        if isinstance(A, Operator):
            raise ValueError("precond: give A as a scipy.sparse matrix (an Operator keeps only "
                             "its format's arrays, not the matrix the preconditioner needs)")
        _, _, row_ptr, col_idx, values = canonical_csr(A, op.dtype)
        op._core.set_preconditioner(precond, rows, cols, row_ptr, col_idx, values)
    m_apply = None
    if M is not None:
        m_apply, m_device_arrays = _m_apply(M, rows, op.dtype, op.backend)
    device = _arrays.is_device_array(b)
    b = _arrays.as_input(b, "b", op.dtype, rows, device)
    if x0 is None:
        x = _arrays.zeros(cols, op.dtype, device)
    else:
        # A copy always: the solve writes into x, and x0 stays as it was.
        x = _arrays.copy(_arrays.as_input(x0, "x0", op.dtype, cols, device), device)
    if maxiter is None:
        maxiter = 10 * rows  # SciPy's default
    if isinstance(maxiter, bool) or not isinstance(maxiter, numbers.Integral):
        raise ValueError(f"maxiter: expected an integer, got {maxiter!r}")
    if maxiter > np.iinfo(np.int32).max:
        maxiter = np.iinfo(np.int32).max
    for name, v in (("rtol", rtol), ("atol", atol)):
        if isinstance(v, bool) or not isinstance(v, numbers.Real):
            raise ValueError(f"{name}: expected a real number, got {v!r}")
    req = _spmvkit.SolveRequest()
    req.method, req.impl = method, impl
    req.rtol, req.atol, req.maxiter = float(rtol), float(atol), int(maxiter)
    if check_every is not None:
        if isinstance(check_every, bool) or not isinstance(check_every, numbers.Integral) or \
                check_every < 1:
            raise ValueError(f"check_every: expected an integer >= 1, got {check_every!r}")
        req.check_every = int(check_every)
    if cuda_graph is not None:
        req.cuda_graph = 1 if cuda_graph else 0
    req.callback = callback
    if m_apply is not None:
        req.m_apply, req.m_device_arrays = m_apply, m_device_arrays
    if not isinstance(impl, str):
        raise ValueError(f"impl: expected 'merged' or 'reference', got {impl!r}")
    if device:
        r = op._core.solve_device(_arrays.pointer(b), _arrays.pointer(x),
                                  _arrays.stream_handle(None, [b]), req)
    else:
        r = op._core.solve_host(b, x, req)
    info = _info(r)
    if not full_result:
        return x, info
    return SolveResult(x=x, info=info, format=op.format, backend=op.backend, **r)


def cg(A, b, x0=None, *, rtol=1e-5, atol=0.0, maxiter=None, M=None, callback=None,
       impl="merged", precond=None, full_result=False, format="auto", backend=None,
       check_every=None, cuda_graph=None):
    """Conjugate gradients for a symmetric positive definite A (scipy.sparse.linalg.cg's
    signature). A: a spmvkit.Operator, or a scipy.sparse matrix built with `format` on
    `backend`. b, x0: NumPy or CuPy arrays (x comes back in the same kind). M: a
    preconditioner approximating inv(A), SciPy's kinds (see the module's docstring), or
    precond: one of spmvkit's by name, not both. impl: "merged" or "reference". Returns
    (x, info), or a SolveResult with full_result=True."""
    return _solve("cg", A, b, x0, rtol, atol, maxiter, M, callback, impl, precond,
                  full_result, format, backend, check_every, cuda_graph)


def bicgstab(A, b, x0=None, *, rtol=1e-5, atol=0.0, maxiter=None, M=None, callback=None,
             impl="merged", precond=None, full_result=False, format="auto", backend=None,
             check_every=None, cuda_graph=None):
    """BiCGSTAB for a general square A; arguments and return as cg()."""
    return _solve("bicgstab", A, b, x0, rtol, atol, maxiter, M, callback, impl, precond,
                  full_result, format, backend, check_every, cuda_graph)

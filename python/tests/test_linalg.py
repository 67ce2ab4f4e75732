"""spmvkit.linalg.cg / bicgstab on the CPU backend against scipy.sparse.linalg.spsolve."""
import numpy as np
import pytest
import scipy.sparse
import scipy.sparse.linalg

import spmvkit
from spmvkit import linalg
from conftest import DATA, rel_err, spd_matrix


@pytest.mark.parametrize("impl", ["merged", "reference"])
@pytest.mark.parametrize("solver", [linalg.cg, linalg.bicgstab])
def test_solves_against_spsolve(solver, impl):
    a = spd_matrix(300, seed=1)
    b = np.random.default_rng(2).uniform(-1, 1, 300)
    ref = scipy.sparse.linalg.spsolve(a.tocsc(), b)
    x, info = solver(a, b, rtol=1e-10, impl=impl, backend="cpu")
    assert info == 0
    assert x.dtype == np.float64 and x.shape == (300,)
    assert rel_err(x, ref) < 1e-8


def test_bundled_spd_matrix_with_an_operator():
    a = spmvkit.read_matrix_market(DATA / "494_bus.mtx")
    op = spmvkit.Operator(a, format="csr_vector", backend="cpu")
    x_true = np.ones(a.shape[0])
    r = linalg.cg(op, a @ x_true, rtol=1e-10, maxiter=5000, full_result=True)
    assert r.info == 0 and r.converged and r.format == "csr_vector"
    assert r.true_rel_residual <= 1e-9
    assert rel_err(a @ r.x, a @ x_true) < 1e-9


def test_nonsymmetric_bundled_matrix():
    a = spmvkit.read_matrix_market(DATA / "cage5.mtx")
    b = np.arange(a.shape[0], dtype=np.float64)
    x, info = linalg.bicgstab(a, b, rtol=1e-12, backend="cpu")
    assert info == 0
    assert rel_err(x, scipy.sparse.linalg.spsolve(a.tocsc(), b)) < 1e-9


def test_float32():
    a = spd_matrix(100, seed=3).astype(np.float32)
    b = np.ones(100, dtype=np.float32)
    x, info = linalg.cg(a, b, rtol=1e-5, backend="cpu")
    assert info == 0 and x.dtype == np.float32
    assert rel_err(x, scipy.sparse.linalg.spsolve(a.astype(np.float64).tocsc(), b)) < 1e-4


def test_full_result_and_callback():
    a = spd_matrix(120, seed=4)
    b = np.random.default_rng(5).uniform(-1, 1, 120)
    seen = []
    r = linalg.cg(a, b, rtol=1e-8, callback=lambda k, res: seen.append((k, res)),
                  full_result=True, backend="cpu")
    assert r.status == "converged" and r.iterations > 0
    assert len(r.history) == r.iterations + 1
    assert r.tolerance == pytest.approx(1e-8 * np.linalg.norm(b))
    assert seen and seen[-1][0] == r.iterations
    assert seen[-1][1] == pytest.approx(r.residual_norm)
    assert r.residual_norm <= r.tolerance
    assert rel_err(a @ r.x, b) < 1e-7


def test_callback_exception_stops_the_solve():
    a = spd_matrix(80, seed=6)

    def stop(k, res):
        if k >= 2:
            raise KeyError("stop here")
    with pytest.raises(KeyError, match="stop here"):
        linalg.cg(a, np.ones(80), callback=stop, backend="cpu", rtol=1e-12)


def test_x0_is_used_and_left_alone():
    a = spd_matrix(60, seed=7)
    b = np.random.default_rng(8).uniform(-1, 1, 60)
    exact = scipy.sparse.linalg.spsolve(a.tocsc(), b)
    x0 = exact.copy()
    r = linalg.bicgstab(a, b, x0=x0, rtol=1e-8, full_result=True, backend="cpu")
    assert r.info == 0 and r.iterations == 0  # already solved
    np.testing.assert_array_equal(x0, exact)
    x0 = np.zeros((60, 1))  # a column is accepted, like SciPy
    x, info = linalg.cg(a, b.reshape(-1, 1), x0=x0, rtol=1e-10, backend="cpu")
    assert info == 0 and x.shape == (60,) and np.all(x0 == 0)


def test_maxiter_and_info_codes():
    a = spd_matrix(200, seed=9)
    b = np.ones(200)
    x, info = linalg.cg(a, b, rtol=1e-14, maxiter=3, backend="cpu")
    assert info == 3
    x, info = linalg.cg(a, np.zeros(200), backend="cpu")  # b = 0: x = 0 at once
    assert info == 0 and not x.any()
    r = linalg.cg(a, np.full(200, np.nan), full_result=True, backend="cpu")
    assert r.info < 0 and r.status == "non_finite"


def test_solver_bad_arguments():
    a = spd_matrix(20, seed=10)
    b = np.ones(20)
    with pytest.raises(ValueError, match="precond: expected None"):
        linalg.bicgstab(a, b, precond=3, backend="cpu")
    with pytest.raises(ValueError, match="precond"):  # the library's parser names the choices
        linalg.bicgstab(a, b, precond="ilu", backend="cpu")
    with pytest.raises(ValueError, match="precond: give A as a scipy.sparse matrix"):
        linalg.cg(spmvkit.Operator(a, backend="cpu"), b, precond="jacobi")
    singular = a.tolil()
    singular[5, 5] = 0.0
    with pytest.raises(ValueError, match="row 5"):  # a zero diagonal is named, never inverted
        linalg.cg(singular.tocsr(), b, precond="jacobi", backend="cpu")
    cases = [
        (dict(A=np.eye(20)), "A: expected a scipy.sparse matrix"),
        (dict(A=scipy.sparse.random(20, 10, density=0.5)), r"A: not square \(20x10\)"),
        (dict(b=np.ones(19)), r"b: expected shape \(20,\)"),
        (dict(x0=np.ones(21)), r"x0: expected shape \(20,\)"),
        (dict(rtol=-1.0), "rtol"),
        (dict(rtol="small"), "rtol: expected a real number"),
        (dict(atol=np.nan), "atol"),
        (dict(maxiter=-1), "maxiter"),
        (dict(maxiter=2.5), "maxiter: expected an integer"),
        (dict(impl="fastest"), "fastest"),
        (dict(callback=3), "callback: 3 is not callable"),
        (dict(check_every=0), "check_every"),
        (dict(b=np.ones(20, dtype=np.complex128)), "complex128 cannot be converted"),
    ]
    for kwargs, match in cases:
        args = dict(A=a, b=b, backend="cpu")
        args.update(kwargs)
        with pytest.raises(ValueError, match=match):
            linalg.cg(args.pop("A"), args.pop("b"), **args)
    op = spmvkit.Operator(a, backend="cpu")
    with pytest.raises(ValueError, match="backend"):
        linalg.cg(op, b, backend="cuda")


@pytest.mark.parametrize("precond", [None, "jacobi", "block_jacobi", "block_jacobi:4"])
@pytest.mark.parametrize("method", ["cg", "bicgstab"])
def test_preconditioned_solves_reach_the_true_residual(method, precond):
    # Block structure (kron with 4x4 blocks) so block_jacobi finds its block size; made SPD.
    base = spd_matrix(60, seed=12)
    a = scipy.sparse.kron(base, np.eye(4) + 0.1 * np.ones((4, 4))).tocsr()
    a = (a + a.T) * 0.5
    b = np.random.default_rng(5).uniform(-1, 1, a.shape[0])
    solve = linalg.cg if method == "cg" else linalg.bicgstab
    x, info = solve(a, b, rtol=1e-10, maxiter=2000, precond=precond, backend="cpu")
    assert info == 0
    assert rel_err(a @ x, b) < 1e-9  # the true residual, recomputed here in float64
    r = solve(a, b, rtol=1e-10, maxiter=2000, precond=precond, backend="cpu", full_result=True)
    plain = solve(a, b, rtol=1e-10, maxiter=2000, backend="cpu", full_result=True)
    assert r.iterations <= 1.5 * plain.iterations + 2  # BiCGSTAB's counts wander a little


# --- M: a preconditioner in Python (SciPy's convention, an approximation of inv(A)) ---------

def scaled_stencil():
    """An ill-conditioned SPD matrix: a 2-D Laplacian scaled by D = diag(10^U(-1, 1)) on both
    sides (D S D); the inverse diagonal (Jacobi) undoes the scaling."""
    s = spmvkit.generate("stencil5_16")
    d = scipy.sparse.diags(10.0 ** np.random.default_rng(20).uniform(-1, 1, s.shape[0]))
    return (d @ s @ d).tocsr()


class DiagonalInverse:
    """Anything with .shape and .matvec is taken (scipy.sparse.linalg.aslinearoperator)."""
    def __init__(self, a):
        self.inv = 1.0 / a.diagonal()
        self.shape = a.shape
        self.dtype = self.inv.dtype

    def matvec(self, x):
        return self.inv * x


def m_of_kind(kind, a):
    inv = 1.0 / a.diagonal()
    if kind == "sparse":
        return scipy.sparse.diags(inv).tocsr()
    if kind == "dense":
        return np.diag(inv)
    if kind == "linear_operator":
        return scipy.sparse.linalg.LinearOperator(a.shape, matvec=lambda x: inv * x.ravel(),
                                                  dtype=inv.dtype)
    assert kind == "duck"
    return DiagonalInverse(a)


def true_rel_residual(a, x, b):
    """||b - A x|| / ||b|| in float64, for the matrix and b as solved (their dtype)."""
    a, x, b = (v.astype(np.float64) for v in (a, x, b))
    return np.linalg.norm(b - a @ x) / np.linalg.norm(b)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("kind", ["sparse", "linear_operator", "dense", "duck"])
@pytest.mark.parametrize("impl", ["merged", "reference"])
@pytest.mark.parametrize("method", ["cg", "bicgstab"])
def test_python_m_reaches_the_true_residual(method, impl, kind, dtype):
    a = scaled_stencil().astype(dtype)
    b = np.random.default_rng(21).uniform(-1, 1, a.shape[0]).astype(dtype)
    rtol = 1e-4 if dtype == np.float32 else 1e-10
    solve = linalg.cg if method == "cg" else linalg.bicgstab
    r = solve(a, b, rtol=rtol, maxiter=2000, M=m_of_kind(kind, a), impl=impl, backend="cpu",
              full_result=True)
    assert r.info == 0 and r.converged and r.x.dtype == dtype
    assert not r.cuda_graph
    # The recursive residual reached rtol; the true one (the library accepts up to 10x rtol,
    # for rounding) recomputed here in float64.
    assert true_rel_residual(a, r.x, b) <= (10 if dtype == np.float32 else 2) * rtol


@pytest.mark.parametrize("impl", ["merged", "reference"])
@pytest.mark.parametrize("method", ["cg", "bicgstab"])
def test_python_m_reduces_iterations(method, impl):
    a = scaled_stencil()
    b = np.random.default_rng(22).uniform(-1, 1, a.shape[0])
    solve = linalg.cg if method == "cg" else linalg.bicgstab
    args = dict(rtol=1e-8, maxiter=5000, impl=impl, backend="cpu", full_result=True)
    plain = solve(a, b, **args)
    calls = []
    inv = 1.0 / a.diagonal()

    def apply_m(x):
        calls.append(1)
        return inv * x
    m = scipy.sparse.linalg.LinearOperator(a.shape, matvec=apply_m, dtype=np.float64)
    r = solve(a, b, M=m, **args)
    jacobi = solve(a, b, precond="jacobi", **args)  # the same M, the library's own
    assert plain.converged and r.converged and jacobi.converged
    assert r.iterations < 0.25 * plain.iterations
    assert abs(r.iterations - jacobi.iterations) <= 2
    # One apply per iteration (CG: z = M r, plus M r0) or two (BiCGSTAB: M p and M s).
    per_iter = 1 if method == "cg" else 2
    assert per_iter * r.iterations <= len(calls) <= per_iter * r.iterations + 2 * (r.restarts + 1)
    assert true_rel_residual(a, r.x, b) <= 2e-8


@pytest.mark.parametrize("impl", ["merged", "reference"])
def test_python_m_incomplete_lu_on_a_hard_nonsymmetric_matrix(impl):
    # SciPy's usual preconditioner: M = LinearOperator(shape, spilu(A).solve). Without it
    # BiCGSTAB does not converge on west0479 in 5000 iterations.
    a = spmvkit.read_matrix_market(DATA / "west0479.mtx")
    ilu = scipy.sparse.linalg.spilu(a.tocsc(), drop_tol=1e-4, fill_factor=10)
    m = scipy.sparse.linalg.LinearOperator(a.shape, ilu.solve)
    b = np.ones(a.shape[0])
    args = dict(rtol=1e-10, maxiter=5000, impl=impl, backend="cpu", full_result=True)
    plain = linalg.bicgstab(a, b, **args)
    r = linalg.bicgstab(a, b, M=m, **args)
    assert r.info == 0 and r.iterations < 500
    assert plain.info != 0 or plain.iterations > 10 * r.iterations
    assert true_rel_residual(a, r.x, b) <= 10 * 1e-10  # the library's acceptance of the gap


def test_python_m_with_an_operator_and_a_callback():
    a = scaled_stencil()
    op = spmvkit.Operator(a, format="csr_vector", backend="cpu")
    b = np.ones(a.shape[0])
    seen = []
    x, info = linalg.cg(op, b, rtol=1e-10, M=scipy.sparse.diags(1.0 / a.diagonal()),
                        callback=lambda k, res: seen.append(k))
    assert info == 0 and seen and true_rel_residual(a, x, b) <= 2e-10


def test_python_m_sees_read_only_vectors_of_the_solver():
    a = scaled_stencil()
    seen = []

    def apply_m(x):
        seen.append((x.dtype, x.shape, x.flags.writeable))
        return x / a.diagonal()
    m = scipy.sparse.linalg.LinearOperator(a.shape, matvec=apply_m, dtype=np.float32)
    x, info = linalg.bicgstab(a.astype(np.float32), np.ones(a.shape[0], dtype=np.float32), M=m,
                              rtol=1e-4, backend="cpu")
    assert info == 0
    assert seen and set(seen) == {(np.dtype(np.float32), (a.shape[0],), False)}

    def overwrite(x):
        x[:] = 0  # the solver's vector: refused
        return x
    m = scipy.sparse.linalg.LinearOperator(a.shape, matvec=overwrite, dtype=np.float64)
    with pytest.raises(ValueError, match="read-only"):
        linalg.cg(a, np.ones(a.shape[0]), M=m, backend="cpu")


def test_python_m_apply_honours_alpha_and_beta():
    # The extension calls apply(x, y, z, alpha, beta) for z = alpha*M*x + beta*y (the
    # solvers pass alpha=1, beta=0; Operator::apply's contract allows more), y possibly z.
    m = scipy.sparse.diags(np.arange(1.0, 6.0))
    apply, device = linalg._m_apply(m, 5, np.dtype(np.float64), "cpu")
    assert not device
    x = np.ones(5)
    y = np.full(5, 10.0)
    z = np.empty(5)
    apply(x, y, z, 2.0, 0.5)
    np.testing.assert_array_equal(z, 2.0 * np.arange(1.0, 6.0) + 5.0)
    apply(x, y, y, 1.0, -1.0)  # in place: y = M x - y
    np.testing.assert_array_equal(y, np.arange(1.0, 6.0) - 10.0)
    apply(x, None, z, 3.0, 0.0)
    np.testing.assert_array_equal(z, 3.0 * np.arange(1.0, 6.0))


class Stop(Exception):
    pass


@pytest.mark.parametrize("impl", ["merged", "reference"])
@pytest.mark.parametrize("method", ["cg", "bicgstab"])
def test_python_m_exception_propagates(method, impl):
    a = scaled_stencil()
    b = np.ones(a.shape[0])
    solve = linalg.cg if method == "cg" else linalg.bicgstab
    stop = Stop("from M")
    calls = []

    def apply_m(x):
        calls.append(1)
        if len(calls) == 5:
            raise stop
        return x / a.diagonal()
    m = scipy.sparse.linalg.LinearOperator(a.shape, matvec=apply_m, dtype=np.float64)
    with pytest.raises(Stop) as raised:
        solve(a, b, M=m, impl=impl, rtol=1e-10, backend="cpu")
    assert raised.value is stop and len(calls) == 5  # the same exception; no call after it
    # The module works on: the same operator solves again, with M and without.
    op = spmvkit.Operator(a, backend="cpu")
    x, info = solve(op, b, M=scipy.sparse.diags(1.0 / a.diagonal()), rtol=1e-10, impl=impl)
    assert info == 0 and true_rel_residual(a, x, b) <= 2e-10
    x, info = solve(op, b, rtol=1e-6, maxiter=5000, impl=impl)
    assert info == 0


def test_python_m_bad_arguments():
    a = spd_matrix(20, seed=10)
    b = np.ones(20)
    good = scipy.sparse.identity(20)
    cases = [
        (dict(M=scipy.sparse.identity(21)), r"M: shape \(21, 21\), expected \(20, 20\)"),
        (dict(M=np.ones((20, 19))), r"M: shape \(20, 19\)"),
        (dict(M=scipy.sparse.linalg.LinearOperator((19, 19), matvec=lambda x: x,
                                                   dtype=np.float64)), r"M: shape \(19, 19\)"),
        (dict(M="jacobi"), "M: expected a sparse matrix, a dense array or a LinearOperator"),
        (dict(M=lambda x: x), "M: expected a sparse matrix"),
        (dict(M=good, precond="jacobi"), "M and precond: give one"),
        (dict(M=good, cuda_graph=True), "cuda_graph: a Python M"),
        (dict(M=scipy.sparse.identity(20, dtype=np.complex128)), "complex"),
    ]
    for kwargs, match in cases:
        for solve in (linalg.cg, linalg.bicgstab):
            with pytest.raises(ValueError, match=match):
                solve(a, b, backend="cpu", **kwargs)
    # An M whose matvec returns the wrong length fails inside the solve, as a ValueError
    # (SciPy's LinearOperator checks the shape).
    short = scipy.sparse.linalg.LinearOperator((20, 20), matvec=lambda x: x[:10],
                                               dtype=np.float64)
    with pytest.raises(ValueError, match="reshape|shape"):
        linalg.cg(a, b, M=short, backend="cpu")
    x, info = linalg.cg(a, b, M=good, cuda_graph=False, backend="cpu")  # False is no conflict
    assert info == 0

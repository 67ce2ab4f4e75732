"""The CUDA backend with CuPy arrays (used in place: checked by pointer) and NumPy arrays
(copied), against scipy.sparse in float64. Skipped, saying why, without CuPy or a GPU."""
import numpy as np
import pytest
import scipy.sparse
import scipy.sparse.linalg

import spmvkit
from spmvkit import _arrays, linalg
from conftest import DATA, random_matrix, rel_err, spd_matrix, tolerance


def cuda_formats():
    return [name for name, f in spmvkit.formats().items() if f["cuda"]]


def host(a):
    return a.get() if hasattr(a, "get") else np.asarray(a)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("fmt", cuda_formats())
def test_every_cuda_format_with_cupy(cp, fmt, dtype):
    a = random_matrix(300, 300, density=0.03, seed=1)
    try:
        op = spmvkit.Operator(a, format=fmt, backend="cuda", dtype=dtype)
    except spmvkit.UnsupportedError as e:  # a refusal is a result; said so, never passed over
        pytest.skip(f"{fmt} refuses the matrix: {e}")
    xh = np.random.default_rng(2).uniform(-1, 1, 300)
    x = cp.asarray(xh, dtype=dtype)
    z = op @ x
    assert isinstance(z, cp.ndarray) and z.dtype == dtype
    assert rel_err(host(z), a @ xh) < tolerance(dtype) * 10
    zn = op @ xh.astype(dtype)  # NumPy in, NumPy out: copied to the device and back
    assert isinstance(zn, np.ndarray) and rel_err(zn, a @ xh) < tolerance(dtype) * 10


def test_zero_copy_by_pointer(cp):
    a = random_matrix(200, 150, seed=3)
    op = spmvkit.Operator(a, backend="cuda")
    x = cp.asarray(np.random.default_rng(4).uniform(-1, 1, 150))
    y = cp.asarray(np.random.default_rng(5).uniform(-1, 1, 200))
    # x is handed over as it is: the same object, hence the same device address.
    assert _arrays.as_input(x, "x", op.dtype, 150, True) is x
    out = cp.empty(200)
    ptr = out.data.ptr
    ret = op.apply(x, out=out)
    assert ret is out and ret.data.ptr == ptr
    expected = 2.0 * (a @ host(x)) + 0.5 * host(y)
    yy = y.copy()
    ret = op.apply(x, y=yy, alpha=2.0, beta=0.5, out=yy)  # in place: y's memory is read
    assert ret.data.ptr == yy.data.ptr
    assert rel_err(host(yy), expected) < 1e-12


def test_streams(cp):
    a = spmvkit.generate("stencil27_12")
    op = spmvkit.Operator(a, backend="cuda")
    xh = np.random.default_rng(6).uniform(-1, 1, a.shape[1])
    s = cp.cuda.Stream(non_blocking=True)
    with s:  # CuPy's current stream
        x = cp.asarray(xh) * 3.0  # queued on s; the SpMV must wait for it
        z = op @ x
        w = z * 2.0  # queued on s after the SpMV
    s.synchronize()
    assert rel_err(host(w), 6.0 * (a @ xh)) < 1e-12
    s2 = cp.cuda.Stream(non_blocking=True)
    with s2:
        x2 = cp.asarray(xh)
    s2.synchronize()
    out = cp.zeros(a.shape[0])
    op.apply(x2, out=out, stream=s2)  # an explicit stream
    s2.synchronize()
    assert rel_err(host(out), a @ xh) < 1e-12
    op.apply(x2, out=out, stream=s2.ptr)  # or its handle
    s2.synchronize()
    assert rel_err(host(out), a @ xh) < 1e-12


@pytest.mark.parametrize("shape", [(0, 0), (0, 4), (4, 0), (1, 1), (5, 400), (400, 5)])
def test_shapes_with_cupy(cp, shape):
    a = random_matrix(*shape, density=0.3, seed=7)
    if shape == (1, 1):
        a = scipy.sparse.csr_matrix(np.array([[-3.0]]))
    op = spmvkit.Operator(a, backend="cuda")
    xh = np.linspace(-1, 1, shape[1])
    z = op @ cp.asarray(xh)
    assert z.shape == (shape[0],)
    np.testing.assert_allclose(host(z), a @ xh, rtol=1e-12, atol=1e-12)


def test_conversions_and_errors_with_cupy(cp):
    a = random_matrix(50, 40, seed=8)
    op = spmvkit.Operator(a, backend="cuda", dtype=np.float32)
    xh = np.random.default_rng(9).uniform(-1, 1, (40, 3))
    x = cp.asarray(xh)[:, 1]  # float64 and strided: converted
    z = op @ x
    assert z.dtype == np.float32 and rel_err(host(z), a @ xh[:, 1]) < 1e-5
    zz = op @ cp.asarray(xh)  # a matrix: column by column
    assert zz.shape == (50, 3) and rel_err(host(zz), a @ xh) < 1e-5
    with pytest.raises(ValueError, match="out: dtype float64"):
        op.apply(cp.ones(40, dtype=np.float32), out=cp.empty(50))
    with pytest.raises(ValueError, match="host array among device"):
        op.apply(cp.ones(40, dtype=np.float32), y=np.ones(50, dtype=np.float32), beta=1.0)
    with pytest.raises(ValueError, match="NumPy array like x"):
        op.apply(np.ones(40, dtype=np.float32), out=cp.empty(50, dtype=np.float32))
    with pytest.raises(ValueError, match="overlaps x"):
        buf = cp.ones(50, dtype=np.float32)
        op.apply(buf[:40], out=buf)
    with pytest.raises(ValueError, match="stream"):
        op.apply(cp.ones(40, dtype=np.float32), stream="fast")
    cpu = spmvkit.Operator(a, backend="cpu")
    with pytest.raises(ValueError, match="cpu backend"):
        cpu @ cp.ones(40)


def test_cupyx_sparse_input(cp):
    import cupyx.scipy.sparse
    a = random_matrix(64, 64, seed=10)
    op = spmvkit.Operator(cupyx.scipy.sparse.csr_matrix(a), backend="cuda")
    assert rel_err(host(op @ cp.ones(64)), a @ np.ones(64)) < 1e-12


@pytest.mark.parametrize("impl", ["merged", "reference"])
@pytest.mark.parametrize("solver", [linalg.cg, linalg.bicgstab])
def test_solve_with_cupy(cp, solver, impl):
    a = spd_matrix(500, seed=11)
    bh = np.random.default_rng(12).uniform(-1, 1, 500)
    ref = scipy.sparse.linalg.spsolve(a.tocsc(), bh)
    r = solver(a, cp.asarray(bh), rtol=1e-10, impl=impl, backend="cuda", full_result=True)
    assert r.info == 0 and r.backend == "cuda"
    assert isinstance(r.x, cp.ndarray) and rel_err(host(r.x), ref) < 1e-8
    x, info = solver(a, bh, rtol=1e-10, impl=impl, backend="cuda")  # NumPy in, NumPy out
    assert info == 0 and isinstance(x, np.ndarray) and rel_err(x, ref) < 1e-8


def test_solve_bundled_matrix_with_cupy(cp):
    a = spmvkit.read_matrix_market(DATA / "494_bus.mtx")
    op = spmvkit.Operator(a, backend="cuda")
    b = cp.ones(a.shape[0])
    x0 = cp.zeros(a.shape[0])
    seen = []
    x, info = linalg.cg(op, b, x0=x0, rtol=1e-10, maxiter=5000,
                        callback=lambda k, res: seen.append(k))
    assert info == 0 and seen and not x0.any()
    assert rel_err(a @ host(x), np.ones(a.shape[0])) < 1e-9


def test_solve_float32_with_cupy(cp):
    a = spd_matrix(300, seed=13)
    op = spmvkit.Operator(a, backend="cuda", dtype=np.float32)
    x, info = linalg.bicgstab(op, cp.ones(300, dtype=np.float32), rtol=1e-5)
    assert info == 0 and x.dtype == np.float32
    assert rel_err(host(x), scipy.sparse.linalg.spsolve(a.tocsc(), np.ones(300))) < 1e-4


# --- M: a preconditioner in Python on the cuda backend -----------------------------------

def scaled_stencil():
    """Ill-conditioned SPD: a 2-D Laplacian scaled by D = diag(10^U(-1, 1)) on both sides."""
    s = spmvkit.generate("stencil5_16")
    d = scipy.sparse.diags(10.0 ** np.random.default_rng(20).uniform(-1, 1, s.shape[0]))
    return (d @ s @ d).tocsr()


def device_m(cp, kind, a):
    import cupyx.scipy.sparse
    import cupyx.scipy.sparse.linalg
    inv = cp.asarray(1.0 / a.diagonal())
    if kind == "cupyx_sparse":
        return cupyx.scipy.sparse.diags(inv).tocsr()
    if kind == "cupy_dense":
        return cp.diag(inv)
    if kind == "cupyx_linear_operator":
        return cupyx.scipy.sparse.linalg.LinearOperator(a.shape, matvec=lambda x: inv * x,
                                                        dtype=inv.dtype)
    assert kind == "scipy_sparse"  # a host M on the cuda backend: applied to host copies
    return scipy.sparse.diags(1.0 / a.diagonal())


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("kind", ["cupyx_sparse", "cupy_dense", "cupyx_linear_operator",
                                  "scipy_sparse"])
@pytest.mark.parametrize("impl", ["merged", "reference"])
@pytest.mark.parametrize("solver", [linalg.cg, linalg.bicgstab])
def test_python_m_with_cupy(cp, solver, impl, kind, dtype):
    a = scaled_stencil().astype(dtype)
    bh = np.random.default_rng(21).uniform(-1, 1, a.shape[0]).astype(dtype)
    rtol = 1e-4 if dtype == np.float32 else 1e-10
    args = dict(rtol=rtol, maxiter=3000, impl=impl, backend="cuda", full_result=True)
    r = solver(a, cp.asarray(bh), M=device_m(cp, kind, a), **args)
    assert r.info == 0 and r.converged and not r.cuda_graph
    assert isinstance(r.x, cp.ndarray) and r.x.dtype == dtype
    ad = a.astype(np.float64)
    true = np.linalg.norm(bh - ad @ host(r.x).astype(np.float64)) / np.linalg.norm(bh)
    assert true <= (10 if dtype == np.float32 else 2) * rtol
    if dtype == np.float64:
        plain = solver(a, cp.asarray(bh), **args)
        assert plain.converged and r.iterations < 0.25 * plain.iterations
    x, info = solver(a, bh, M=device_m(cp, kind, a), rtol=rtol, maxiter=3000, impl=impl,
                     backend="cuda")  # NumPy b: the solve on the device, M as it comes
    assert info == 0 and isinstance(x, np.ndarray)


def test_python_m_with_cupy_on_a_stream(cp):
    import cupyx.scipy.sparse.linalg
    a = scaled_stencil()
    inv = cp.asarray(1.0 / a.diagonal())
    streams = []

    def apply_m(x):
        streams.append(cp.cuda.get_current_stream().ptr)
        return inv * x  # queued on the current stream; spmvkit must wait for it
    m = cupyx.scipy.sparse.linalg.LinearOperator(a.shape, matvec=apply_m, dtype=np.float64)
    s = cp.cuda.Stream(non_blocking=True)
    with s:
        b = cp.asarray(np.ones(a.shape[0])) * 2.0
        r = linalg.cg(a, b, M=m, rtol=1e-10, backend="cuda", full_result=True)
        w = r.x * 1.0
    s.synchronize()
    assert r.info == 0 and set(streams) == {s.ptr}
    # z0 = M r0, one apply per iteration, and at most one iteration queued past convergence
    # (check_every is 1 with M) per restart.
    assert r.iterations + 1 <= len(streams) <= r.iterations + 2 * (r.restarts + 1)
    true = np.linalg.norm(2.0 - a @ host(w)) / np.linalg.norm(np.full(a.shape[0], 2.0))
    assert true <= 2e-10


@pytest.mark.parametrize("impl", ["merged", "reference"])
def test_python_m_exception_with_cupy(cp, impl):
    import cupyx.scipy.sparse.linalg
    a = scaled_stencil()
    inv = cp.asarray(1.0 / a.diagonal())
    stop = KeyError("stop in M")
    calls = []

    def apply_m(x):
        calls.append(1)
        if len(calls) == 4:
            raise stop
        return inv * x
    m = cupyx.scipy.sparse.linalg.LinearOperator(a.shape, matvec=apply_m, dtype=np.float64)
    b = cp.ones(a.shape[0])
    with pytest.raises(KeyError) as raised:
        linalg.bicgstab(a, b, M=m, impl=impl, rtol=1e-10, backend="cuda")
    assert raised.value is stop and len(calls) == 4
    x, info = linalg.bicgstab(a, b, M=device_m(cp, "cupyx_sparse", a), impl=impl, rtol=1e-10,
                              backend="cuda")  # the module and the GPU work on
    assert info == 0
    assert np.linalg.norm(1.0 - a @ host(x)) / np.sqrt(a.shape[0]) <= 2e-10


def test_python_m_errors_with_cupy(cp):
    a = scaled_stencil()
    with pytest.raises(ValueError, match="cpu backend"):
        linalg.cg(a, np.ones(a.shape[0]), M=device_m(cp, "cupyx_sparse", a), backend="cpu")
    with pytest.raises(ValueError, match=r"M: shape \(257, 257\)"):
        linalg.cg(a, cp.ones(a.shape[0]), M=cp.eye(257), backend="cuda")
    with pytest.raises(ValueError, match="cuda_graph"):
        linalg.cg(a, cp.ones(a.shape[0]), M=cp.eye(256), cuda_graph=True, backend="cuda")

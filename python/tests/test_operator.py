"""spmvkit.Operator on the CPU backend against scipy.sparse in float64."""
import numpy as np
import pytest
import scipy.sparse
import scipy.sparse.linalg

import spmvkit
from conftest import DATA, cpu_formats, random_matrix, rel_err, tolerance


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("fmt", cpu_formats())
def test_every_cpu_format_against_scipy(fmt, dtype):
    a = random_matrix(150, 150, density=0.05, seed=1)
    op = spmvkit.Operator(a, format=fmt, backend="cpu", dtype=dtype)
    assert op.info["format"] == fmt and op.dtype == dtype
    x = np.random.default_rng(2).uniform(-1, 1, 150)
    z = op @ x
    assert z.dtype == dtype and z.shape == (150,)
    assert rel_err(z, a @ x) < tolerance(dtype)


@pytest.mark.parametrize("shape", [(0, 0), (0, 5), (5, 0), (1, 1), (7, 300), (300, 7),
                                   (40, 40)])
def test_shapes(shape):
    a = random_matrix(*shape, density=0.2, seed=3)
    if shape == (1, 1):
        a = scipy.sparse.csr_matrix(np.array([[2.5]]))
    op = spmvkit.Operator(a, backend="cpu")
    assert op.shape == shape
    x = np.arange(shape[1], dtype=np.float64) - 2.0
    y = np.linspace(-1, 1, shape[0])
    z = op.apply(x, y=y, alpha=2.0, beta=-0.5)
    assert z.shape == (shape[0],)
    np.testing.assert_allclose(z, 2.0 * (a @ x) - 0.5 * y, rtol=1e-12, atol=1e-12)


def test_empty_rows_and_a_long_row():
    a = scipy.sparse.lil_matrix((50, 60))
    a[3, :] = np.arange(1, 61)
    a[10, 5] = -1.0
    a = a.tocsr()
    x = np.random.default_rng(4).uniform(-1, 1, 60)
    for fmt in cpu_formats():
        try:
            op = spmvkit.Operator(a, format=fmt, backend="cpu")
        except spmvkit.UnsupportedError as e:
            # The refusal must say why; no format may refuse the plain CSR ones.
            assert not fmt.startswith("csr") and str(e)
            continue
        assert rel_err(op @ x, a @ x) < 1e-12, fmt


@pytest.mark.parametrize("kind", ["csr", "csc", "coo", "bsr", "lil", "dok", "dia"])
def test_every_scipy_format(kind):
    a = random_matrix(60, 45, density=0.1, seed=5)
    op = spmvkit.Operator(a.asformat(kind), backend="cpu")
    x = np.random.default_rng(6).uniform(-1, 1, 45)
    assert rel_err(op @ x, a @ x) < 1e-12


def test_coo_duplicates_are_summed():
    a = scipy.sparse.coo_matrix(([1.0, 2.0, 4.0], ([0, 0, 1], [1, 1, 0])), shape=(2, 2))
    op = spmvkit.Operator(a, backend="cpu")
    np.testing.assert_array_equal(op @ np.array([1.0, 10.0]), [30.0, 4.0])
    assert op.info["nnz"] == 2


def test_bsr_keeps_its_blocks():
    rng = np.random.default_rng(7)
    dense_blocks = rng.uniform(-1, 1, (12, 3, 3))
    dense_blocks[:, 0, 1] = 0.0  # zeros inside a block stay stored
    ind = rng.integers(0, 8, 12)
    ptr = np.array([0, 2, 4, 6, 8, 10, 12, 12, 12])
    a = scipy.sparse.bsr_matrix((dense_blocks, ind, ptr), shape=(24, 24))
    a.sum_duplicates()
    op = spmvkit.Operator(a, format="bsr", backend="cpu")
    assert op.info["nnz"] == a.nnz == 9 * a.indices.size
    assert "block_size=3" in op.info["details"]
    x = rng.uniform(-1, 1, 24)
    assert rel_err(op @ x, a @ x) < 1e-12
    # Given explicitly, the block size wins.
    op1 = spmvkit.Operator(a, format="bsr", backend="cpu", block_size=1)
    assert "block_size=1" in op1.info["details"]


def test_default_format_is_auto_when_registered():
    a = random_matrix(20, 20)
    op = spmvkit.Operator(a, backend="cpu")
    blocks = spmvkit.Operator(scipy.sparse.kron(a, np.ones((2, 2))).tobsr(blocksize=(2, 2)),
                              backend="cpu")
    if "auto" in spmvkit.formats():
        # The selector's operator keeps the name auto; its details name the format it chose.
        for o in (op, blocks):
            assert o.info["format"] == "auto" and o.info["details"].startswith("chosen=")
        assert rel_err(op @ np.ones(20), a @ np.ones(20)) < 1e-12
    else:
        assert op.info["format"] == "csr_balanced"
        assert blocks.info["format"] == "bsr" and "block_size=2" in blocks.info["details"]


def test_default_backend():
    op = spmvkit.Operator(random_matrix(5, 5))
    assert op.info["backend"] == ("cuda" if spmvkit.cuda_available() else "cpu")


def test_params_reach_the_format():
    a = random_matrix(64, 64, seed=8)
    op = spmvkit.Operator(a, format="sellp", backend="cpu", slice_size=8)
    assert "slice_size=8" in op.info["details"]
    assert rel_err(op @ np.ones(64), a @ np.ones(64)) < 1e-12


def test_integer_matrix_becomes_float64():
    a = scipy.sparse.csr_matrix(np.array([[1, 0, 2], [0, 3, 0]], dtype=np.int64))
    op = spmvkit.Operator(a, backend="cpu")
    assert op.dtype == np.float64
    np.testing.assert_array_equal(op @ np.array([1, 1, 1]), [3.0, 3.0])


def test_x_of_another_dtype_is_converted():
    a = random_matrix(30, 30, seed=9)
    op = spmvkit.Operator(a, backend="cpu", dtype=np.float32)
    for x in (np.arange(30), np.arange(30, dtype=np.float64), list(range(30))):
        z = op @ x
        assert z.dtype == np.float32
        assert rel_err(z, a @ np.arange(30.0)) < 1e-5


def test_non_contiguous_inputs():
    a = random_matrix(40, 25, seed=10)
    op = spmvkit.Operator(a, backend="cpu")
    big = np.random.default_rng(11).uniform(-1, 1, (25, 3))
    x = big[:, 1]  # strided
    assert not x.flags.c_contiguous
    ybig = np.random.default_rng(12).uniform(-1, 1, 80)
    y = ybig[::2]
    z = op.apply(x, y=y, beta=2.0)
    assert rel_err(z, a @ x + 2.0 * y) < 1e-12
    xf = np.asfortranarray(big)
    assert rel_err(op @ xf, a @ big) < 1e-12  # a matrix: column by column


def test_apply_out_and_y_alias():
    a = random_matrix(30, 20, seed=13)
    op = spmvkit.Operator(a, backend="cpu")
    x = np.random.default_rng(14).uniform(-1, 1, 20)
    y = np.random.default_rng(15).uniform(-1, 1, 30)
    expected = 3.0 * (a @ x) + 0.25 * y
    out = y.copy()
    ret = op.apply(x, y=out, alpha=3.0, beta=0.25, out=out)
    assert ret is out
    assert rel_err(out, expected) < 1e-12
    out2 = np.full(30, np.nan)  # beta = 0: neither y nor the old out is read
    op.apply(x, out=out2)
    assert rel_err(out2, a @ x) < 1e-12


def test_matvec_and_linear_operator():
    a = random_matrix(50, 50, density=0.1, seed=16) + scipy.sparse.identity(50) * 5
    op = spmvkit.Operator(a, backend="cpu")
    x = np.random.default_rng(17).uniform(-1, 1, 50)
    assert isinstance(op, scipy.sparse.linalg.LinearOperator)
    assert op.matvec(x).shape == (50,)
    assert op.matvec(x.reshape(-1, 1)).shape == (50, 1)
    assert rel_err(op.matvec(x), a @ x) < 1e-12
    assert rel_err(op.matmat(np.eye(50)[:, :3]), a.toarray()[:, :3]) < 1e-12
    # SciPy's own solver through the LinearOperator protocol.
    b = a @ x
    xs, info = scipy.sparse.linalg.gmres(op, b, atol=0.0, restart=50, maxiter=200)  # rtol 1e-5
    assert info == 0 and rel_err(a @ xs, b) < 1e-5 and rel_err(xs, x) < 1e-3
    comp = op * 2.0  # LinearOperator algebra still works
    assert rel_err(comp.matvec(x), 2 * (a @ x)) < 1e-12
    with pytest.raises(NotImplementedError):
        op.rmatvec(x)


@pytest.mark.parametrize("name", ["494_bus.mtx", "bcsstk13.mtx.gz", "cage5.mtx", "karate.mtx",
                                  "west0479.mtx", "Franz6_id1959_aug.mtx.gz"])
def test_bundled_matrices(name):
    import scipy.io
    a = spmvkit.read_matrix_market(DATA / name)
    ref = scipy.io.mmread(str(DATA / name)).tocsr().astype(np.float64)
    assert a.shape == ref.shape and abs(a - ref).max() == 0
    x = np.random.default_rng(18).uniform(-1, 1, a.shape[1])
    for dtype in (np.float32, np.float64):
        op = spmvkit.Operator(a, backend="cpu", dtype=dtype)
        assert rel_err(op @ x, ref @ x) < tolerance(dtype) * 10

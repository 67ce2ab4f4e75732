"""Every bad argument gives a clear error naming the problem: ValueError for bad input
(UnsupportedError is one), NotImplementedError for what spmvkit does not offer yet."""
import numpy as np
import pytest
import scipy.sparse

import spmvkit
from conftest import DATA, random_matrix


@pytest.fixture(scope="module")
def op():
    return spmvkit.Operator(random_matrix(10, 8, seed=1), backend="cpu")


@pytest.mark.parametrize("A, kwargs, match", [
    (np.eye(3), {}, "scipy.sparse matrix, got ndarray"),
    ([[1, 0], [0, 1]], {}, "scipy.sparse matrix, got list"),
    (scipy.sparse.identity(3, dtype=np.complex128), {}, "complex128 is not supported"),
    (scipy.sparse.identity(3), {"dtype": np.float16}, "float16 is not supported"),
    (scipy.sparse.identity(3), {"dtype": "nonsense"}, "not a dtype"),
    (scipy.sparse.identity(3), {"dtype": np.complex64}, "complex64 is not supported"),
    (scipy.sparse.identity(3), {"format": "no_such_format"}, "no_such_format"),
    (scipy.sparse.identity(3), {"format": 3}, "format: expected a format name"),
    (scipy.sparse.identity(3), {"backend": "tpu"}, "backend: 'tpu'"),
    (scipy.sparse.identity(3), {"format": "sellp", "slice_size": 0}, "slice_size"),
    (scipy.sparse.identity(3), {"format": "sellp", "no_such_param": 1}, "no_such_param"),
    (scipy.sparse.identity(3), {"format": "sellp", "slice_size": [1]}, "not a number"),
    (scipy.sparse.csr_matrix(([np.nan], ([0], [0])), shape=(2, 2)), {}, "finite|NaN|nan"),
    (scipy.sparse.csr_matrix(([np.inf], ([0], [0])), shape=(2, 2)), {}, "finite|Inf|inf"),
])
def test_bad_operator_arguments(A, kwargs, match):
    kwargs.setdefault("backend", "cpu")
    with pytest.raises(ValueError, match=match):
        spmvkit.Operator(A, **kwargs)


def test_cuda_backend_without_gpu_is_a_clear_error():
    if spmvkit.cuda_available():
        pytest.skip("a GPU is present")
    with pytest.raises(spmvkit.UnsupportedError) as e:
        spmvkit.Operator(scipy.sparse.identity(3), backend="cuda")
    assert isinstance(e.value, ValueError) and "cuda" in str(e.value).lower()


def test_error_classes():
    assert issubclass(spmvkit.CudaError, RuntimeError)
    assert issubclass(spmvkit.UnsupportedError, ValueError)


@pytest.mark.parametrize("call, match", [
    (lambda op: op.apply(np.ones(7)), r"x: expected shape \(8,\), got \(7,\)"),
    (lambda op: op.apply(np.ones((8, 2))), r"x: expected shape \(8,\)"),
    (lambda op: op.apply(np.ones(8, dtype=np.complex128)), "complex128 cannot be converted"),
    (lambda op: op.apply(np.array(["a"] * 8)), "cannot be converted"),
    (lambda op: op.apply(np.ones(8), beta=1.0), "y: required when beta != 0"),
    (lambda op: op.apply(np.ones(8), y=np.ones(9), beta=1.0), r"y: expected shape \(10,\)"),
    (lambda op: op.apply(np.ones(8), alpha="2"), "alpha: expected a real number"),
    (lambda op: op.apply(np.ones(8), beta=1j), "beta: expected a real number"),
    (lambda op: op.apply(np.ones(8), out=np.ones(10, dtype=np.float32)), "out: dtype float32"),
    (lambda op: op.apply(np.ones(8), out=np.ones(11)), r"out: expected shape \(10,\)"),
    (lambda op: op.apply(np.ones(8), out=np.ones(20)[::2]), "out: not contiguous"),
    (lambda op: op.apply(np.ones(8), out=[0.0] * 10), "out: must be a NumPy array"),
    (lambda op: op.apply(np.ones(8), out=_read_only(10)), "out: read-only"),
    (lambda op: op.apply(np.ones(8), stream=0), "stream: only for device"),
])
def test_bad_apply_arguments(op, call, match):
    with pytest.raises(ValueError, match=match):
        call(op)


def _read_only(n):
    a = np.zeros(n)
    a.flags.writeable = False
    return a


def test_out_aliasing_x_is_refused():
    a = random_matrix(8, 8, seed=2)
    op = spmvkit.Operator(a, backend="cpu")
    x = np.ones(8)
    with pytest.raises(ValueError, match="overlaps x"):
        op.apply(x, out=x)
    buf = np.ones(16)
    with pytest.raises(ValueError, match="overlaps y"):
        op.apply(x, y=buf[:8], beta=1.0, out=buf[4:12])


def test_matrix_market_errors(tmp_path):
    with pytest.raises(ValueError, match="no_such.mtx"):
        spmvkit.read_matrix_market(tmp_path / "no_such.mtx")
    bad = tmp_path / "bad.mtx"
    bad.write_text("%%MatrixMarket matrix coordinate real general\n2 2 1\n3 1 1.0\n")
    with pytest.raises(ValueError, match=r"bad.mtx:3"):
        spmvkit.read_matrix_market(bad)
    with pytest.raises(ValueError, match="complex"):
        spmvkit.read_matrix_market(DATA / "unsupported" / "w156.mtx")


def test_generate_errors():
    with pytest.raises(ValueError, match="not a generator name"):
        spmvkit.generate("no_such_matrix")
    with pytest.raises(ValueError):
        spmvkit.generate("stencil5_0")
    with pytest.raises(ValueError, match="generator name"):
        spmvkit.generate(5)


def test_bench_errors():
    a = random_matrix(10, 10)
    with pytest.raises(ValueError, match="no_such_format"):
        spmvkit.bench(a, formats=["no_such_format"], backend="cpu")
    with pytest.raises(ValueError, match="dtype"):
        spmvkit.bench(a, dtype=np.int32, backend="cpu")
    with pytest.raises(ValueError, match="reps"):
        spmvkit.bench(a, reps="5", backend="cpu")
    with pytest.raises(ValueError, match="reps"):
        spmvkit.bench(a, reps=0, backend="cpu")
    with pytest.raises(ValueError, match="params"):
        spmvkit.bench(a, params=3, backend="cpu")

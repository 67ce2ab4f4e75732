"""Matrix Market, generators, the registry listing and the benchmark from Python."""
import json

import numpy as np
import pytest
import scipy.sparse

import spmvkit
from conftest import random_matrix


def test_round_trip(tmp_path):
    a = random_matrix(30, 17, seed=1)
    for name in ("a.mtx", "a.mtx.gz"):
        spmvkit.write_matrix_market(tmp_path / name, a, comment="from a test")
        b = spmvkit.read_matrix_market(tmp_path / name)
        assert isinstance(b, scipy.sparse.csr_matrix) and b.dtype == np.float64
        assert b.shape == a.shape and abs(a - b).max() == 0


def test_generate():
    a = spmvkit.generate("stencil5_7")
    assert isinstance(a, scipy.sparse.csr_matrix) and a.shape == (49, 49)
    assert a.nnz == 5 * 49 - 4 * 7
    d = a.diagonal()
    assert np.all(d == 4.0) and abs(a - a.T).max() == 0
    assert np.allclose(a @ np.ones(49), np.asarray(a.sum(axis=1)).ravel())
    r = spmvkit.generate("reservoir_bs3_3")
    assert r.shape == (81, 81)


def test_formats_listing():
    f = spmvkit.formats()
    assert "csr_scalar" in f and "bsr" in f
    bsr = f["bsr"]
    assert bsr["cpu"] and bsr["cuda"] and not bsr["peer"]
    assert any(p["name"] == "block_size" for p in bsr["params"])
    assert f["cusparse_csr_alg1"]["peer"] and not f["cusparse_csr_alg1"]["cpu"]
    for p in f["sellp"]["params"]:
        assert set(p) == {"name", "type", "default", "allowed", "cuda_only", "meaning"}


def test_bench_records_have_the_json_fields():
    a = random_matrix(200, 200, density=0.05, seed=2)
    report = spmvkit.bench(a, formats=["csr_scalar", "sellp"], backend="cpu", reps=3, warmup=1,
                           params={"sellp": {"slice_size": 8}}, name="rand200",
                           full_report=True)
    assert report["backend"] == "cpu" and report["ceiling_gbs"] > 0
    recs = report["results"]
    mine = [r for r in recs if not r["peer"]]
    assert [r["format"] for r in mine] == ["csr_scalar", "sellp"]
    assert "slice_size=8" in mine[1]["details"]
    for r in recs:
        assert r["matrix"] == "rand200" and r["status"] == "ok", r
        assert r["rows"] == 200 and r["nnz"] == a.nnz
        assert r["spmv_ms"] > 0 and r["max_rel_err"] < 1e-12
        for key in ("gflops", "gbs", "pct_ceiling", "setup_ms", "details", "precision"):
            assert key in r
    json.dumps(recs)  # plain data
    by_name = spmvkit.bench("stencil5_20", formats="csr_vector", backend="cpu", reps=2,
                            warmup=0, dtype=np.float32)
    assert [r["matrix"] for r in by_name] == ["stencil5_20"] * len(by_name)
    assert by_name[0]["precision"] in ("f32", "float32", "single")

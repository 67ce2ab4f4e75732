#!/usr/bin/env python3
"""Solve a system built with SciPy using spmvkit: a 2D Poisson problem (5-point Laplacian on
an n x n grid) assembled with scipy.sparse, solved with CG on the GPU when one is present
(else the CPU), and checked against SciPy's direct solver.

    PYTHONPATH=build/python python3 examples/python_solve.py [n] [--backend cpu|cuda]
"""
import argparse
import sys
import time

import numpy as np
import scipy.sparse
import scipy.sparse.linalg

import spmvkit


def poisson_2d(n):
    t = scipy.sparse.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(n, n))
    i = scipy.sparse.identity(n)
    return (scipy.sparse.kron(i, t) + scipy.sparse.kron(t, i)).tocsr()


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("n", type=int, nargs="?", default=100, help="grid size (n^2 unknowns)")
    p.add_argument("--backend", choices=["cpu", "cuda"], default=spmvkit.default_backend())
    args = p.parse_args()

    a = poisson_2d(args.n)
    b = a @ np.ones(a.shape[0])  # the exact solution is all ones
    op = spmvkit.Operator(a, backend=args.backend)
    print(op)
    start = time.perf_counter()
    r = spmvkit.linalg.cg(op, b, rtol=1e-10, full_result=True)
    seconds = time.perf_counter() - start
    print(f"cg: {r.status} after {r.iterations} iterations in {seconds:.3f} s "
          f"({r.iter_ms:.3f} ms per iteration), true relative residual "
          f"{r.true_rel_residual:.2e}")

    x_direct = scipy.sparse.linalg.spsolve(a.tocsc(), b)
    diff = np.linalg.norm(r.x - x_direct) / np.linalg.norm(x_direct)
    print(f"relative difference to scipy.sparse.linalg.spsolve: {diff:.2e}")
    return 0 if r.info == 0 and diff < 1e-6 else 1


if __name__ == "__main__":
    sys.exit(main())

#include <cstdio>
#include <exception>

#include "spmvkit/error.hpp"
#include "tools/commands.hpp"

int main(int argc, char** argv) {
  CLI::App app{
      "spmvkit: fast sparse matrix-vector products on NVIDIA GPUs and CPUs.\n"
      "A MATRIX is a Matrix Market file (.mtx, .mtx.gz), a matrix name from $SPMVKIT_MATRICES\n"
      "(else ../shared/matrices) or tests/data, or a generator name: stencil5_N stencil9_N\n"
      "stencil7_N stencil27_N reservoir_bsB_N[_K] convdiff2d_N[_PE] convdiff3d_N[_PE]\n"
      "powerlaw_ROWS[_MAXROW] "
      "banded_ROWS_HALFBAND[_PERROW] random_ROWS_COLS_PERROW expand_bsB_MATRIX",
      "spmvkit"};
  app.require_subcommand(1);
  spmvkit::cli::add_info(app);
  spmvkit::cli::add_generate(app);
  spmvkit::cli::add_convert(app);
  spmvkit::cli::add_bench(app);
  spmvkit::cli::add_formats(app);
  spmvkit::cli::add_tune(app);
  spmvkit::cli::add_solve(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const spmvkit::Error& e) {
    std::fprintf(stderr, "spmvkit: error: %s\n", e.what());
    return 1;
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "spmvkit: error: out of host memory\n");
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "spmvkit: error: %s\n", e.what());
    return 1;
  }
  return 0;
}

#include "formats/cusparse/cusparse.hpp"

#include "spmvkit/error.hpp"

namespace spmvkit {

namespace {

template <class V>
std::unique_ptr<Operator<V>> build_peer(const Csr<V>& a, const Params& p, Backend b,
                                        CusparsePeer peer) {
  (void)a;
  (void)p;
  (void)b;
  (void)peer;
#if SPMVKIT_HAVE_CUDA
  return make_cusparse(a, peer, p);
#else
  throw UnsupportedError("cuSPARSE peers need the CUDA backend");
#endif
}

FormatEntry peer_entry(const char* name, const char* summary, CusparsePeer peer,
                       std::vector<ParamSpec> params = {}) {
  return make_format(
      name, summary, std::move(params),
      [peer](const auto& a, const Params& p, Backend b) { return build_peer(a, p, b, peer); },
      /*cpu=*/false, /*cuda=*/true, /*peer=*/true);
}

ParamSpec bsr_peer_block_size() {
  return int_param("block_size", "auto", 1, 1024,
                   "rows and columns of a dense block (rows and cols its multiples; 1 is "
                   "refused as unsupported); auto: detected")
      .or_auto();
}

// The CSR and COO peers also build from a CSR in device memory (format=auto may choose ALG1 or
// COO for a user's device arrays, copied, or for the registry's upload of a host CSR, kept);
// from a host CSR they build as a cuSPARSE user would (the registry keeps peers on their host
// builder there).
FormatEntry with_device_builder(FormatEntry e, CusparsePeer peer) {
#if SPMVKIT_HAVE_CUDA
  set_device_builder(
      e, [peer](const auto& a, const Params&) { return make_cusparse_from_device(a, peer); });
  set_device_keeper(e, [peer](const auto& a, const std::shared_ptr<const void>& keep,
                              const Params&) { return make_cusparse_from_device(a, peer, keep); });
#else
  (void)peer;
#endif
  return e;
}

}  // namespace

FormatEntry cusparse_csr_alg1_format() {
  return with_device_builder(
      peer_entry("cusparse_csr_alg1", "cuSPARSE SpMV, CSR, CUSPARSE_SPMV_CSR_ALG1",
                 CusparsePeer::csr_alg1),
      CusparsePeer::csr_alg1);
}
FormatEntry cusparse_csr_alg2_format() {
  return with_device_builder(
      peer_entry("cusparse_csr_alg2", "cuSPARSE SpMV, CSR, CUSPARSE_SPMV_CSR_ALG2",
                 CusparsePeer::csr_alg2),
      CusparsePeer::csr_alg2);
}
FormatEntry cusparse_coo_format() {
  return with_device_builder(
      peer_entry("cusparse_coo", "cuSPARSE SpMV, COO, CUSPARSE_SPMV_COO_ALG1", CusparsePeer::coo),
      CusparsePeer::coo);
}
FormatEntry cusparse_sell_format() {
  return peer_entry("cusparse_sell", "cuSPARSE SpMV, sliced ELL, CUSPARSE_SPMV_SELL_ALG1",
                    CusparsePeer::sell,
                    {int_param("slice_size", "32", 1, 1024, "rows a slice")});
}

FormatEntry cusparse_bsr_format() {
  return peer_entry("cusparse_bsr", "cuSPARSE SpMV, BSR (column-major blocks), CUSPARSE_SPMV_BSR_ALG1",
                    CusparsePeer::bsr, {bsr_peer_block_size()});
}
FormatEntry cusparse_bsrmv_format() {
  return peer_entry("cusparse_bsrmv", "cuSPARSE legacy bsrmv (column-major blocks)",
                    CusparsePeer::bsrmv, {bsr_peer_block_size()});
}

}  // namespace spmvkit

# One line a bench JSON: matrix/format=setup_ms/paired ratio to cuSPARSE CSR ALG1's setup.
import json, sys
d = json.load(open(sys.argv[1]))
print(sys.argv[2], " ".join(
    "%s/%s=%.3f/%s" % (r["matrix"][:6], r["format"], r["setup_ms"],
                       "%.2f" % r["setup_vs_peer_paired"] if r.get("setup_vs_peer_paired") else "-")
    for r in d["results"]))

// A small persistent store of measured tuning results (calibrations, autotuned kernel
// parameters), keyed by device name and a key string. Formats consult it when they build;
// `spmvkit tune` and calibration routines write it.
//
// File: $SPMVKIT_TUNING_FILE, else $XDG_CACHE_HOME/spmvkit/tuning.tsv, else
// ~/.cache/spmvkit/tuning.tsv. One record a line: device <TAB> key <TAB> value. Later lines
// win. A missing file is an empty store.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace spmvkit {

std::string tuning_file_path();
std::optional<std::string> tuning_get(const std::string& device, const std::string& key);
// Every key of `device` that starts with `prefix`, with its value (the last record's), in key
// order.
std::vector<std::pair<std::string, std::string>> tuning_find(const std::string& device,
                                                              const std::string& prefix);
// Which read of the store the lookups above answer from: it changes whenever the file (or this
// process's tuning_put) changed what they return; 0 while there is no store. A reader that
// derives something from the records keeps it while the generation stays the same.
std::uint64_t tuning_generation();
void tuning_put(const std::string& device, const std::string& key, const std::string& value);

}  // namespace spmvkit

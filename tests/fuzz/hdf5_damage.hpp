// Damage to a valid HDF5 file through the HDF5 API, driven by fuzz input, for the structure-aware
// targets (checkpoint_structured, pmmh_checkpoint_structured): up to three edits, each replacing an
// attribute by one of another type or value, deleting one, replacing a dataset by one of another
// shape and type (or rewriting its bytes), or deleting one. The file stays well-formed HDF5; the
// caller reseals it so that what is tested is rsmc's validation behind the seal.
#pragma once

#include <cstddef>
#include <string>

#include "byte_reader.hpp"

namespace rsmc::fuzz {

// Edits the file at `path` as the input says, choosing among the named root attributes and datasets.
void damage_through_hdf5(const std::string& path, ByteReader& in, const char* const* attributes,
                         std::size_t attribute_count, const char* const* datasets, std::size_t dataset_count);

template <std::size_t A, std::size_t D>
void damage_through_hdf5(const std::string& path, ByteReader& in, const char* const (&attributes)[A],
                         const char* const (&datasets)[D]) {
  damage_through_hdf5(path, in, attributes, A, datasets, D);
}

}  // namespace rsmc::fuzz

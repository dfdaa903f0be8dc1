// Native CUDA alias table kernels (host-callable launchers; pointers are device pointers):
//  - the chunked PACK (Lehmann et al. 2021, section 4.2): one thread per section, a block's light and
//    heavy items (weights inside the entries) staged in shared memory, interleaved by thread, and
//    refilled chunk by chunk as each thread consumes them;
//  - sectioned sampling: section counts by binomial splitting without communication, then one block
//    per section draws from its rows staged in shared memory.
// Host twins: kernels/host/alias_pack.hpp (host::alias_pack) and kernels/host/alias_sampling.hpp, with
// identical results (tests/cuda/test_cuda_alias.cpp compares them bit for bit). This header needs no
// CUDA and no Kokkos headers. Launchers synchronise and throw rsmc::Error on CUDA failures.
//
// How the pack relates to the Kokkos construction (kernels/alias/psa.hpp): for std::uint64_t weights
// its lists and splits come from host::alias_split, the arithmetic is exact, and the table is Vose's,
// i.e. the same bits as build_alias with AliasMethod::psa (tests/unit/test_alias.cpp checks the host
// twin against it). For double weights it is the list-based PSA of the host twin (sequential split,
// rounded prefix sums): deterministic, but a double table, not comparable bit for bit with any
// integer construction; the Kokkos code has no double-weight PSA.
#pragma once

#include <cstdint>

#include "kernels/alias/alias_core.hpp"

namespace rsmc::kernels::cuda {

// Device twin of host::alias_pack: packs sections 0..sections-1 (section k from the merge-path state
// (split_lights[k], boundary(k) - split_lights[k]) to the next) into rows. split_lights has
// sections + 1 entries; lights, heavies and the shape are those of host::alias_split / psa_prepare.
void alias_pack_chunked(const alias::PackShape<double>& shape, const alias::LightItem<double>* lights,
                        const alias::HeavyItem<double>* heavies, const std::uint64_t* split_lights,
                        std::uint64_t sections, alias::AliasRow<double>* rows);
void alias_pack_chunked(const alias::PackShape<std::uint64_t>& shape, const alias::LightItem<std::uint64_t>* lights,
                        const alias::HeavyItem<std::uint64_t>* heavies, const std::uint64_t* split_lights,
                        std::uint64_t sections, alias::AliasRow<std::uint64_t>* rows);

// Device twin of host::alias_section_counts: out[s] = draws of section s (section_count_of(rows,
// section_rows) entries).
void alias_section_counts(std::uint64_t rows, std::uint64_t section_rows, std::uint64_t total_draws, std::uint64_t seed,
                          std::uint32_t step, std::uint64_t* out);

// Device twins of host::alias_sample_sectioned_counts (counts_per_item: n entries, overwritten) and
// host::alias_sample_sectioned_draws (draws: total_draws entries, grouped by section).
void alias_sample_sectioned_counts(const alias::AliasRow<double>* rows, std::uint64_t n, double capacity,
                                   std::uint64_t total_draws, std::uint64_t seed, std::uint32_t step,
                                   std::uint64_t section_rows, std::uint64_t first_draw_id,
                                   std::uint64_t* counts_per_item);
void alias_sample_sectioned_counts(const alias::AliasRow<std::uint64_t>* rows, std::uint64_t n, alias::u128 capacity,
                                   std::uint64_t total_draws, std::uint64_t seed, std::uint32_t step,
                                   std::uint64_t section_rows, std::uint64_t first_draw_id,
                                   std::uint64_t* counts_per_item);
void alias_sample_sectioned_draws(const alias::AliasRow<double>* rows, std::uint64_t n, double capacity,
                                  std::uint64_t total_draws, std::uint64_t seed, std::uint32_t step,
                                  std::uint64_t section_rows, std::uint64_t first_draw_id, std::uint64_t* draws);
void alias_sample_sectioned_draws(const alias::AliasRow<std::uint64_t>* rows, std::uint64_t n, alias::u128 capacity,
                                  std::uint64_t total_draws, std::uint64_t seed, std::uint32_t step,
                                  std::uint64_t section_rows, std::uint64_t first_draw_id, std::uint64_t* draws);

}  // namespace rsmc::kernels::cuda

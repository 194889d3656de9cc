//! @file The files of a column-slab checkpoint: one piece per rank, and the flat row they make.
#pragma once

#include <string>
#include <vector>

#include "engine/checkpoint/checkpoint_file.hpp"
#include "engine/scoring/scoring.hpp"
#include "engine/sequence.hpp"

namespace chromalign {

/// ".slab<rank>of<ranks>": what names a slab's files (its pieces, and its kept rows).
std::string slab_suffix(int rank, int ranks);

/// PATH.slab<rank>of<ranks>.<slot>: rank's columns of the checkpoint row kept in `slot` (0 or 1).
std::string piece_name(const std::string& path, int rank, int ranks, int slot);

/// The rank counts other than `ranks` that left pieces of PATH in its directory.
std::vector<int> other_rank_counts(const std::string& path, int ranks);
/// The one rank count other than `ranks` that left pieces of PATH, or 0. Throws Error when
/// pieces of two rank counts lie there (which to resume would be a guess).
int other_rank_count(const std::string& path, int ranks);

/// The pieces that `q` ranks wrote in `slot`, each checked against its columns of S1, all of
/// one checkpoint. Throws Error when a piece is missing, damaged or does not fit.
std::vector<Checkpoint> read_pieces(const std::string& path, int q, int slot, const Sequence& s0, const Sequence& s1,
                                    const Scoring& scoring);

/// The flat row of all columns that `pieces` (one checkpoint, left to right) make, without its
/// H and F yet: the first piece's identity and row with S1's length and fingerprint, and the
/// best of their best cells.
Checkpoint flat_of(const std::vector<Checkpoint>& pieces, const Sequence& s1);

/// The pieces with each step of a wavefront piece (Checkpoint::steps) cut off as a piece of
/// its own: its columns at its row, with its left rows. What level_pieces takes.
std::vector<Checkpoint> split_steps(std::vector<Checkpoint> pieces);

/// The flat row of all columns that pieces at one row make (their best cell, the best of
/// theirs). Throws Error when they lie at different rows.
Checkpoint join_pieces(const std::vector<Checkpoint>& pieces, const Sequence& s1);

/// The later of the two checkpoints that the pieces of `q` ranks hold.
struct LatestPieces {
    std::vector<Checkpoint> pieces;     ///< empty when neither slot holds a usable set
    bool any = false;                   ///< some slot's first piece exists
    std::vector<std::string> problems;  ///< why each slot whose first piece exists was not usable
};
LatestPieces latest_pieces(const std::string& path, int q, const Sequence& s0, const Sequence& s1,
                           const Scoring& scoring);

/// Removes both slots of the pieces of `q` ranks (none when q is 0).
void remove_pieces(const std::string& path, int q);
/// What lies at PATH beside a completion marker is spent: removes the flat checkpoint PATH
/// and the pieces of every rank count but `keep` (0: all), and returns the note that says so.
std::string remove_spent_files(const std::string& path, int keep);

/// PATH.complete: written by a slab run that finished, before its ranks remove their pieces
/// and removed after, so the pieces a job killed in between leaves are known to be spent.
std::string completion_marker(const std::string& path);
/// Creates the marker (an empty file, synced). Throws Error when it cannot.
void write_completion_marker(const std::string& path);

}  // namespace chromalign

//! @file The traceback's journal in a comparison's directory of --traceback-dir (traceback.journal): the walk saved
//! every --checkpoint-every, so that a rerun after a kill takes it up (linear_traceback.hpp).
#pragma once

#include <chrono>
#include <string>

#include "engine/backend/options.hpp"
#include "engine/result.hpp"
#include "engine/scoring/scoring.hpp"
#include "engine/traceback/linear_traceback.hpp"

namespace chromalign {

class FileJournal : public TracebackJournal {
public:
    /// The journal of the traceback from `end` of the comparison `id` under `scoring`, written
    /// at most every `every_seconds` (tmp file, then rename).
    FileJournal(std::string dir, const RowsIdentity& id, const Scoring& scoring, const AlignmentEnd& end,
                double every_seconds);
    /// The saved walk, if the file is this traceback's (another's, or a damaged one, is ignored).
    bool load(TracebackPoint& point) override;
    /// Once every `every_seconds`.
    bool due() override;
    /// Writes the point now.
    void save(const TracebackPoint& point) override;
    /// The traceback is done: the journal goes.
    void finish();
    const std::string& path() const { return path_; }

private:
    std::string path_;
    RowsIdentity id_;
    int32_t open_, ext_;
    AlignmentEnd end_;
    double every_;
    std::chrono::steady_clock::time_point last_;
};

}  // namespace chromalign

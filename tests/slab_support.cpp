//! @file slab_align: every rank a thread with a backend of its own, over LocalLinks.
#include "tests/slab_support.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "kernels/registry.hpp"
#include "engine/transport/local_link.hpp"
#include "kernels/reference/reference.hpp"
#include "engine/orchestration/slab_run.hpp"
#include "tests/test_support.hpp"

namespace chromalign::test {

AlignmentEnd slab_align(const std::string& backend, const Sequence& s0, const Sequence& s1, const Scoring& scoring,
                        int ranks, const BackendOptions& options) {
    std::vector<AlignmentEnd> results(static_cast<size_t>(ranks));
    SlabGroup group(ranks);
    LocalLinkHub hub(group);
    run_in_group(group, [&](int rank) {
        BackendOptions mine = options;
        mine.device = rank % std::max(1, backend_devices("cuda"));
        mine.slabs = 1;  // one slab per backend: the ranks stand for processes
        auto engine = make_backend(backend, mine);
        LocalLink link(hub, rank);
        results[static_cast<size_t>(rank)] = run_slab(s0, s1, scoring, *engine->slab_engine(), link, mine).best;
    });
    for (const AlignmentEnd& r : results) EXPECT_EQ(r, results[0]) << "ranks disagree";
    return results[0];
}

void expect_slab_matches_reference(const std::string& backend, const Sequence& s0, const Sequence& s1,
                                   const Scoring& scoring, int ranks, const BackendOptions& o,
                                   const std::string& what) {
    const AlignmentEnd want = reference_align(s0, s1, scoring);
    const AlignmentEnd got = slab_align(backend, s0, s1, scoring, ranks, o);
    ASSERT_EQ(got, want) << what << ": " << backend << ", " << ranks << " ranks, m=" << s0.length()
                         << " n=" << s1.length() << " " << scoring.to_string() << " alpha=" << o.alpha
                         << " max_blocks=" << o.max_blocks << "\n got " << got.score << " (" << got.s0_end << ", "
                         << got.s1_end << ") want " << want.score << " (" << want.s0_end << ", " << want.s1_end
                         << ")\n s0 " << preview(s0) << "\n s1 " << preview(s1) << "\n seed " << seed();
}

}  // namespace chromalign::test

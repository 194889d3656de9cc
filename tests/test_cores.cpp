// The cores a process may use: the cpu backend's default threads follow its affinity mask
// (taskset, srun --cpus-per-task, an MPI launcher's binding), shared among its slabs.
#include <gtest/gtest.h>
#include <sched.h>

#include <string>

#include "kernels/cpu/cores.hpp"
#include "tests/resume_harness.hpp"

namespace chromalign {
namespace {

/// Pins the calling thread (and the children it starts) to the first `count` CPUs of its
/// mask, then gives the mask back.
class CpuScope {
public:
    explicit CpuScope(int count) {
        CPU_ZERO(&saved_);
        EXPECT_EQ(sched_getaffinity(0, sizeof saved_, &saved_), 0);
        cpu_set_t some;
        CPU_ZERO(&some);
        for (int cpu = 0; cpu < CPU_SETSIZE && CPU_COUNT(&some) < count; ++cpu)
            if (CPU_ISSET(cpu, &saved_)) CPU_SET(cpu, &some);
        EXPECT_EQ(sched_setaffinity(0, sizeof some, &some), 0);
    }
    ~CpuScope() { sched_setaffinity(0, sizeof saved_, &saved_); }
    int saved_count() const { return CPU_COUNT(&saved_); }

private:
    cpu_set_t saved_;
};

/// The TSV result's device column.
std::string device_of(const std::string& tsv) {
    const std::string row = tsv.substr(tsv.find('\n') + 1);
    size_t start = 0;
    for (int column = 0; column < 11; ++column) start = row.find('\t', start) + 1;
    return row.substr(start, row.find('\t', start) - start);
}

TEST(Cores, UsableCoresFollowTheAffinityMask) {
    int before = 0;
    {
        CpuScope one(1);
        before = one.saved_count();
        EXPECT_EQ(usable_cores(), 1);
    }
    EXPECT_EQ(usable_cores(), before);
}

TEST(Cores, CpuThreadsDefaultToTheAffinitySharedAmongSlabs) {
    if (usable_cores() < 2) GTEST_SKIP() << "needs 2 cores";
    test::ResumeHarness h(3000, 2500, 41);
    CpuScope two(2);  // the CLI children inherit it
    const test::ChildRun plain = h.run({"-b", "cpu"});
    ASSERT_EQ(plain.exit_code, 0) << plain.err;
    EXPECT_EQ(device_of(plain.out).rfind("cpu: 2 threads,", 0), 0u) << plain.out;

    const test::ChildRun slabs = h.run({"-b", "cpu", "--slabs", "2"});
    ASSERT_EQ(slabs.exit_code, 0) << slabs.err;
    EXPECT_EQ(device_of(slabs.out).rfind("cpu: 1 thread,", 0), 0u) << slabs.out;
    const AlignmentEnd a = test::ResumeHarness::parse_tsv(plain.out), b = test::ResumeHarness::parse_tsv(slabs.out);
    EXPECT_EQ(a.score, b.score);
    EXPECT_EQ(a.s0_end, b.s0_end);
    EXPECT_EQ(a.s1_end, b.s1_end);
    EXPECT_GT(a.score, 100);  // a mutated pair: a real alignment, not noise
}

}  // namespace
}  // namespace chromalign

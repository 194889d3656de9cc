//! @file A test hook that makes a run last longer without using a core.
#pragma once

namespace chromalign {

/// Sleeps $CHROMALIGN_TEST_PACE_US microseconds (read once per process); nothing when it is
/// unset, as outside tests it always is. Stage 1 calls it once per external diagonal and the
/// traceback once per window. Tests that stop or kill a run at a chosen moment set it: a small
/// pair then lasts as long as they need on a fast machine, and a loaded one (a CI machine
/// running two suites at once) does not stretch its cells' share of that time.
void test_pace();

}  // namespace chromalign

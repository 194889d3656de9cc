//! @file Placeholder replaced below.

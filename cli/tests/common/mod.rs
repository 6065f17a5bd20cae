//! Shared by the CLI's integration tests: what to do when a test's real parts are missing
//! (fail under `CI=true`, skip elsewhere; one rule for every crate's tests).

pub use pocket_assets::proceed_or_skip;

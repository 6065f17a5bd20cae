//! What a test does when the assets (or tools) its real part needs are missing.

/// `true` when nothing is missing; otherwise fails under `CI=true` (a test that cannot run its
/// real part must not pass there: CI fetches every asset first) and, elsewhere, says what is
/// missing and returns `false` (skip).
pub fn proceed_or_skip(missing: &[String]) -> bool {
    if missing.is_empty() {
        return true;
    }
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "CI=true but missing: {}",
        missing.join(", ")
    );
    println!("skipped: missing {}", missing.join(", "));
    false
}

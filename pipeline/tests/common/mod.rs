//! Setup shared by the tests that run the real default engines: the asset store, and what to
//! do when its default models are missing (skip on a developer machine, fail in CI).

use pocket_assets::Store;

/// The asset store when every default asset is installed. `None` (the test skips) when some
/// are missing — except under `CI=true`, where that is a failure.
pub fn default_store() -> Option<Store> {
    let store = Store::open_default().expect("the asset folder is known");
    let missing = store
        .missing("default")
        .expect("the manifest has a default set");
    if missing.is_empty() {
        return Some(store);
    }
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "CI=true but default assets are missing: {} (pocket assets fetch)",
        missing.join(", ")
    );
    println!(
        "skipped: missing {} (pocket assets fetch)",
        missing.join(", ")
    );
    None
}

//! With the registry unreachable, fetch fails with a clear "offline?" error and keeps nothing.
//! The package index is pointed at a closed loopback port; this file holds one test so the
//! environment change cannot leak into others.

use pocket_assets::{AssetError, ClientOutput, FetchOptions, Manifest, Store, fetch};

#[test]
fn an_unreachable_registry_gives_a_clear_error_and_no_partial_file() {
    // SAFETY: this test binary runs this single test, before any other thread reads the env.
    unsafe {
        std::env::set_var("PIP_INDEX_URL", "http://127.0.0.1:9/simple");
        std::env::set_var("PIP_RETRIES", "0");
        std::env::set_var("PIP_TIMEOUT", "2");
        std::env::set_var("PIP_NO_CACHE_DIR", "1");
    }
    let home = tempfile::tempdir().expect("tempdir");
    let mut manifest = Manifest::builtin().expect("manifest");
    manifest.assets.retain(|a| a.id == "silero-vad");
    let store = Store::new(home.path(), manifest);
    let assets = store.manifest().set("all").expect("set");
    let options = FetchOptions {
        client_output: ClientOutput::Quiet,
    };
    let err = fetch(&store, &assets, options, &mut |_| {}).expect_err("offline must fail");
    assert!(matches!(err, AssetError::DownloadFailed { .. }), "{err}");
    let text = err.to_string();
    assert!(
        text.contains("silero-vad") && text.contains("offline"),
        "{text}"
    );
    let dir = store.asset_dir("silero-vad");
    let left: Vec<_> = std::fs::read_dir(&dir)
        .map(|d| d.map(|e| e.expect("entry").file_name()).collect())
        .unwrap_or_default();
    assert!(left.is_empty(), "nothing may stay behind: {left:?}");
}

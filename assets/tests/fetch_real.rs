//! Fetches a real package with its real client into a temporary home: install, idempotence,
//! detection and repair of a corrupted file, and a checksum failure that leaves nothing behind.
//! Needs npm and the npm registry (CI has both).

use pocket_assets::{
    AssetError, ClientOutput, FetchEvent, FetchOptions, FileState, Manifest, Store, fetch,
};

const QUIET: FetchOptions = FetchOptions {
    client_output: ClientOutput::Quiet,
};

fn jfk_only(manifest: &Manifest, sha_override: Option<&str>) -> Manifest {
    let mut m = manifest.clone();
    m.assets.retain(|a| a.id == "jfk");
    if let Some(sha) = sha_override {
        m.assets[0].files[0].sha256 = sha.to_string();
    }
    m
}

#[test]
fn fetch_is_idempotent_and_repairs_a_corrupted_file() {
    let home = tempfile::tempdir().expect("tempdir");
    let store = Store::new(
        home.path(),
        jfk_only(&Manifest::builtin().expect("manifest"), None),
    );
    let assets = store.manifest().set("test-audio").expect("set");
    assert_eq!(assets.len(), 1);

    let first = fetch(&store, &assets, QUIET, &mut |_| {}).expect("first fetch");
    assert_eq!((first.installed_files, first.downloaded_packages), (1, 1));
    let wav = store.require_file("jfk", "jfk.wav").expect("installed");
    assert!(store.status(assets[0]).expect("status").is_verified());

    // A second run downloads nothing.
    let mut events = Vec::new();
    let second = fetch(&store, &assets, QUIET, &mut |e| events.push(e)).expect("second fetch");
    assert_eq!(
        (second.already_verified, second.downloaded_packages),
        (1, 0)
    );
    assert!(matches!(
        events.as_slice(),
        [FetchEvent::AlreadyVerified { .. }]
    ));

    // Flip one byte in place: same size, so only the hash can tell.
    let mut bytes = std::fs::read(&wav).expect("read");
    bytes[1000] ^= 0x55;
    std::fs::write(&wav, &bytes).expect("write");
    let status = store.status(assets[0]).expect("status");
    assert!(matches!(status.files[0].state, FileState::WrongHash { .. }));
    assert!(status.summary().contains("corrupt"), "{}", status.summary());

    let third = fetch(&store, &assets, QUIET, &mut |_| {}).expect("repair fetch");
    assert_eq!((third.installed_files, third.downloaded_packages), (1, 1));
    assert!(store.status(assets[0]).expect("status").is_verified());

    // A truncated file is caught by the cheap check engines use.
    std::fs::write(&wav, &bytes[..100]).expect("truncate");
    assert!(matches!(
        store.require("jfk"),
        Err(AssetError::NotInstalled { .. })
    ));
}

#[test]
fn a_checksum_failure_names_the_file_and_keeps_nothing() {
    let home = tempfile::tempdir().expect("tempdir");
    let wrong = "0".repeat(64);
    let store = Store::new(
        home.path(),
        jfk_only(&Manifest::builtin().expect("manifest"), Some(&wrong)),
    );
    let assets = store.manifest().set("all").expect("set");
    let err = fetch(&store, &assets, QUIET, &mut |_| {}).expect_err("must fail");
    match &err {
        AssetError::ChecksumMismatch { expected, .. } => assert_eq!(expected, &wrong),
        other => panic!("expected a checksum error, got {other}"),
    }
    assert!(err.to_string().contains("jfk.wav"), "{err}");
    let dir = store.asset_dir("jfk");
    let left: Vec<_> = std::fs::read_dir(&dir)
        .expect("dir exists")
        .map(|e| e.expect("entry").file_name())
        .collect();
    assert!(left.is_empty(), "nothing may stay behind: {left:?}");
    assert!(!home.path().join(".downloads").join("jfk").exists());
}

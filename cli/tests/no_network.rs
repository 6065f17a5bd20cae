//! No network during a conversation: `pocket converse` on the default models runs a spoken
//! turn under `strace -f -e trace=network`, and no process or thread of it opens an internet
//! (AF_INET, AF_INET6) or packet socket, opens a route-netlink socket (how name resolution
//! and interface lookups begin), or hands an internet address to connect, sendto or bind.
//! Local UNIX sockets (a sound server, the name-service cache) are not network and stay
//! allowed. The session runs at real-time pace, long enough for a delayed uploader to show. Needs strace and the default models; skips without them, except in CI (CI=true),
//! where that is a failure.

mod common;

use std::path::Path;
use std::process::Command;

use pocket_assets::{Store, ids};

const POCKET: &str = env!("CARGO_BIN_EXE_pocket");

/// What a line of `strace -e trace=network` output shows of network use, if anything.
fn network_use(line: &str) -> Option<String> {
    if let Some(at) = line.find("socket(")
        && !line[..at].ends_with("pair")
    {
        let args = &line[at + "socket(".len()..];
        let family = args.split([',', ')']).next().unwrap_or("").trim();
        match family {
            "AF_INET" | "AF_INET6" | "AF_PACKET" => return Some(format!("a {family} socket")),
            "AF_NETLINK" if args.contains("NETLINK_ROUTE") => {
                return Some("a route-netlink socket (address or interface lookup)".into());
            }
            _ => {}
        }
    }
    for family in ["AF_INET6", "AF_INET"] {
        if line.contains(&format!("sa_family={family}")) {
            return Some(format!("an {family} address"));
        }
    }
    None
}

/// Whether the test can run here; a missing piece fails under CI=true.
fn ready(store: &Store) -> bool {
    let mut missing: Vec<String> = store
        .missing("default")
        .expect("the manifest has a default set")
        .into_iter()
        .map(|id| format!("asset {id} (pocket assets fetch)"))
        .collect();
    if store.require(ids::JFK).is_err() {
        missing.push("asset jfk (pocket assets fetch --set test-audio)".into());
    }
    if Command::new("strace").arg("-V").output().is_err() {
        missing.push("strace (Debian package strace; scripts/setup-system)".into());
    }
    common::proceed_or_skip(&missing)
}

#[test]
fn a_conversation_opens_no_network_socket() {
    let store = Store::open_default().expect("the asset folder is known");
    if !ready(&store) {
        return;
    }
    let clip = store
        .require_file(ids::JFK, "jfk.wav")
        .expect("jfk.wav is installed");
    let dir = tempfile::tempdir().expect("a temporary folder");
    let trace = dir.path().join("trace.txt");
    let output = dir.path().join("said.wav");
    let report = dir.path().join("report.json");
    let path = |p: &Path| p.to_str().expect("a UTF-8 temporary path").to_string();
    let run = Command::new("strace")
        .args([
            "-f",
            "-q",
            "-e",
            "trace=network",
            "-o",
            &path(&trace),
            POCKET,
        ])
        // Real-time pace, the clip twice: a session of ~25 s. ONNX Runtime's telemetry
        // uploader, when it is not switched off, looks up its server about 10 s after start;
        // a fast-paced run (7 s) ended before that and missed it.
        .args([
            "converse",
            "--pace",
            "realtime",
            "--quiet",
            "--input",
            &path(&clip),
            "--input",
            &path(&clip),
        ])
        // Smart endpointing, so the end-of-turn classifier loads and runs too (jfk.wav's
        // pauses may make more than one turn; one answered is enough here).
        .args(["--endpoint", "smart"])
        .args(["--output", &path(&output), "--report", &path(&report)])
        .output()
        .expect("strace runs");
    assert!(
        run.status.success(),
        "pocket converse under strace failed: {}",
        String::from_utf8_lossy(&run.stderr)
    );

    // A conversation happened: the clip was heard and answered.
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).expect("the report is written"))
            .expect("the report is JSON");
    let turns = report["turns"].as_array().expect("turns");
    assert!(
        turns.iter().any(|t| {
            t["user_text"].as_str().is_some_and(|s| !s.is_empty())
                && t["reply_text"].as_str().is_some_and(|s| !s.is_empty())
        }),
        "no turn was heard and answered: {report}"
    );

    // strace followed the process to its end, and saw no network use on the way.
    let trace = std::fs::read_to_string(&trace).expect("strace wrote its trace");
    assert!(
        trace.contains("+++ exited with 0 +++"),
        "the trace does not follow pocket to its exit:\n{trace}"
    );
    let used: Vec<String> = trace
        .lines()
        .filter_map(|l| network_use(l).map(|what| format!("{what}: {l}")))
        .collect();
    assert!(used.is_empty(), "network use:\n{}", used.join("\n"));
    println!(
        "{} network calls traced, all local",
        trace.lines().filter(|l| !l.contains("+++")).count()
    );
}

#[test]
fn network_use_is_told_from_local_sockets() {
    // Lines as strace 6 writes them.
    for local in [
        "23101 socket(AF_UNIX, SOCK_STREAM|SOCK_CLOEXEC|SOCK_NONBLOCK, 0) = 3",
        "23101 connect(3, {sa_family=AF_UNIX, sun_path=\"/run/user/0/pulse/native\"}, 110) = 0",
        "23101 socketpair(AF_UNIX, SOCK_STREAM, 0, [3, 4]) = 0",
        "812 socket(AF_NETLINK, SOCK_RAW|SOCK_CLOEXEC|SOCK_NONBLOCK, NETLINK_KOBJECT_UEVENT) = 9",
        "23101 +++ exited with 0 +++",
    ] {
        assert_eq!(network_use(local), None, "{local}");
    }
    for net in [
        "23101 socket(AF_INET, SOCK_STREAM, IPPROTO_TCP) = 5",
        "23101 socket(AF_INET6, SOCK_DGRAM|SOCK_CLOEXEC|SOCK_NONBLOCK, IPPROTO_IP) = 5",
        "23101 socket(AF_NETLINK, SOCK_RAW|SOCK_CLOEXEC, NETLINK_ROUTE) = 3",
        "23101 socket(AF_PACKET, SOCK_RAW, 768) = 4",
        "23101 connect(5, {sa_family=AF_INET, sin_port=htons(9), sin_addr=inet_addr(\"127.0.0.1\")}, 16) = -1",
        "23101 sendto(5, \"x\", 1, 0, {sa_family=AF_INET6, sin6_port=htons(53)}, 28) = 1",
        "23101 socket(AF_INET, SOCK_STREAM, IPPROTO_TCP <unfinished ...>",
    ] {
        assert!(network_use(net).is_some(), "{net}");
    }
}

//! Test helper: takes the PulseAudio null sink away and brings it back (a headset unplugged and
//! plugged in again), and leaves the server as it found it, also when the test fails.

use std::process::Command;

/// The sink `scripts/lib/audio-null-sink.sh` sets up (the same module arguments).
const SINK_ARGS: [&str; 3] = [
    "sink_name=pocket_null",
    "rate=48000",
    "sink_properties=device.description=PocketNull",
];

fn pactl(args: &[&str]) -> String {
    let out = Command::new("pactl")
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("pactl {args:?}: {e}"));
    assert!(
        out.status.success(),
        "pactl {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Index of the first loaded module whose line contains `what`.
fn module(what: &str) -> Option<String> {
    pactl(&["list", "short", "modules"])
        .lines()
        .find(|l| l.contains(what))
        .and_then(|l| l.split_whitespace().next().map(str::to_string))
}

/// Control of the null sink for one test.
pub(super) struct NullSink {
    always_sink: bool,
}

impl NullSink {
    /// Unloads `module-always-sink` for the test: with it, the server moves our streams to its
    /// stand-in `auto_null` sink when ours goes, and nothing is lost to test.
    pub(super) fn take() -> Self {
        let always = module("module-always-sink");
        if let Some(m) = &always {
            pactl(&["unload-module", m]);
        }
        assert!(
            module("sink_name=pocket_null").is_some(),
            "no pocket_null sink"
        );
        Self {
            always_sink: always.is_some(),
        }
    }

    /// Removes the sink and its monitor source: our streams are dropped by the server.
    pub(super) fn unplug(&self) {
        while let Some(m) = module("sink_name=pocket_null") {
            pactl(&["unload-module", &m]);
        }
    }

    /// Loads the sink again and makes it and its monitor the defaults.
    pub(super) fn plug(&self) {
        if module("sink_name=pocket_null").is_none() {
            let mut args = vec!["load-module", "module-null-sink"];
            args.extend(SINK_ARGS);
            pactl(&args);
        }
        pactl(&["set-default-sink", "pocket_null"]);
        pactl(&["set-default-source", "pocket_null.monitor"]);
    }
}

impl Drop for NullSink {
    fn drop(&mut self) {
        self.plug();
        if self.always_sink && module("module-always-sink").is_none() {
            pactl(&["load-module", "module-always-sink"]);
        }
    }
}

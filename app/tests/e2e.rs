//! End-to-end test of the desktop app: the real app binary in the real webview (WebKitGTK) on
//! an Xvfb display, driven over WebDriver (`tauri-driver` + `WebKitWebDriver`), hearing a
//! spoken question through its file-input mode with the default models. The app runs under
//! `strace -f -e trace=network` (`support::network`): through the whole conversation it and
//! its WebKit processes use no network beyond the automation's loopback socket.
//!
//! Needs the default models, `tauri-driver`, Xvfb, ImageMagick and strace (see
//! scripts/setup-system; under CI=true a missing strace fails);
//! `scripts/test` runs it: `cargo test -p pocket-app --test e2e -- --ignored`. Screenshots go
//! to `$POCKET_E2E_ARTIFACTS` (default: `<target>/tmp/e2e`).

mod support;

use anyhow::{Context, Result, ensure};
use std::path::{Path, PathBuf};
use std::time::Duration;
use support::desktop::{Display, Driver};
use support::network;
use support::webdriver::Session;

const QUESTION: &str = "What is the capital of France?";

fn artifacts() -> Result<PathBuf> {
    let dir = std::env::var_os("POCKET_E2E_ARTIFACTS")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_TARGET_TMPDIR")).join("e2e"));
    std::fs::create_dir_all(&dir)?;
    Ok(dir)
}

/// Speaks `text` with the default Piper voice into a WAV file: a real spoken question.
fn spoken(text: &str, path: &Path) -> Result<()> {
    let store = pocket_assets::Store::open_default()?;
    let chosen = pocket_tts::choose_default_voice(&store, &pocket_tts::PiperOptions::default());
    if let Some(why) = chosen.fallback_reason {
        anyhow::bail!("the Piper voice is needed to speak the question: {why}");
    }
    let mut voice = chosen.voice;
    let (pcm, _) = pocket_tts::speak_to_vec(voice.as_mut(), text)?;
    pocket_tts::write_wav(path, &pcm, voice.sample_rate())?;
    Ok(())
}

/// The app, its display and its WebDriver session, started with `args`.
struct App {
    display: Display,
    _driver: Driver,
    session: Option<Session>,
}

impl App {
    /// Starts `application` (the app binary, or a launcher that runs it) with `args`.
    fn start(application: &Path, args: Vec<String>) -> Result<Self> {
        let display = Display::start()?;
        let driver = Driver::start(&display)?;
        let application = application.to_str().context("a UTF-8 app path")?;
        let session = Session::start(driver.port, application, &args)
            .context("start the app through tauri-driver")?;
        Ok(Self {
            display,
            _driver: driver,
            session: Some(session),
        })
    }

    fn ui(&self) -> &Session {
        self.session.as_ref().expect("session is open until drop")
    }

    /// Saves a webview screenshot (WebDriver) and a screen one (ImageMagick) as artifacts.
    fn screenshots(&self, dir: &Path, name: &str) -> Result<PathBuf> {
        let png = dir.join(format!("{name}.png"));
        std::fs::write(&png, self.ui().screenshot()?)?;
        self.display
            .screenshot(&dir.join(format!("{name}-screen.png")))?;
        Ok(png)
    }
}

impl Drop for App {
    fn drop(&mut self) {
        if let Some(s) = self.session.take() {
            let _ = s.end();
        }
    }
}

fn non_empty(texts: Vec<String>) -> Option<String> {
    texts
        .into_iter()
        .map(|t| t.trim().to_string())
        .find(|t| !t.is_empty())
}

#[test]
#[ignore = "needs Xvfb, tauri-driver and the default models; scripts/test runs it"]
fn the_desktop_app_answers_a_spoken_question() -> Result<()> {
    let work = tempfile::tempdir()?;
    let question = work.path().join("question.wav");
    spoken(QUESTION, &question)?;
    let out_dir = artifacts()?;
    let reply_wav = out_dir.join("reply.wav");
    let _ = std::fs::remove_file(&reply_wav);
    let args = vec![
        "--input".into(),
        question.display().to_string(),
        "--output".into(),
        reply_wav.display().to_string(),
        "--config-dir".into(),
        work.path().join("config").display().to_string(),
    ];
    let binary = Path::new(env!("CARGO_BIN_EXE_pocket-app"));
    // Kept with the screenshots, for a look at what the app did on the network.
    let trace = out_dir.join("network-trace.txt");
    let launcher = network::traced_launcher(binary, work.path(), &trace)?;
    let app = App::start(launcher.as_deref().unwrap_or(binary), args)?;
    let checked = answers_the_question(&app, &out_dir, &reply_wav);
    if checked.is_err() {
        let _ = app.screenshots(&out_dir, "app-e2e-failure");
    }
    // Ending the session closes the app: the trace covers its whole life.
    drop(app);
    checked?;
    if launcher.is_some() {
        let calls = network::check_trace(&trace)?;
        println!("{calls} network calls traced, none beyond loopback");
    }
    Ok(())
}

/// The checks of the end-to-end test, on a started app.
fn answers_the_question(app: &App, out_dir: &Path, reply_wav: &Path) -> Result<()> {
    let ui = app.ui();
    let timeout = Duration::from_secs(120);

    // The session starts by itself in file-input mode and listens.
    ui.wait_for("the session to start", timeout, |s| {
        Ok(s.text("#session-btn")?.filter(|t| t == "Stop"))
    })?;
    let transcript = ui.wait_for("the final transcript", timeout, |s| {
        Ok(non_empty(s.texts(".msg.user:not(.partial) .text")?))
    })?;
    let lower = transcript.to_lowercase();
    ensure!(
        lower.contains("capital") && lower.contains("france"),
        "transcript {transcript:?} is not the question {QUESTION:?}"
    );
    let first_audio = ui.wait_for("a first-audio latency figure", timeout, |s| {
        Ok(s.text("#lat-first")?
            .and_then(|t| t.trim().parse::<f64>().ok()))
    })?;
    ensure!(
        first_audio > 0.0 && first_audio < 30_000.0,
        "first-audio latency {first_audio} ms"
    );
    let reply = ui.wait_for("the assistant's reply", timeout, |s| {
        Ok(non_empty(s.texts(".msg.assistant .text")?))
    })?;
    ensure!(reply.chars().any(char::is_alphabetic), "reply {reply:?}");
    let stages = ui.texts("#stage-list li")?;
    ensure!(stages.len() == 6, "stage breakdown {stages:?}");
    ensure!(
        ui.text("#p50")?.is_some_and(|t| t.ends_with("ms")),
        "P50 shown"
    );

    // The reply plays to its end and the app listens again.
    ui.wait_for("the reply to finish", timeout, |s| {
        Ok(s.find_all(".msg.assistant.done")?.first().cloned())
    })?;
    let png = app.screenshots(out_dir, "app-e2e")?;
    println!(
        "transcript {transcript:?}\nreply {reply:?}\nfirst audio {first_audio} ms\nscreenshot {}",
        png.display()
    );
    main_states(app, out_dir, timeout)?;

    // Stopping the session releases the input and writes what the assistant said.
    ui.click("#session-btn")?;
    ui.wait_for("the session to stop", timeout, |s| {
        Ok(s.attribute("body", "data-state")?
            .filter(|st| st == "stopped"))
    })?;
    let said = std::fs::metadata(reply_wav)
        .with_context(|| format!("{} was not written", reply_wav.display()))?;
    ensure!(said.len() > 44 + 22_050, "the reply audio is too short");
    Ok(())
}

/// Walks the app through its main states and saves a screenshot of each (the README shows
/// them): listening, speaking (a typed question), interrupted (the stop button), settings.
fn main_states(app: &App, out_dir: &Path, timeout: Duration) -> Result<()> {
    let ui = app.ui();
    let state = |want: &'static str| {
        move |s: &Session| Ok(s.attribute("body", "data-state")?.filter(|st| st == want))
    };
    ui.wait_for("the app to listen again", timeout, state("listening"))?;
    app.screenshots(out_dir, "state-listening")?;

    ui.type_text(
        "#say-input",
        "Tell me a story about a dragon who lived by the sea.",
    )?;
    ui.click("#say-btn")?;
    ui.wait_for("the spoken reply", timeout, state("speaking"))?;
    // Let a few words of the reply be spoken and highlighted.
    std::thread::sleep(Duration::from_millis(1500));
    app.screenshots(out_dir, "state-speaking")?;

    ui.click("#stop-btn")?;
    ui.wait_for("the reply to be interrupted", timeout, |s| {
        Ok(s.find_all(".msg.assistant.interrupted")?.first().cloned())
    })?;
    app.screenshots(out_dir, "state-interrupted")?;

    ui.click("#open-settings")?;
    ui.wait_for("the settings dialog", timeout, |s| {
        Ok(s.find_all("dialog#settings[open]")?.first().cloned())
    })?;
    app.screenshots(out_dir, "state-settings")?;
    picks_a_model_file(app, out_dir, timeout)?;
    ui.click("#settings-cancel")?;
    Ok(())
}

/// The settings' "Choose…" button opens the native file picker (GTK here), filtered to GGUF
/// files; the file chosen in it lands in the model field. Driven with xdotool: type the path
/// into the picker's location bar, press Enter.
fn picks_a_model_file(app: &App, out_dir: &Path, timeout: Duration) -> Result<()> {
    let store = pocket_assets::Store::open_default()?;
    let model = store
        .require_file(
            pocket_assets::ids::SMOLLM2,
            pocket_assets::ids::SMOLLM2_FILE,
        )?
        .to_string_lossy()
        .into_owned();
    let ui = app.ui();
    ui.click("#set-model-browse")?;
    let picker = app
        .display
        .wait_window("Choose a GGUF language model", timeout)?;
    app.display
        .screenshot(&out_dir.join("state-model-picker.png"))?;
    app.display.xdotool(&["windowfocus", "--sync", &picker])?;
    app.display
        .xdotool(&["key", "--clearmodifiers", "ctrl+l"])?;
    app.display
        .xdotool(&["type", "--delay", "10", "--clearmodifiers", &model])?;
    // The first Enter may only close the location bar's completion list: press it until the
    // picker has returned the file.
    let start = std::time::Instant::now();
    loop {
        std::thread::sleep(Duration::from_millis(700));
        let chosen = ui.property("#set-model-path", "value")?;
        if chosen.as_deref() == Some(model.as_str()) {
            return Ok(());
        }
        ensure!(
            start.elapsed() < timeout,
            "the picker did not return {model:?} within {timeout:?} (field: {chosen:?})"
        );
        if app
            .display
            .xdotool(&["search", "--name", "Choose a GGUF language model"])
            .is_ok()
        {
            app.display.xdotool(&["windowfocus", "--sync", &picker])?;
            app.display
                .xdotool(&["key", "--clearmodifiers", "Return"])?;
        }
    }
}

#[test]
fn network_use_is_told_from_loopback_and_local_sockets() {
    // Lines as strace 6 writes them.
    for local in [
        "23101 socket(AF_UNIX, SOCK_STREAM|SOCK_CLOEXEC, 0) = 3",
        "23101 connect(3, {sa_family=AF_UNIX, sun_path=@\"/tmp/.X11-unix/X1\"}, 20) = 0",
        "23101 socket(AF_INET, SOCK_STREAM|SOCK_CLOEXEC, IPPROTO_TCP) = 7",
        "23101 bind(7, {sa_family=AF_INET, sin_port=htons(4444), sin_addr=inet_addr(\"127.0.0.1\")}, 16) = 0",
        "23101 accept4(7, {sa_family=AF_INET6, sin6_port=htons(50000), sin6_flowinfo=htonl(0), inet_pton(AF_INET6, \"::1\", &sin6_addr), sin6_scope_id=0}, [28], SOCK_CLOEXEC) = 8",
        "812 socket(AF_NETLINK, SOCK_RAW|SOCK_CLOEXEC, NETLINK_KOBJECT_UEVENT) = 9",
    ] {
        assert_eq!(network::network_use(local), None, "{local}");
    }
    for net in [
        "23101 connect(5, {sa_family=AF_INET, sin_port=htons(443), sin_addr=inet_addr(\"13.107.5.93\")}, 16) = -1",
        "23101 sendto(5, \"x\", 1, 0, {sa_family=AF_INET6, sin6_port=htons(443), sin6_flowinfo=htonl(0), inet_pton(AF_INET6, \"2001:db8::1\", &sin6_addr), sin6_scope_id=0}, 28) = 1",
        "23101 connect(5, {sa_family=AF_INET, sin_port=htons(53), sin_addr=inet_addr(\"127.0.0.53\")}, 16) = 0",
        "23101 socket(AF_PACKET, SOCK_RAW, 768) = 4",
        "23101 bind(7, {sa_family=AF_INET, sin_port=htons(80), sin_addr=inet_addr(\"127.0.0.1\")}, 16) = 0; connect(8, {sa_family=AF_INET, sin_port=htons(80), sin_addr=inet_addr(\"10.0.0.1\")}, 16)",
    ] {
        assert!(network::network_use(net).is_some(), "{net}");
    }
}

//! Soak runs: many turns on one running pipeline at fast pace — spoken, typed and
//! push-to-talk turns, seeded barge-ins while the assistant thinks and while it speaks, and
//! resets — checking that every turn ends, that memory and threads stay flat, and that the
//! model's history holds exactly what was heard. `pocket soak` and `pipeline/tests/soak.rs`
//! run it on the real default engines.

pub mod clips;
mod plan;
mod probe;
mod rig;

use std::collections::{HashMap, VecDeque};
use std::fmt::Write as _;
use std::time::{Duration, Instant};

use pocket_llm::chat::Role;
use serde::Serialize;

use crate::handle::{MicSender, PipelineHandle};
use crate::metrics::TurnRecord;
use crate::types::{Event, InterruptCause, InterruptedWhile, Stamped, TurnId};
use plan::{Barge, Input, Step};
pub use probe::{HistoryProbe, HistorySnapshot, record_history, rss_kb, thread_count};
pub use rig::FastRig;

/// How a soak run goes.
#[derive(Debug, Clone)]
pub struct SoakOptions {
    /// User turns to take (each a spoken, typed or push-to-talk input).
    pub turns: usize,
    /// Seeds the plan: which input, which barge-in, where the resets fall.
    pub seed: u64,
    /// A turn that has not ended after this long is stuck: the run stops and says where.
    pub turn_timeout: Duration,
    /// Memory and threads are compared from this turn on (engines warm up before it).
    pub steady_from: usize,
    /// Also cut replies off with typed turns (a typed turn supersedes the reply in progress).
    pub typed_barge_ins: bool,
}

impl Default for SoakOptions {
    fn default() -> Self {
        Self {
            turns: 200,
            seed: 1,
            turn_timeout: Duration::from_secs(60),
            steady_from: 20,
            typed_barge_ins: false,
        }
    }
}

/// Largest growth of resident memory from `steady_from` to the end.
pub const RSS_TOLERANCE: f64 = 0.05;

/// Resident memory is compared as the lowest of this many turns' figures (from
/// `steady_from`, and the last ones): a figure taken while a synthesis run's tensors are
/// live (a cut reply's sentence still finishing, the next turn's reply starting) is up to
/// ~100 MB over the floor for that moment only; a leak raises every figure, the floor too.
pub const RSS_WINDOW: usize = 10;

/// What a soak run did and saw.
#[derive(Debug, Clone, Default, Serialize)]
pub struct SoakReport {
    pub seed: u64,
    /// Inputs taken.
    pub turns: usize,
    pub spoken: usize,
    pub typed: usize,
    pub push_to_talk: usize,
    /// `PipelineHandle::reset` between turns, and while a reply played.
    pub resets: usize,
    pub resets_while_speaking: usize,
    /// Turns whose reply played to the end.
    pub answered: usize,
    /// Turns with a reply that had nothing to say.
    pub silent: usize,
    /// Inputs with no turn: the detector heard no speech, or the transcript was empty.
    pub no_speech: usize,
    pub empty_transcript: usize,
    /// Barge-ins planned, by the state they aimed at.
    pub planned_thinking: usize,
    pub planned_speaking: usize,
    /// Replies the user cut off (speech or push-to-talk), by where the reply was.
    pub barge_ins_thinking: usize,
    pub barge_ins_speaking: usize,
    /// Replies cut off by a newer typed turn.
    pub superseded: usize,
    /// Planned barge-ins that came after the reply had ended.
    pub barge_ins_missed: usize,
    /// Words the user heard of the replies cut off while speaking.
    pub heard_words: usize,
    /// Replies ended because the output was declared lost (the soak's sink never stalls, so
    /// any is a failure).
    pub outputs_lost: usize,
    /// Resident memory (KiB) and threads after each turn.
    pub rss_kb: Vec<u64>,
    pub threads: Vec<usize>,
    pub steady_from: usize,
    /// Times the history was compared with what was heard, and the differences found.
    pub history_checks: usize,
    pub history_mismatches: Vec<String>,
    /// `Error` events of the pipeline.
    pub errors: Vec<String>,
    /// Where the run stopped, if a turn did not end.
    pub stuck: Option<String>,
    pub wall_s: f64,
}

impl SoakReport {
    /// Resident memory after `turn` (1-based).
    pub fn rss_after(&self, turn: usize) -> Option<u64> {
        turn.checked_sub(1)
            .and_then(|i| self.rss_kb.get(i))
            .copied()
    }

    /// The lowest resident memory of the `RSS_WINDOW` turns from `turn` (1-based) on, or of
    /// the last ones with `None`; `None` when the run has no such turns.
    pub fn rss_floor(&self, turn: Option<usize>) -> Option<u64> {
        let n = self.rss_kb.len();
        let from = match turn {
            Some(t) => t.checked_sub(1)?,
            None => n.checked_sub(RSS_WINDOW)?,
        };
        self.rss_kb
            .get(from..(from + RSS_WINDOW).min(n))?
            .iter()
            .min()
            .copied()
    }

    /// Threads after `turn` (1-based).
    pub fn threads_after(&self, turn: usize) -> Option<usize> {
        turn.checked_sub(1)
            .and_then(|i| self.threads.get(i))
            .copied()
    }

    /// Smallest and largest thread count from `steady_from` on.
    pub fn steady_threads(&self) -> Option<(usize, usize)> {
        let steady = self.threads.get(self.steady_from.saturating_sub(1)..)?;
        Some((*steady.iter().min()?, *steady.iter().max()?))
    }

    /// Everything that makes the run a failure (empty = passed).
    pub fn failures(&self) -> Vec<String> {
        let mut f = Vec::new();
        if let Some(s) = &self.stuck {
            f.push(format!("stuck: {s}"));
        }
        for e in &self.errors {
            f.push(format!("pipeline error: {e}"));
        }
        for m in &self.history_mismatches {
            f.push(format!("history: {m}"));
        }
        if self.outputs_lost > 0 {
            f.push(format!(
                "{} replies ended as if the output were lost",
                self.outputs_lost
            ));
        }
        if let (Some(start), Some(end)) =
            (self.rss_floor(Some(self.steady_from)), self.rss_floor(None))
            && self.turns >= self.steady_from + 2 * RSS_WINDOW
        {
            let change = (end as f64 - start as f64) / start as f64;
            // Growth is a leak; memory handed back to the system (pages the kernel or the
            // allocator reclaimed from the warm-up's peak) is not (a CI run fell 5.1%).
            if change > RSS_TOLERANCE {
                f.push(format!(
                    "resident memory (lowest of {RSS_WINDOW} turns) {} KiB at the end vs {} KiB from turn {} ({:+.1}%)",
                    end,
                    start,
                    self.steady_from,
                    change * 100.0
                ));
            }
        }
        if let Some((lo, hi)) = self.steady_threads()
            && lo != hi
        {
            f.push(format!(
                "thread count moved between {lo} and {hi} after turn {}",
                self.steady_from
            ));
        }
        f
    }

    /// A Markdown table of the run's figures.
    pub fn table(&self) -> String {
        let mb =
            |kb: Option<u64>| kb.map_or("-".into(), |k| format!("{:.1} MB", k as f64 / 1024.0));
        let threads = self
            .steady_threads()
            .map_or("-".into(), |(lo, hi)| format!("{lo}..{hi}"));
        let rows = [
            ("turns (seed)", format!("{} ({})", self.turns, self.seed)),
            (
                "spoken / typed / push-to-talk",
                format!("{} / {} / {}", self.spoken, self.typed, self.push_to_talk),
            ),
            (
                "answered / cut off / silent / no turn",
                format!(
                    "{} / {} / {} / {}",
                    self.answered,
                    self.barge_ins_thinking + self.barge_ins_speaking + self.superseded,
                    self.silent,
                    self.no_speech + self.empty_transcript
                ),
            ),
            (
                "barge-ins thinking / speaking (planned)",
                format!(
                    "{} / {} ({} / {}; {} came after the reply)",
                    self.barge_ins_thinking,
                    self.barge_ins_speaking,
                    self.planned_thinking,
                    self.planned_speaking,
                    self.barge_ins_missed
                ),
            ),
            ("superseded by typed turns", self.superseded.to_string()),
            (
                "resets (while speaking)",
                format!("{} ({})", self.resets, self.resets_while_speaking),
            ),
            (
                format!("RSS after turn {}", self.steady_from).leak(),
                mb(self.rss_after(self.steady_from)),
            ),
            ("RSS at the end", mb(self.rss_kb.last().copied())),
            (
                format!(
                    "RSS floor (lowest of {RSS_WINDOW} turns) from turn {} / at the end",
                    self.steady_from
                )
                .leak(),
                format!(
                    "{} / {}",
                    mb(self.rss_floor(Some(self.steady_from))),
                    mb(self.rss_floor(None))
                ),
            ),
            (
                format!(
                    "threads after turn {} / min..max from then",
                    self.steady_from
                )
                .leak(),
                format!(
                    "{} / {threads}",
                    self.threads_after(self.steady_from)
                        .map_or("-".into(), |t| t.to_string())
                ),
            ),
            (
                "history checks (mismatches)",
                format!(
                    "{} ({})",
                    self.history_checks,
                    self.history_mismatches.len()
                ),
            ),
            ("stuck turns", usize::from(self.stuck.is_some()).to_string()),
            ("wall time", format!("{:.0} s", self.wall_s)),
        ];
        let mut out = String::from("| figure | value |\n|---|---|\n");
        for (k, v) in rows {
            let _ = writeln!(out, "| {k} | {v} |");
        }
        out
    }
}

/// One exchange the history should hold: the user's words and what they heard of the reply.
#[derive(Debug, Clone)]
struct Exchange {
    user: String,
    assistant: String,
    /// Cut off before any audio: the model may have kept it (with no reply) or never run it.
    optional: bool,
}

/// Runs `opts.turns` turns on a running pipeline whose chat engine `history` watches (see
/// [`record_history`]) and whose output is drained at fast pace. `clips` are 16 kHz spoken
/// questions and `texts` the same questions typed; turn `i` uses entry `i % len`. `on_turn`
/// sees the report after every turn (progress).
pub fn run(
    handle: &PipelineHandle,
    mic: &mut MicSender,
    history: &HistoryProbe,
    clips: &[Vec<f32>],
    texts: &[String],
    opts: &SoakOptions,
    on_turn: &mut dyn FnMut(&SoakReport),
) -> SoakReport {
    let started = Instant::now();
    let mut d = Driver {
        handle,
        events: handle.subscribe(),
        mic,
        history,
        recent: VecDeque::new(),
        finals: VecDeque::new(),
        speech_started: 0,
        audio_started: None,
        cuts: HashMap::new(),
        silence_owed: 0,
        input_mark: 0,
        since_input: Instant::now(),
        errors: Vec::new(),
        stopped: false,
        rng: pocket_stats::Rng::new(opts.seed),
    };
    let mut report = SoakReport {
        seed: opts.seed,
        steady_from: opts.steady_from,
        ..SoakReport::default()
    };
    if clips.is_empty() || texts.is_empty() {
        report.stuck = Some("no questions to ask".into());
        return report;
    }
    let steps = plan::plan(opts);
    let mut expected: Vec<Exchange> = Vec::new();
    let mut next_started = false;
    let mut ordinal = 0usize;
    for (i, step) in steps.iter().enumerate() {
        let r = d.turn(
            i,
            step,
            steps.get(i + 1),
            next_started,
            clips,
            texts,
            opts,
            &mut ordinal,
            &mut expected,
            &mut report,
        );
        match r {
            Ok(started_next) => next_started = started_next,
            Err(stuck) => {
                report.stuck = Some(stuck);
                break;
            }
        }
        report.turns = i + 1;
        report.rss_kb.push(rss_kb().unwrap_or(0));
        report.threads.push(thread_count().unwrap_or(0));
        report.wall_s = started.elapsed().as_secs_f64();
        on_turn(&report);
    }
    d.drain();
    report.errors.append(&mut d.take_errors());
    report.wall_s = started.elapsed().as_secs_f64();
    report
}

/// 10 ms of silence at 16 kHz.
const SILENCE: [f32; 160] = [0.0; 160];
/// Silence after a spoken input: the endpoint's wait (400 ms) and then some.
const TRAILING_FRAMES: u32 = 100;
/// How long a spoken input may go without its speech being detected.
const NO_SPEECH_AFTER: Duration = Duration::from_millis(1500);
/// How long the history may take to reflect a settled turn (the truncation is a message).
const HISTORY_SETTLES: Duration = Duration::from_secs(5);

struct Driver<'a> {
    handle: &'a PipelineHandle,
    events: crossbeam_channel::Receiver<Stamped>,
    mic: &'a mut MicSender,
    history: &'a HistoryProbe,
    /// The latest events, for the description of a stuck turn.
    recent: VecDeque<String>,
    /// Final transcripts not yet matched to an input.
    finals: VecDeque<(String, Option<TurnId>)>,
    speech_started: u64,
    audio_started: Option<TurnId>,
    cuts: HashMap<TurnId, (InterruptedWhile, InterruptCause, String)>,
    silence_owed: u32,
    /// `speech_started` when the current input began, and when.
    input_mark: u64,
    since_input: Instant,
    errors: Vec<String>,
    stopped: bool,
    rng: pocket_stats::Rng,
}

impl Driver<'_> {
    /// Takes step `i`: its input (unless a barge-in already started it), its turn to the
    /// end, the history check. `Ok(true)` when the next step's input has started (a
    /// barge-in); `Err` describes a stuck turn.
    #[allow(clippy::too_many_arguments)]
    fn turn(
        &mut self,
        i: usize,
        step: &Step,
        next: Option<&Step>,
        already_started: bool,
        clips: &[Vec<f32>],
        texts: &[String],
        opts: &SoakOptions,
        ordinal: &mut usize,
        expected: &mut Vec<Exchange>,
        report: &mut SoakReport,
    ) -> Result<bool, String> {
        let timeout = opts.turn_timeout;
        if !already_started {
            if step.reset_before {
                self.reset(expected, timeout)?;
                report.resets += 1;
            }
            self.start(step.input, i, clips, texts, timeout)?;
        }
        match step.input {
            Input::Spoken => report.spoken += 1,
            Input::Typed => report.typed += 1,
            Input::PushToTalk => report.push_to_talk += 1,
        }
        match step.barge {
            Barge::Thinking => report.planned_thinking += 1,
            Barge::Speaking => report.planned_speaking += 1,
            _ => {}
        }

        // The input's transcript: a turn, or nothing heard.
        let what = format!("step {}: the transcript of a {:?} input", i + 1, step.input);
        self.wait(&what, timeout, |d| {
            !d.finals.is_empty()
                || (d.speech_started == d.input_mark
                    && d.silence_owed == 0
                    && step.input == Input::Spoken
                    && d.since_input.elapsed() > NO_SPEECH_AFTER)
        })?;
        let Some((_, turn)) = self.finals.pop_front() else {
            report.no_speech += 1;
            return Ok(false);
        };
        let Some(id) = turn else {
            report.empty_transcript += 1;
            return Ok(false);
        };
        *ordinal += 1;
        let ordinal = *ordinal;

        // The barge-in, if one is planned and there is a next input to cut in with.
        let mut started_next = false;
        let mut reset_during = false;
        let ended = |d: &mut Self| d.handle.records_since(ordinal - 1).first().cloned();
        match (step.barge, next) {
            (Barge::Thinking, Some(n)) => {
                self.start(n.input, i + 1, clips, texts, timeout)?;
                started_next = true;
            }
            (Barge::Speaking | Barge::ResetWhileSpeaking, _) => {
                let what = format!("{}: audio starts or the turn ends", id);
                self.wait(&what, timeout, |d| {
                    d.audio_started == Some(id) || ended(d).is_some()
                })?;
                if ended(self).is_none() {
                    // Cut in a little later each time, so a varying part has been heard.
                    let until = Instant::now() + Duration::from_millis(self.rng.below(150) as u64);
                    self.wait("a pause", timeout, |d| {
                        Instant::now() >= until || ended(d).is_some()
                    })?;
                    match (step.barge, next) {
                        (Barge::ResetWhileSpeaking, _) => {
                            self.handle.reset();
                            reset_during = true;
                            report.resets += 1;
                            report.resets_while_speaking += 1;
                        }
                        (_, Some(n)) => {
                            self.start(n.input, i + 1, clips, texts, timeout)?;
                            started_next = true;
                        }
                        _ => {}
                    }
                }
            }
            _ => {}
        }

        // The turn ends: its record is the settled truth (heard set if it was cut off).
        let what = format!("{id} ends (audio finished, nothing to say, or cut settled)");
        self.wait(&what, timeout, |d| ended(d).is_some())?;
        let rec = ended(self).ok_or_else(|| format!("{id}: its record vanished"))?;
        self.drain();
        self.settle(id, step, &rec, report);
        if reset_during {
            // Whether the reset cut the reply or came just after it, the chat forgot it.
            expected.clear();
        } else {
            let optional = rec.heard.is_some() && rec.metrics.first_audio.is_none();
            expected.push(Exchange {
                user: rec.user_text.clone(),
                assistant: rec.heard.clone().unwrap_or_else(|| rec.reply_text.clone()),
                optional,
            });
        }
        if !started_next {
            // Nothing else is in flight: the history must settle to what was heard.
            report.history_checks += 1;
            if let Err(m) = self.check_history(expected) {
                report
                    .history_mismatches
                    .push(format!("after step {} ({id}): {m}", i + 1));
            }
        }
        Ok(started_next)
    }

    /// Counts how the turn ended.
    fn settle(&mut self, id: TurnId, step: &Step, rec: &TurnRecord, report: &mut SoakReport) {
        match (&rec.heard, self.cuts.remove(&id)) {
            (Some(heard), Some((during, cause, _))) => {
                match (cause, during) {
                    (InterruptCause::UserSpeech, InterruptedWhile::Thinking) => {
                        report.barge_ins_thinking += 1
                    }
                    (InterruptCause::UserSpeech, InterruptedWhile::Speaking) => {
                        report.barge_ins_speaking += 1
                    }
                    (InterruptCause::Superseded, _) => report.superseded += 1,
                    (InterruptCause::StopRequested, _) => {}
                    (InterruptCause::OutputLost, _) => report.outputs_lost += 1,
                    (InterruptCause::Continued, _) => {}
                }
                report.heard_words += heard.split_whitespace().count();
            }
            (Some(_), None) => report.history_mismatches.push(format!(
                "{id} was recorded as cut off without an Interrupted event"
            )),
            (None, _) => {
                if rec.metrics.first_audio.is_some() {
                    report.answered += 1;
                } else {
                    report.silent += 1;
                }
                if step.barge != Barge::None {
                    report.barge_ins_missed += 1;
                }
            }
        }
    }

    /// Starts an input of `kind` with question `i`.
    fn start(
        &mut self,
        kind: Input,
        i: usize,
        clips: &[Vec<f32>],
        texts: &[String],
        timeout: Duration,
    ) -> Result<(), String> {
        self.input_mark = self.speech_started;
        self.since_input = Instant::now();
        let clip = &clips[i % clips.len()];
        match kind {
            Input::Typed => self.handle.say(&texts[i % texts.len()]),
            Input::Spoken => {
                self.push(clip);
                self.silence_owed = TRAILING_FRAMES;
            }
            Input::PushToTalk => {
                self.silence_owed = 0;
                self.handle.push_to_talk(true);
                let mark = self.speech_started;
                self.wait("push-to-talk opens an utterance", timeout, |d| {
                    d.speech_started > mark
                })?;
                self.push(clip);
                for _ in 0..20 {
                    self.push(&SILENCE);
                }
                // Releasing is a control message: it must not overtake the audio.
                self.wait("capture takes the push-to-talk audio", timeout, |d| {
                    d.mic.queued_frames() == 0
                })?;
                self.handle.push_to_talk(false);
            }
        }
        if self.stopped {
            return Err("the pipeline stopped taking microphone audio".into());
        }
        Ok(())
    }

    /// Resets between turns and waits for the model to forget.
    fn reset(&mut self, expected: &mut Vec<Exchange>, timeout: Duration) -> Result<(), String> {
        let before = self.history.snapshot().version;
        self.handle.reset();
        expected.clear();
        self.wait("the chat forgets after a reset", timeout, |d| {
            let s = d.history.snapshot();
            s.version > before && s.messages.is_empty()
        })
    }

    /// Waits until the history holds the newest exchanges of `expected`, exactly.
    fn check_history(&mut self, expected: &[Exchange]) -> Result<(), String> {
        let until = Instant::now() + HISTORY_SETTLES;
        loop {
            let snap = self.history.snapshot();
            let r = history_matches(&snap.messages, expected);
            if r.is_ok() || Instant::now() >= until {
                return r;
            }
            self.pump(Duration::from_millis(5));
        }
    }

    fn push(&mut self, samples: &[f32]) {
        if !self.mic.push_blocking(samples) {
            self.stopped = true;
        }
    }

    /// Feeds owed silence (10 ms) or waits up to `wait` for an event; takes every event
    /// that is there.
    fn pump(&mut self, wait: Duration) {
        if self.silence_owed > 0 && !self.stopped {
            self.silence_owed -= 1;
            self.push(&SILENCE);
        } else if let Ok(e) = self.events.recv_timeout(wait) {
            self.on_event(e);
        }
        self.drain();
    }

    fn drain(&mut self) {
        while let Ok(e) = self.events.try_recv() {
            self.on_event(e);
        }
    }

    fn on_event(&mut self, e: Stamped) {
        let line = match &e.event {
            Event::AssistantText { .. } | Event::PartialTranscript { .. } => None,
            ev => Some(format!("{:>9.0} ms {ev:?}", e.at_ms)),
        };
        if let Some(line) = line {
            if self.recent.len() == 40 {
                self.recent.pop_front();
            }
            self.recent.push_back(line);
        }
        match e.event {
            Event::SpeechStarted => self.speech_started += 1,
            Event::FinalTranscript { text, turn } => self.finals.push_back((text, turn)),
            Event::AudioStarted { turn } => self.audio_started = Some(turn),
            Event::Interrupted {
                turn,
                heard,
                during,
                cause,
            } => {
                self.cuts.insert(turn, (during, cause, heard));
            }
            Event::Error { message } => self.errors.push(message),
            _ => {}
        }
    }

    fn take_errors(&mut self) -> Vec<String> {
        std::mem::take(&mut self.errors)
    }

    /// Pumps until `done`, or describes where the loop is after `timeout`.
    fn wait(
        &mut self,
        what: &str,
        timeout: Duration,
        mut done: impl FnMut(&mut Self) -> bool,
    ) -> Result<(), String> {
        let start = Instant::now();
        loop {
            if done(self) {
                return Ok(());
            }
            if self.stopped {
                return Err(format!("{what}: the pipeline stopped"));
            }
            if start.elapsed() > timeout {
                return Err(self.describe(what, timeout));
            }
            self.pump(Duration::from_millis(5));
        }
    }

    /// Where the loop is: for a stuck turn's failure message.
    fn describe(&self, what: &str, timeout: Duration) -> String {
        let snap = self.history.snapshot();
        let mut s = format!(
            "{what}: not within {} s. State {:?}; {} turns recorded; playing {:?}; \
             microphone frames queued {} (dropped {}); history (v{}) {:?}; last events:",
            timeout.as_secs(),
            self.handle.state(),
            self.handle.recorded(),
            self.handle.spoken(),
            self.mic.queued_frames(),
            self.mic.dropped_frames(),
            snap.version,
            snap.messages
                .iter()
                .map(|m| format!("{}: {}", m.role.as_str(), m.content))
                .collect::<Vec<_>>(),
        );
        for l in &self.recent {
            let _ = write!(s, "\n  {l}");
        }
        s
    }
}

/// Whether `history` (user/assistant messages) holds the newest exchanges of `expected`,
/// exactly and in order, the newest one included (optional exchanges may be missing).
fn history_matches(
    history: &[pocket_llm::chat::Message],
    expected: &[Exchange],
) -> Result<(), String> {
    let pairs: Vec<(&str, &str)> = history
        .chunks(2)
        .map(|c| match c {
            [u, a] if u.role == Role::User && a.role == Role::Assistant => {
                Ok((u.content.trim(), a.content.trim()))
            }
            _ => Err(format!("history is not user/assistant pairs: {c:?}")),
        })
        .collect::<Result<_, _>>()?;
    let mut e = expected.len();
    for (user, assistant) in pairs.iter().rev() {
        loop {
            let Some(x) = e.checked_sub(1).map(|k| &expected[k]) else {
                return Err(format!(
                    "history holds ({user:?}, {assistant:?}), which is not an exchange since the last reset"
                ));
            };
            e -= 1;
            if x.user.trim() == *user && x.assistant.trim() == *assistant {
                break;
            }
            if !x.optional {
                return Err(format!(
                    "history holds ({user:?}, {assistant:?}) where the user said {:?} and heard {:?}",
                    x.user, x.assistant
                ));
            }
        }
    }
    if pairs.is_empty()
        && let Some(x) = expected.iter().rev().find(|x| !x.optional)
    {
        return Err(format!(
            "history is empty; it should end with ({:?}, {:?})",
            x.user, x.assistant
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests;

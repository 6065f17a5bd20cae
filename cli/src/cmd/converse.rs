//! `pocket converse`: input WAV files played as the microphone (one user turn per file) through
//! the whole voice loop on the default models; writes what the assistant said and the latency
//! report.

use anyhow::{Context, Result};
use clap::{Args, ValueEnum};
use pocket_assets::Store;
use pocket_llm::chat::HistoryPolicy;
use pocket_pipeline::audio::file::{
    ClipEnd, ClipTurn, FileSink, Pace, TurnOutcome, converse_timed,
};
use pocket_pipeline::audio::wav;
use pocket_pipeline::engines::choice::default_model;
use pocket_pipeline::engines::default::{EngineOptions, load_default};
use pocket_pipeline::{Event, Pipeline, PipelineConfig, Report, Stamped};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum PaceArg {
    /// Inputs and output at real-time pace (honest latencies).
    Realtime,
    /// As fast as the engines go (quick checks; latencies compressed).
    Fast,
}

#[derive(Args)]
pub struct ConverseArgs {
    /// A user turn (WAV, any rate); repeat for more turns.
    #[arg(long = "input", required = true)]
    pub inputs: Vec<PathBuf>,
    /// Where to write what the assistant said (WAV).
    #[arg(long)]
    pub output: PathBuf,
    /// Where to write the latency report (JSON).
    #[arg(long)]
    pub report: Option<PathBuf>,
    #[arg(long, value_enum, default_value = "realtime")]
    pub pace: PaceArg,
    /// Compute threads per engine.
    #[arg(long, default_value_t = 2)]
    pub threads: usize,
    /// Print nothing but errors.
    #[arg(long)]
    pub quiet: bool,
    /// While synthesis runs with under 1.5 s of reply audio queued (always before the first
    /// chunk), the LLM pauses, up to this long per wait, so it does not starve synthesis on
    /// few cores (0 = never pause).
    #[arg(long, default_value_t = 1500)]
    pub first_audio_gate_ms: u64,
    /// Silence that ends a user turn in `--endpoint fixed` (raise it for clips with long
    /// pauses).
    #[arg(long, default_value_t = 400)]
    pub end_silence_ms: u64,
    #[command(flatten)]
    pub endpoint: EndpointChoice,
    #[command(flatten)]
    pub chat: ChatChoice,
}

/// How turns end, shared by `converse` and `talk`.
#[derive(Args, Clone, Debug)]
pub struct EndpointChoice {
    /// How the end of a turn is decided: `fixed` (a silence of --end-silence-ms), `smart`
    /// (the end-of-turn classifier on the audio, after a short pause; the fixed silence if its
    /// model is not installed) or `semantic` (the language model judges the words heard at
    /// each pause: a whole sentence ends the turn after 150 ms, an unfinished one waits up to
    /// the fallback).
    #[arg(long = "endpoint", default_value = "semantic")]
    pub mode: pocket_pipeline::EndpointMode,
    /// Smart: P(complete) at which a pause ends the turn.
    #[arg(long, default_value_t = 0.5)]
    pub turn_threshold: f32,
    /// Smart: silence at which the classifier's answer is used.
    #[arg(long, default_value_t = 200)]
    pub turn_decide_ms: u64,
    /// Smart and semantic: silence that ends the turn even when the words or the classifier
    /// say it is not complete (default 1200 ms).
    #[arg(long)]
    pub turn_fallback_ms: Option<u64>,
    /// Semantic: the language model's P(whole turn) at which the words end the turn.
    #[arg(long, default_value_t = pocket_pipeline::SemanticEndpoint::default().threshold)]
    pub text_threshold: f32,
    /// Semantic: the recognizer's probability of the last word under which the words do not
    /// end the turn early (a word it may have invented to finish a fragment); 0 turns the
    /// check off.
    #[arg(long, default_value_t = pocket_pipeline::SemanticEndpoint::default().min_last_word_p)]
    pub min_last_word_p: f32,
    /// Semantic: words written as a question ("...?") with P(whole turn) at least this (but
    /// under --text-threshold) end the turn after --question-wait-ms (1 turns this off).
    #[arg(long, default_value_t = pocket_pipeline::SemanticEndpoint::default().question_threshold)]
    pub question_threshold: f32,
    /// Semantic: the silence after which such a question ends the turn.
    #[arg(long, default_value_t = pocket_pipeline::SemanticEndpoint::default().question_wait.as_millis() as u64)]
    pub question_wait_ms: u64,
    /// Start the reply only once the turn has ended. By default it starts during the
    /// end-of-speech wait from the early transcript, held silent, and plays at the endpoint
    /// (thrown away unheard if the user goes on).
    #[arg(long)]
    pub no_speculate: bool,
}

impl Default for EndpointChoice {
    fn default() -> Self {
        let smart = pocket_pipeline::SmartEndpoint::default();
        Self {
            mode: pocket_pipeline::EndpointMode::default(),
            turn_threshold: smart.threshold,
            turn_decide_ms: smart.decide_after.as_millis() as u64,
            turn_fallback_ms: None,
            text_threshold: pocket_pipeline::SemanticEndpoint::default().threshold,
            min_last_word_p: pocket_pipeline::SemanticEndpoint::default().min_last_word_p,
            question_threshold: pocket_pipeline::SemanticEndpoint::default().question_threshold,
            question_wait_ms: pocket_pipeline::SemanticEndpoint::default()
                .question_wait
                .as_millis() as u64,
            no_speculate: false,
        }
    }
}

impl EndpointChoice {
    /// The endpointer settings for this choice and the fixed rule's `end_silence_ms`.
    pub fn config(&self, end_silence_ms: u64) -> pocket_pipeline::EndpointConfig {
        let defaults = pocket_pipeline::EndpointConfig::default();
        pocket_pipeline::EndpointConfig {
            end_silence: Duration::from_millis(end_silence_ms),
            mode: self.mode,
            smart: pocket_pipeline::SmartEndpoint {
                ask_after: defaults
                    .smart
                    .ask_after
                    .min(Duration::from_millis(self.turn_decide_ms)),
                decide_after: Duration::from_millis(self.turn_decide_ms),
                threshold: self.turn_threshold,
                fallback: self
                    .turn_fallback_ms
                    .map_or(defaults.smart.fallback, Duration::from_millis),
            },
            semantic: pocket_pipeline::SemanticEndpoint {
                threshold: self.text_threshold,
                min_last_word_p: self.min_last_word_p,
                question_threshold: self.question_threshold,
                question_wait: Duration::from_millis(self.question_wait_ms),
                fallback: self
                    .turn_fallback_ms
                    .map_or(defaults.semantic.fallback, Duration::from_millis),
                ..defaults.semantic
            },
            ..defaults
        }
    }

    /// Whether the classifier is worth loading.
    pub fn wants_classifier(&self) -> bool {
        self.mode == pocket_pipeline::EndpointMode::Smart
    }

    /// Whether this mode judges the words (a small model may then do it beside a large one).
    pub fn judges_words(&self) -> bool {
        self.mode == pocket_pipeline::EndpointMode::Semantic
    }
}

/// The chat model and its history policy, shared by `converse`, `talk` and `demo`.
#[derive(Args, Clone, Debug)]
pub struct ChatChoice {
    /// The language model: an asset id (smollm2-135m-instruct-q4_1, qwen2.5-coder-0.5b-instruct,
    /// qwen2.5-coder-1.5b-instruct-q4_k_m) or the path of a GGUF file (llama, qwen2 or qwen3).
    /// Default: the 1.5B where the machine has the memory and its file is installed, else
    /// SmolLM2 (docs/PERFORMANCE.md, "Which model answers").
    #[arg(long)]
    pub model: Option<String>,
    /// Which earlier turns the model sees: all (that fit), last:N exchanges, tokens:N.
    #[arg(long)]
    pub history: Option<HistoryPolicy>,
    /// Replace the voice system prompt (for tuning).
    #[arg(long)]
    pub system_prompt: Option<String>,
    /// Replace the repetition penalty (1 = none; for tuning).
    #[arg(long)]
    pub repeat_penalty: Option<f32>,
    /// A reply never repeats a run of this many tokens from the reply before it (0 = off).
    #[arg(long)]
    pub avoid_copy_ngram: Option<usize>,
    /// Hypotheses of the recognizer's beam search for final transcripts (1 = greedy).
    #[arg(long, default_value_t = pocket_asr::RecognizerConfig::default().beam_size)]
    pub asr_beam: usize,
    /// Beam-search a final transcript only when greedy decoding heard a token with less than
    /// this probability (1 = always, 0 = never).
    #[arg(long, default_value_t = pocket_asr::RecognizerConfig::default().beam_below_p)]
    pub asr_beam_below: f32,
}

impl ChatChoice {
    /// The model asked for, or the device's default (saying so when the rule's choice is not
    /// installed).
    pub fn model_id(&self, store: &Store) -> String {
        if let Some(m) = &self.model {
            return m.clone();
        }
        let choice = default_model(store);
        if let Some(note) = choice.note {
            eprintln!("note: {note}");
        }
        choice.model.to_string()
    }

    /// Engine options for this choice (the rest default).
    pub fn engine_options(&self, store: &Store, threads: usize, realtime: bool) -> EngineOptions {
        let mut opts = EngineOptions {
            threads,
            realtime,
            model: self.model_id(store),
            asr_search: pocket_asr::Search {
                beam: self.asr_beam,
                greedy_min_p: self.asr_beam_below,
            },
            ..EngineOptions::default()
        };
        if let Some(h) = self.history {
            opts.chat.history = h;
        }
        if let Some(p) = &self.system_prompt {
            opts.chat.system_prompt.clone_from(p);
        }
        if let Some(r) = self.repeat_penalty {
            opts.chat.sampler.repeat_penalty = r;
        }
        if let Some(n) = self.avoid_copy_ngram {
            opts.chat.avoid_copy_ngram = n;
        }
        opts
    }
}

pub fn run(args: ConverseArgs) -> Result<()> {
    let store = Store::open_default()?;
    let report = run_with(&store, &args)?;
    if !args.quiet {
        print_summary(&report);
    }
    Ok(())
}

/// Runs the conversation; also used by `pocket demo`.
pub fn run_with(store: &Store, args: &ConverseArgs) -> Result<Report> {
    let pace = match args.pace {
        PaceArg::Realtime => Pace::Realtime,
        PaceArg::Fast => Pace::Fast,
    };
    let clips = args
        .inputs
        .iter()
        .map(|p| wav::read_mono(p, 16_000).with_context(|| format!("reading {}", p.display())))
        .collect::<Result<Vec<_>>>()?;
    let mut opts = args
        .chat
        .engine_options(store, args.threads, pace == Pace::Realtime);
    opts.turn_classifier = args.endpoint.wants_classifier();
    opts.words_judge = args.endpoint.judges_words();
    let loaded = load_default(store, &opts)?;
    for w in &loaded.warnings {
        eprintln!("note: {w}");
    }
    let config = PipelineConfig {
        output_rate: loaded.voice_rate,
        // Files have no acoustic echo path.
        echo_cancel: false,
        first_audio_gate: (args.first_audio_gate_ms > 0)
            .then(|| Duration::from_millis(args.first_audio_gate_ms)),
        endpoint: args.endpoint.config(args.end_silence_ms),
        speculative_reply: !args.endpoint.no_speculate,
        // A finite run: the report lists every turn.
        kept_records: usize::MAX,
        ..PipelineConfig::default()
    };
    let (pipeline, ports) = Pipeline::start(loaded.engines, config)?;
    let handle = pipeline.handle();
    let events = handle.subscribe();
    let quiet = args.quiet;
    let printer = std::thread::spawn(move || {
        for e in events.iter() {
            if !quiet {
                print_event(&e);
            }
        }
    });
    let rate = ports.output_rate;
    let sink = FileSink::spawn(ports.speaker, rate, pace)?;
    let mut mic = ports.mic;
    let timing = (pace, Duration::from_secs(120));
    let outcomes = converse_timed(&mut mic, &handle, &clips, timing, ClipEnd::Natural);
    let said = sink.finish();
    let mut report = handle.report();
    handle.shutdown();
    drop(mic);
    pipeline.shutdown();
    let _ = printer.join();
    let outcomes = outcomes?;
    for (i, o) in outcomes.iter().enumerate() {
        if o.outcome != TurnOutcome::Answered && !quiet {
            eprintln!(
                "turn {}: {:?} ({})",
                i + 1,
                o.outcome,
                args.inputs[i].display()
            );
        }
    }
    if pace == Pace::Realtime {
        let ends: Vec<f64> = outcomes
            .iter()
            .filter_map(|o| o.true_speech_end_ms)
            .collect();
        report.attach_true_speech_ends(&ends);
    }
    wav::write_mono(&args.output, &said, rate)?;
    if let Some(path) = &args.report {
        write_report(path, &report, &args.inputs, &outcomes)?;
    }
    Ok(report)
}

/// The pipeline's report plus `inputs`: each input file, how its turn ended, and (for
/// answered ones, in order) the number of the turn that answered it.
fn write_report(
    path: &Path,
    report: &Report,
    inputs: &[PathBuf],
    outcomes: &[ClipTurn],
) -> Result<()> {
    let mut json = serde_json::to_value(report)?;
    let mut turn = 0u64;
    let rows: Vec<serde_json::Value> = inputs
        .iter()
        .zip(outcomes)
        .map(|(path, o)| {
            let answered = o.outcome == TurnOutcome::Answered;
            turn += u64::from(answered);
            serde_json::json!({
                "path": path.display().to_string(),
                "outcome": format!("{:?}", o.outcome),
                "turn": answered.then_some(turn),
                "true_speech_end_ms": o.true_speech_end_ms,
            })
        })
        .collect();
    json["inputs"] = rows.into();
    let text = serde_json::to_string_pretty(&json)?;
    // A full disk or a crash leaves the previous report whole, never half of this one.
    pocket_assets::write_atomic(path, text.as_bytes()).map_err(|e| {
        anyhow::anyhow!("the latency report was not written, a previous one is kept: {e}")
    })
}

/// Prints one event the way `talk`, `converse` and `demo` show the conversation.
pub fn print_event(e: &Stamped) {
    let mut out = std::io::stdout().lock();
    let _ = match &e.event {
        Event::SpeechStarted => write!(out, "\n[{:>8.0} ms] (you are speaking)", e.at_ms),
        Event::StillListening { p_complete } => write!(
            out,
            " (still listening: done {:.0}%)",
            f64::from(*p_complete) * 100.0
        ),
        Event::FinalTranscript { text, turn } if turn.is_some() => {
            writeln!(out, "\n[{:>8.0} ms] you: {text}", e.at_ms)
        }
        Event::FinalTranscript { .. } => {
            writeln!(out, "[{:>8.0} ms] (nothing understood)", e.at_ms)
        }
        Event::AssistantText { text, .. } => write!(out, "{text}"),
        Event::State { state } if *state == pocket_pipeline::State::Thinking => {
            write!(out, "[{:>8.0} ms] assistant: ", e.at_ms)
        }
        Event::Latency { metrics, .. } => {
            match (metrics.first_audio_latency(), metrics.response_latency()) {
                (Some(f), Some(r)) => {
                    write!(out, " [audio: first-audio {f:.0} ms, response {r:.0} ms] ")
                }
                _ => Ok(()),
            }
        }
        Event::AudioFinished { .. } => writeln!(out),
        Event::Interrupted { heard, .. } => {
            writeln!(
                out,
                "\n[{:>8.0} ms] (interrupted; heard: {heard:?})",
                e.at_ms
            )
        }
        Event::ReplyResumed { said, .. } => {
            write!(out, " (went on after {said:?})")
        }
        Event::DeviceLost { device, message } => writeln!(out, "\n({device} lost: {message})"),
        Event::DeviceRestored { device, name } => writeln!(out, "\n({device} back: {name})"),
        Event::Error { message } => writeln!(out, "\n(error: {message})"),
        _ => Ok(()),
    };
    let _ = out.flush();
}

/// The latency table of a run.
pub fn print_summary(r: &Report) {
    let ahead = r.turns.iter().filter(|t| t.metrics.speculative).count();
    println!(
        "\nturns: {} ({ahead} replies made ahead of the endpoint; their model and synthesis \
         stages come before it and are negative)",
        r.turns.len()
    );
    let p = |name: &str, v: &Option<pocket_pipeline::metrics::Percentiles>| match v {
        Some(p) => println!(
            "{name:<24} P50 {:>7.1} ms   P90 {:>7.1} ms   (n={})",
            p.p50, p.p90, p.n
        ),
        None => println!("{name:<24} -"),
    };
    if r.true_first_audio_latency_ms.is_some() {
        p("first-audio (true end)", &r.true_first_audio_latency_ms);
    }
    p("first-audio latency", &r.first_audio_latency_ms);
    p("response latency", &r.response_latency_ms);
    for (name, v) in &r.stages_ms {
        p(&format!("  stage {name}"), v);
    }
    if r.barge_in_stop_ms.is_some() {
        p("barge-in stop", &r.barge_in_stop_ms);
    }
    if let Some(n) = r.underruns {
        let turns: Vec<String> = r
            .turns
            .iter()
            .filter_map(|t| {
                t.underruns
                    .filter(|&u| u > 0)
                    .map(|u| format!("{}: {u}", t.turn))
            })
            .collect();
        if turns.is_empty() {
            println!("output underruns: {n}");
        } else {
            println!("output underruns: {n} (by turn {})", turns.join(", "));
        }
    }
}

//! `pocket voicebench run`: load a subset/split, take this process's shard and limit, skip
//! what an earlier run already wrote, answer the rest on `--jobs` workers, append one
//! flushed jsonl line per sample.

use std::path::PathBuf;
use std::sync::Arc;

use anyhow::{Context, Result, bail};
use clap::Args;
use pocket_assets::Store;
use pocket_pipeline::audio::file::Pace;
use pocket_pipeline::engines::default::model_file;
use pocket_pipeline::engines::llm::VoiceChatConfig;
use pocket_voicebench::{
    Sample, Shard, append_record, load_split, open_for_resume, output_path, shard_of,
};

use super::audio::{AudioAnswerer, AudioSetup};
use super::progress::Progress;
use super::spec::{ListenFor, Modality, TurnEnd};
use super::text::TextAnswerer;
use super::worker::{Answerer, Factory, run_pool};
use crate::args::{ChatChoiceArgs, EndpointArgs, PaceArg, ms_or_off};

#[derive(Args)]
pub struct RunArgs {
    /// The VoiceBench data: a download of `hlt-lab/voicebench` (parquet) or a folder with
    /// `samples.jsonl`.
    #[arg(long)]
    pub data: PathBuf,
    /// The subset (openbookqa, ifeval, bbh, advbench, mmsu, sd-qa, alpacaeval, ...).
    #[arg(long)]
    pub subset: String,
    #[arg(long, default_value = "test")]
    pub split: String,
    /// Output folder: `<subset>-<split>[.shard-i-of-n].jsonl` (and `audio/`) go here.
    #[arg(long)]
    pub out: PathBuf,
    #[arg(long, value_enum, default_value = "audio")]
    pub modality: Modality,
    /// Audio pace (audio, ttft): realtime gives honest latencies, fast gets through a set
    /// quickly (latencies compressed).
    #[arg(long, value_enum, default_value = "realtime")]
    pub pace: PaceArg,
    /// Run only the first N samples of this shard.
    #[arg(long)]
    pub limit: Option<usize>,
    /// This process's shard `i/n` (samples with index % n == i; i from 0).
    #[arg(long)]
    pub shard: Option<Shard>,
    /// Samples answered at once (each its own chat or voice loop).
    #[arg(long, default_value_t = 1)]
    pub jobs: usize,
    /// Compute threads in all; each job gets max(1, threads / jobs).
    #[arg(long, default_value_t = 2)]
    pub threads: usize,
    /// Save each spoken reply as `OUT/audio/<subset>-<split>-<index>.wav` (audio, ttft).
    #[arg(long)]
    pub save_audio: bool,
    /// Sampler seed (the default greedy decoding does not use it).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// How a sample's turn ends (audio, ttft): `sample` (default) makes the whole sample one
    /// turn, released where its speech ends as push-to-talk would; `natural` leaves it to
    /// the loop's endpointing (`--endpoint`), which may end a turn at a pause inside it.
    #[arg(long, value_enum, default_value = "sample")]
    pub turn: TurnEnd,
    /// What the recognizer expects (audio, ttft): `auto` (default) tells it that a question
    /// with lettered options comes in the multiple-choice subsets (openbookqa, mmsu), so
    /// "B" is written "B." and not "Be"; `plain` uses the voice loop's own prompt everywhere.
    #[arg(long, value_enum, default_value = "auto")]
    pub listen_for: ListenFor,
    /// Silence that ends a user turn in `--endpoint fixed`.
    #[arg(long, default_value_t = 400)]
    pub end_silence_ms: u64,
    #[command(flatten)]
    pub endpoint: EndpointArgs,
    /// The LLM's pause for synthesis before the first chunk (see `pocket converse`).
    #[arg(long, default_value_t = 1500)]
    pub first_audio_gate_ms: u64,
    /// Untimed answers each worker gives first (to this shard's first sample) and throws
    /// away, so cold caches and first-touch page faults stay out of the latency figures; 0
    /// measures from a cold start.
    #[arg(long, default_value_t = 1)]
    pub warmup: usize,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
    #[command(flatten)]
    pub chat: ChatChoiceArgs,
}

/// This process's samples: the shard first, then the limit.
fn select(samples: Vec<Sample>, shard: Option<Shard>, limit: Option<usize>) -> Vec<Sample> {
    samples
        .into_iter()
        .filter(|s| shard.is_none_or(|sh| shard_of(s.sample_key.index, sh.index, sh.count)))
        .take(limit.unwrap_or(usize::MAX))
        .collect()
}

pub fn run(args: RunArgs) -> Result<()> {
    let samples = load_split(&args.data, &args.subset, &args.split)
        .with_context(|| format!("loading {}/{}", args.subset, args.split))?;
    let mine = select(samples, args.shard, args.limit);
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("creating {}", args.out.display()))?;
    let path = output_path(&args.out, &args.subset, &args.split, args.shard);
    let (done, mut file) = open_for_resume(&path)?;
    let todo: Vec<Sample> = mine
        .into_iter()
        .filter(|s| !done.contains(&s.sample_key))
        .collect();
    if !args.quiet {
        eprintln!(
            "{}: {} done before, {} to do ({:?}, {} job(s))",
            path.display(),
            done.len(),
            todo.len(),
            args.modality,
            args.jobs.max(1)
        );
    }
    if todo.is_empty() {
        return Ok(());
    }
    let jobs = args.jobs.clamp(1, todo.len());
    let factory = make_factory(&args, jobs)?;
    let mut progress = Progress::new(todo.len(), !args.quiet);
    let modality = format!("{:?}", args.modality).to_lowercase();
    let warm_up = vec![todo[0].clone(); args.warmup];
    let result = run_pool(todo, warm_up, jobs, factory, |mut record| {
        // Ours, so files of different modalities are not mistaken for one another.
        record
            .extra
            .insert("modality".into(), modality.clone().into());
        append_record(&mut file, &record, &path)?;
        progress.tick();
        Ok(())
    });
    progress.finish();
    result
}

/// The answerer each worker builds: a chat on the shared model (text), or a voice loop.
fn make_factory(args: &RunArgs, jobs: usize) -> Result<Factory> {
    let threads = (args.threads / jobs).max(1);
    let pace = Pace::from(args.pace);
    let store = Store::open_default()?;
    let mut opts = args
        .chat
        .engine_options(&store, threads, pace == Pace::Realtime);
    opts.chat.sampler.seed = args.seed;
    let endpoint = args.endpoint.choice(args.end_silence_ms);
    endpoint.apply_to(&mut opts);
    let subset = pocket_voicebench::Subset::from_name(&args.subset).ok();
    if args.chat.asr_earlier_text.is_some() {
        bail!(
            "voicebench run chooses the recognizer's earlier text with --listen-for, not --asr-earlier-text"
        );
    }
    // The runner's own choice, as measured in docs/VOICEBENCH.md.
    opts.asr_plain_text = args.listen_for.plain_text(subset).to_string();
    match args.modality {
        Modality::Text => {
            if args.save_audio {
                eprintln!("note: --save-audio has no effect in text modality");
            }
            let path = model_file(&store, &opts.model)?;
            let model = pocket_pipeline::engines::llm::load_voice_model(&path)
                .with_context(|| format!("loading {}", path.display()))?;
            let cfg = VoiceChatConfig {
                threads,
                ..opts.chat
            };
            Ok(Arc::new(move |_| {
                let a: Box<dyn Answerer> = Box::new(TextAnswerer::new(model.clone(), cfg.clone())?);
                Ok(a)
            }))
        }
        Modality::Audio | Modality::Ttft => {
            let audio_dir = if args.save_audio {
                let dir = args.out.join("audio");
                std::fs::create_dir_all(&dir)
                    .with_context(|| format!("creating {}", dir.display()))?;
                Some(dir)
            } else {
                None
            };
            let setup = AudioSetup {
                engines: opts,
                pace,
                stop_at_first_audio: args.modality == Modality::Ttft,
                turn: args.turn,
                endpoint: endpoint.config(),
                first_audio_gate: ms_or_off(args.first_audio_gate_ms),
                audio_dir,
            };
            Ok(Arc::new(move |_| {
                let store = Store::open_default()?;
                let a: Box<dyn Answerer> = Box::new(AudioAnswerer::new(&store, setup.clone())?);
                Ok(a)
            }))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pocket_voicebench::SampleKey;

    fn sample(index: u64) -> Sample {
        Sample {
            sample_key: SampleKey {
                subset: "bbh".into(),
                split: "test".into(),
                index,
            },
            ..Default::default()
        }
    }

    #[test]
    fn shard_then_limit() {
        let all: Vec<Sample> = (0..10).map(sample).collect();
        let picked = select(all, Some(Shard { index: 1, count: 3 }), Some(2));
        let idx: Vec<u64> = picked.iter().map(|s| s.sample_key.index).collect();
        assert_eq!(idx, vec![1, 4]);
    }
}

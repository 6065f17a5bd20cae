//! `pocket talk`: live, hands-free conversation on the default microphone and speaker, with
//! barge-in and echo cancellation; the reply text streams as it is generated.

use anyhow::Result;
use clap::Args;
use pocket_assets::Store;
use pocket_pipeline::audio::device::{DeviceAudio, default_output_rate};
use pocket_pipeline::engines::default::load_default;
use pocket_pipeline::{Pipeline, PipelineConfig};
use std::io::BufRead;

use crate::args::{ChatChoiceArgs, EndpointArgs};
use crate::events::print_event;
use crate::summary::print_summary;

#[derive(Args)]
pub struct TalkArgs {
    /// Compute threads per engine.
    #[arg(long, default_value_t = 2)]
    pub threads: usize,
    /// Turn echo cancellation off (headphones).
    #[arg(long)]
    pub no_echo_cancel: bool,
    /// Silence that ends a turn in `--endpoint fixed`.
    #[arg(long, default_value_t = 400)]
    pub end_silence_ms: u64,
    #[command(flatten)]
    pub endpoint: EndpointArgs,
    #[command(flatten)]
    pub chat: ChatChoiceArgs,
}

pub fn run(args: TalkArgs) -> Result<()> {
    let store = Store::open_default()?;
    let mut opts = args.chat.engine_options(&store, args.threads, true);
    let endpoint = args.endpoint.choice(args.end_silence_ms);
    endpoint.apply_to(&mut opts);
    let loaded = load_default(&store, &opts)?;
    for w in &loaded.warnings {
        eprintln!("note: {w}");
    }
    let config = PipelineConfig {
        output_rate: default_output_rate()?,
        echo_cancel: !args.no_echo_cancel,
        endpoint: endpoint.config(),
        speculative_reply: endpoint.speculate,
        ..PipelineConfig::default()
    };
    let (pipeline, ports) = Pipeline::start(loaded.engines, config)?;
    let handle = pipeline.handle();
    let events = handle.subscribe();
    let device = DeviceAudio::start(ports)?;
    println!(
        "Listening on {} → {}. Speak; talk over the reply to interrupt it.\n\
         Enter: stop the reply · q + Enter: quit",
        device.input_name, device.output_name
    );
    let printer = std::thread::spawn(move || {
        for e in events.iter() {
            print_event(&e);
        }
    });
    for line in std::io::stdin().lock().lines() {
        match line?.trim() {
            "q" | "quit" | "exit" => break,
            _ => handle.stop_speaking(),
        }
    }
    let report = handle.report();
    handle.shutdown();
    drop(device);
    pipeline.shutdown();
    let _ = printer.join();
    print_summary(&report);
    Ok(())
}

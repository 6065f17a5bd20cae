//! The latency table printed after `talk`, `converse` and `demo`: turns, first-audio and
//! response percentiles, each stage, barge-in stop time and output underruns.

use pocket_pipeline::Report;

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

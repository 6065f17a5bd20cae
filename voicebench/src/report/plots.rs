//! SVG plots of a score report (plotters' SVG backend: pure Rust, text left to the viewer's
//! fonts, so no system fonts or C libraries are needed): scores per subset, the CDF of
//! first-audio latency, and the mean time of each voice-loop stage.

use std::path::Path;

use plotters::coord::Shift;
use plotters::coord::ranged1d::SegmentedCoord;
use plotters::coord::types::{RangedCoordf64, RangedCoordusize};
use plotters::prelude::*;

use super::{LATENCIES, Report, STAGES};
use crate::error::{Result, VoiceBenchError};
use crate::record::Record;

const SIZE: (u32, u32) = (900, 520);

fn plot_err(e: impl std::fmt::Display) -> VoiceBenchError {
    VoiceBenchError::Plot(e.to_string())
}

type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;

/// Writes the plots that have data into `dir`; returns their file names.
pub fn write_plots(dir: &Path, report: &Report, records: &[Record]) -> Result<Vec<&'static str>> {
    let mut written = Vec::new();
    if report.scores.iter().any(|s| s.score.is_some()) {
        draw(&dir.join("scores.svg"), |root| scores(root, report))?;
        written.push("scores.svg");
    }
    let series = latency_series(records);
    if !series.is_empty() {
        draw(&dir.join("latency_cdf.svg"), |root| {
            latency_cdf(root, &series)
        })?;
        written.push("latency_cdf.svg");
    }
    if !report.stage_means_ms.is_empty() {
        draw(&dir.join("stages.svg"), |root| stages(root, report))?;
        written.push("stages.svg");
    }
    Ok(written)
}

/// A bar chart: one labelled slot per bar on x, `0..y_top` on y.
type BarChart<'a, 'b> =
    ChartContext<'a, SVGBackend<'b>, Cartesian2d<SegmentedCoord<RangedCoordusize>, RangedCoordf64>>;

/// A bar chart with one slot per label and its mesh drawn (no vertical grid lines).
fn bar_chart<'a, 'b>(
    root: &'a Area<'b>,
    caption: &str,
    labels: &[String],
    y_top: f64,
    y_desc: &str,
    y_label_width: u32,
) -> Result<BarChart<'a, 'b>> {
    let n = labels.len();
    let mut chart = ChartBuilder::on(root)
        .caption(caption, ("sans-serif", 22))
        .margin(15)
        .x_label_area_size(40)
        .y_label_area_size(y_label_width)
        .build_cartesian_2d((0..n).into_segmented(), 0f64..y_top)
        .map_err(plot_err)?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(n.max(1))
        .x_label_formatter(&|v| match v {
            SegmentValue::CenterOf(i) => labels.get(*i).cloned().unwrap_or_default(),
            _ => String::new(),
        })
        .y_desc(y_desc)
        .draw()
        .map_err(plot_err)?;
    Ok(chart)
}

/// Draws the legend of the labelled series at `position`.
fn draw_legend<'a, 'b: 'a, CT: CoordTranslate>(
    chart: &mut ChartContext<'a, SVGBackend<'b>, CT>,
    position: SeriesLabelPosition,
) -> Result<()> {
    chart
        .configure_series_labels()
        .position(position)
        .background_style(WHITE.mix(0.9))
        .border_style(BLACK)
        .draw()
        .map_err(plot_err)
}

fn scores(root: &Area, report: &Report) -> Result<()> {
    let (labels, values): (Vec<String>, Vec<f64>) = report
        .scores
        .iter()
        .filter_map(|s| s.score.map(|v| (format!("{}/{}", s.subset, s.split), v)))
        .unzip();
    let mut chart = bar_chart(
        root,
        "VoiceBench score per subset (%)",
        &labels,
        100.0,
        "score (%)",
        50,
    )?;
    chart
        .draw_series(values.iter().enumerate().map(|(i, v)| {
            let mut bar = Rectangle::new(
                [
                    (SegmentValue::Exact(i), 0.0),
                    (SegmentValue::Exact(i + 1), *v),
                ],
                BLUE.mix(0.6).filled(),
            );
            bar.set_margin(0, 0, 12, 12);
            bar
        }))
        .map_err(plot_err)?;
    chart
        .draw_series(values.iter().enumerate().map(|(i, v)| {
            Text::new(
                format!("{v:.1}"),
                (SegmentValue::CenterOf(i), (v + 2.0).min(97.0)),
                ("sans-serif", 15),
            )
        }))
        .map_err(plot_err)?;
    Ok(())
}

/// Draws one SVG file on a white background.
fn draw(path: &Path, plot: impl FnOnce(&Area) -> Result<()>) -> Result<()> {
    let root = SVGBackend::new(path, SIZE).into_drawing_area();
    root.fill(&WHITE).map_err(plot_err)?;
    plot(&root)?;
    root.present().map_err(plot_err)
}

/// Sorted values of each latency the records have (label, values).
fn latency_series(records: &[Record]) -> Vec<(&'static str, Vec<f64>)> {
    let wanted = [
        "first_audio_true_end",
        "first_audio",
        "response",
        "llm_first_token",
    ];
    LATENCIES
        .iter()
        .filter(|(k, _)| wanted.contains(k))
        .filter_map(|(key, label)| {
            let mut v: Vec<f64> = records
                .iter()
                .filter_map(|r| r.timings.get(*key).copied())
                .collect();
            v.sort_by(f64::total_cmp);
            (!v.is_empty()).then_some((*label, v))
        })
        .collect()
}

fn latency_cdf(root: &Area, series: &[(&'static str, Vec<f64>)]) -> Result<()> {
    let top = series
        .iter()
        .filter_map(|(_, v)| v.last().copied())
        .fold(1.0f64, f64::max)
        * 1.05;
    let mut chart = ChartBuilder::on(root)
        .caption("Latency CDF across samples", ("sans-serif", 22))
        .margin(15)
        .x_label_area_size(40)
        .y_label_area_size(50)
        .build_cartesian_2d(0f64..top, 0f64..1.0f64)
        .map_err(plot_err)?;
    chart
        .configure_mesh()
        .x_desc("ms")
        .y_desc("fraction of samples")
        .draw()
        .map_err(plot_err)?;
    for (i, (label, values)) in series.iter().enumerate() {
        let color = Palette99::pick(i).to_rgba();
        let n = values.len() as f64;
        // A step function: each sample lifts the curve by 1/n at its value.
        let mut points = vec![(0.0, 0.0)];
        for (j, v) in values.iter().enumerate() {
            points.push((*v, j as f64 / n));
            points.push((*v, (j + 1) as f64 / n));
        }
        chart
            .draw_series(LineSeries::new(points, color.stroke_width(2)))
            .map_err(plot_err)?
            .label(*label)
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color));
    }
    draw_legend(&mut chart, SeriesLabelPosition::LowerRight)
}

fn stages(root: &Area, report: &Report) -> Result<()> {
    let (labels, groups): (Vec<String>, Vec<Vec<f64>>) = report
        .stage_means_ms
        .iter()
        .map(|(g, m)| {
            (
                g.clone(),
                STAGES
                    .iter()
                    .map(|s| m.get(*s).copied().unwrap_or(0.0))
                    .collect(),
            )
        })
        .unzip();
    let top = groups
        .iter()
        .map(|v| v.iter().sum::<f64>())
        .fold(1.0f64, f64::max)
        * 1.15;
    let mut chart = bar_chart(root, "Mean time per stage (ms)", &labels, top, "ms", 60)?;
    for (s, stage) in STAGES.iter().enumerate() {
        if groups.iter().all(|v| v[s] == 0.0) {
            continue;
        }
        let color = Palette99::pick(s).to_rgba();
        let bars = groups.iter().enumerate().map(|(i, v)| {
            let base: f64 = v[..s].iter().sum();
            let mut bar = Rectangle::new(
                [
                    (SegmentValue::Exact(i), base),
                    (SegmentValue::Exact(i + 1), base + v[s]),
                ],
                color.filled(),
            );
            bar.set_margin(0, 0, 20, 20);
            bar
        });
        chart
            .draw_series(bars)
            .map_err(plot_err)?
            .label(*stage)
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 12, y + 5)], color.filled()));
    }
    draw_legend(&mut chart, SeriesLabelPosition::UpperRight)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::{ScoreRow, build};
    use crate::sample::{Sample, SampleKey};

    fn timed_record(subset: &str, index: u64, ms: f64) -> Record {
        let sample = Sample {
            sample_key: SampleKey::new(subset, "test", index),
            ..Default::default()
        };
        let mut record = Record::from_sample(&sample, "yes");
        for key in [
            "first_audio",
            "response",
            "asr",
            "llm_first_token",
            "to_output",
        ] {
            record.timings.insert(key.to_string(), ms);
        }
        record
    }

    fn read_svg(dir: &Path, name: &str) -> Result<String> {
        let path = dir.join(name);
        std::fs::read_to_string(&path).map_err(|e| VoiceBenchError::io(&path, e))
    }

    #[test]
    fn each_plot_with_data_is_written_with_its_labels() -> Result<()> {
        let dir = tempfile::tempdir().map_err(|e| VoiceBenchError::io("tempdir", e))?;
        let records = [
            timed_record("bbh", 0, 120.0),
            timed_record("bbh", 1, 80.0),
            timed_record("sd-qa", 0, 200.0),
        ];
        let mut report = build(vec![], &records, &[]);
        report.scores.push(ScoreRow {
            subset: "bbh".into(),
            split: "test".into(),
            scorer: "Bbh".into(),
            n: 2,
            score: Some(62.5),
            metrics: Default::default(),
            fallbacks: 0,
            errors: 0,
            failures: 0,
            note: None,
        });
        let written = write_plots(dir.path(), &report, &records)?;
        assert_eq!(written, vec!["scores.svg", "latency_cdf.svg", "stages.svg"]);
        let scores_svg = read_svg(dir.path(), "scores.svg")?;
        assert!(scores_svg.contains("bbh/test") && scores_svg.contains("62.5"));
        let cdf_svg = read_svg(dir.path(), "latency_cdf.svg")?;
        assert!(
            cdf_svg.contains("Latency CDF across samples") && cdf_svg.contains("LLM first token")
        );
        let stages_svg = read_svg(dir.path(), "stages.svg")?;
        assert!(stages_svg.contains("sd-qa/test") && stages_svg.contains("to_output"));
        assert!(
            !stages_svg.contains("segmenter"),
            "a stage with no time gets no bar"
        );
        Ok(())
    }

    #[test]
    fn nothing_to_plot_writes_nothing() -> Result<()> {
        let dir = tempfile::tempdir().map_err(|e| VoiceBenchError::io("tempdir", e))?;
        let report = build(vec![], &[], &[]);
        assert!(write_plots(dir.path(), &report, &[])?.is_empty());
        assert_eq!(
            std::fs::read_dir(dir.path()).map(|d| d.count()).ok(),
            Some(0)
        );
        Ok(())
    }
}

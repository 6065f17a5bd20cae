//! How `talk`, `converse` and `demo` show a conversation as it happens: one line or piece of
//! a line per pipeline event.

use std::io::Write;

use pocket_pipeline::{Event, Stamped};

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
        Event::Interrupted {
            heard,
            cause: pocket_pipeline::InterruptCause::Continued,
            ..
        } => {
            writeln!(
                out,
                "\n[{:>8.0} ms] (you went on: answered with the rest; heard: {heard:?})",
                e.at_ms
            )
        }
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

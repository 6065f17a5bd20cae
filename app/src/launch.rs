//! How the app was launched: command-line options for the desktop app (file input, output file,
//! auto-start, a separate settings folder). Phones launch with none.

use std::path::PathBuf;

use crate::error::AppError;
use crate::input::ClipSpec;

pub const USAGE: &str = "\
Pocket Voice: an on-device voice assistant.

Usage: pocket-app [OPTIONS]

Options:
  --input FILE[@WHEN]     play a WAV file as the microphone (repeatable, in order). WHEN:
                            (none)         1 s after the start, or after the previous reply
                            SECONDS        at that time from the session start
                            speaking+SECS  SECS after the reply to the previous clip starts
                                           playing (a barge-in)
  --output FILE           with --input: write what the assistant said to this WAV file on stop
  --autostart             start the voice session as soon as the window opens
  --config-dir DIR        keep settings in DIR instead of the app's config folder
  -h, --help              print this help";

/// Options the app was started with.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Launch {
    pub inputs: Vec<ClipSpec>,
    pub output: Option<PathBuf>,
    pub autostart: bool,
    pub config_dir: Option<PathBuf>,
    pub help: bool,
}

impl Launch {
    /// Parses the arguments after the program name.
    pub fn parse(args: impl IntoIterator<Item = String>) -> Result<Self, AppError> {
        let mut l = Launch::default();
        let mut args = args.into_iter();
        while let Some(a) = args.next() {
            let mut value = |name: &str| {
                args.next()
                    .ok_or_else(|| AppError::Usage(format!("{name} needs a value")))
            };
            match a.as_str() {
                "--input" => l.inputs.push(ClipSpec::parse(&value("--input")?)?),
                "--output" => l.output = Some(PathBuf::from(value("--output")?)),
                "--autostart" => l.autostart = true,
                "--config-dir" => l.config_dir = Some(PathBuf::from(value("--config-dir")?)),
                "-h" | "--help" => l.help = true,
                other => {
                    return Err(AppError::Usage(format!(
                        "unknown option {other:?} (see --help)"
                    )));
                }
            }
        }
        if l.output.is_some() && l.inputs.is_empty() {
            return Err(AppError::Usage("--output needs --input".into()));
        }
        Ok(l)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::Trigger;
    use std::time::Duration;

    fn parse(args: &[&str]) -> Result<Launch, AppError> {
        Launch::parse(args.iter().map(|s| s.to_string()))
    }

    #[test]
    fn parses_every_option() {
        let l = parse(&[
            "--input",
            "q.wav",
            "--input",
            "b.wav@4",
            "--output",
            "o.wav",
            "--autostart",
            "--config-dir",
            "/tmp/c",
        ])
        .expect("parse");
        assert_eq!(l.inputs.len(), 2);
        assert_eq!(l.inputs[1].trigger, Trigger::At(Duration::from_secs(4)));
        assert_eq!(l.output, Some(PathBuf::from("o.wav")));
        assert!(l.autostart && !l.help);
        assert_eq!(l.config_dir, Some(PathBuf::from("/tmp/c")));
        assert_eq!(parse(&[]).expect("none"), Launch::default());
    }

    #[test]
    fn bad_options_are_named() {
        let e = parse(&["--bogus"]).expect_err("unknown");
        assert!(e.to_string().contains("--bogus"));
        assert!(
            parse(&["--input"])
                .expect_err("value")
                .to_string()
                .contains("--input")
        );
        assert!(parse(&["--output", "o.wav"]).is_err());
    }
}

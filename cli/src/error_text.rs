//! How a command's error reaches the terminal: the error and each cause under it, each said once.
//!
//! The engines' error types put their source's text into their own message (`I/O error on
//! {path}: {source}`), so that one `to_string()` says everything (the app shows just that);
//! joining the whole `source()` chain as well, as `{:#}` does, said each such cause twice.

/// The error and its causes joined by ": ", leaving out a cause whose text is already part of
/// what the error or an earlier cause said.
pub fn error_text(error: &anyhow::Error) -> String {
    let mut text = String::new();
    for cause in error.chain() {
        let said = cause.to_string();
        if said.is_empty() || text.contains(&said) {
            continue;
        }
        if !text.is_empty() {
            text.push_str(": ");
        }
        text.push_str(&said);
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use anyhow::Context;
    use pocket_llm::LlmError;
    use pocket_llm::gguf::GgufError;
    use std::path::PathBuf;

    #[test]
    fn a_cause_inside_its_error_message_is_said_once() {
        let io = LlmError::Io {
            path: PathBuf::from("/tmp"),
            source: std::io::Error::from_raw_os_error(19),
        };
        let said = std::io::Error::from_raw_os_error(19).to_string();
        let e = Err::<(), _>(io)
            .context("cannot load /tmp")
            .expect_err("an error");
        assert_eq!(
            error_text(&e),
            format!("cannot load /tmp: I/O error on /tmp: {said}")
        );
        // What `{:#}` printed before: the OS error twice.
        assert_eq!(format!("{e:#}").matches(&said).count(), 2);

        let gguf = LlmError::Gguf {
            path: PathBuf::from("empty.gguf"),
            source: GgufError::BadMagic { found: Vec::new() },
        };
        let e = anyhow::Error::from(gguf);
        assert_eq!(
            error_text(&e),
            "empty.gguf: not a usable GGUF file: bad magic []: not a GGUF file"
        );
    }

    #[test]
    fn a_cause_the_message_leaves_out_is_still_said() {
        let e = Err::<(), _>(std::io::Error::other("disk full"))
            .context("cannot write report.json")
            .expect_err("an error");
        assert_eq!(error_text(&e), "cannot write report.json: disk full");
        let plain = anyhow::anyhow!("no model given");
        assert_eq!(error_text(&plain), "no model given");
    }
}

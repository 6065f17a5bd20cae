//! espeak-ng IPA phonemization the way piper-phonemize does it, through libespeak-ng loaded at
//! run time (hand-written FFI declarations, no bindgen, no build-time linking).
//!
//! Text is cut into clauses at `, ; : . ! ?`; each clause goes through `espeak_TextToPhonemes`
//! (IPA mode); the clause's punctuation is appended to its phonemes (espeak drops it), a space
//! follows a mid-sentence clause, and `. ! ?` end a sentence. Piper voices were trained on exactly
//! that shape.
//!
//! Loading libespeak-ng (GPL-3.0) into the process makes the distributed binary GPL-3.0; see
//! the README. Without it the Piper voice cannot speak and [`crate::load_default_voice`] falls
//! back to the built-in voice.

use crate::error::TtsError;
use libloading::Library;
use std::ffi::{CStr, CString, c_char, c_int, c_void};
use std::sync::{Mutex, OnceLock};

const AUDIO_OUTPUT_SYNCHRONOUS: c_int = 2;
const ESPEAK_INITIALIZE_DONT_EXIT: c_int = 0x8000;
const ESPEAK_CHARS_UTF8: c_int = 1;
const ESPEAK_PHONEMES_IPA: c_int = 0x02;
const EE_OK: c_int = 0;

type InitializeFn = unsafe extern "C" fn(
    output: c_int,
    buflength: c_int,
    path: *const c_char,
    options: c_int,
) -> c_int;
type SetVoiceByNameFn = unsafe extern "C" fn(name: *const c_char) -> c_int;
type TextToPhonemesFn = unsafe extern "C" fn(
    textptr: *mut *const c_void,
    textmode: c_int,
    phonememode: c_int,
) -> *const c_char;

/// Library names tried in order.
const LIBRARY_NAMES: [&str; 3] = ["libespeak-ng.so.1", "libespeak-ng.so", "libespeak-ng.dylib"];

struct Espeak {
    // Keeps the library mapped while the function pointers below are used.
    _lib: Library,
    set_voice: SetVoiceByNameFn,
    text_to_phonemes: TextToPhonemesFn,
    /// espeak keeps global state: one call at a time, and the voice last set.
    state: Mutex<Option<String>>,
}

static ESPEAK: OnceLock<Result<Espeak, String>> = OnceLock::new();

fn load() -> Result<Espeak, String> {
    let mut last_err = String::new();
    for name in LIBRARY_NAMES {
        // SAFETY: loading libespeak-ng runs its (trivial) initializers; we resolve only symbols
        // whose C signatures are declared above from speak_lib.h.
        match unsafe { Library::new(name) } {
            Ok(lib) => {
                // SAFETY: the symbol types match speak_lib.h of espeak-ng 1.49 and later.
                let (init, set_voice, text_to_phonemes) = unsafe {
                    let init = *lib
                        .get::<InitializeFn>(b"espeak_Initialize\0")
                        .map_err(|e| e.to_string())?;
                    let sv = *lib
                        .get::<SetVoiceByNameFn>(b"espeak_SetVoiceByName\0")
                        .map_err(|e| e.to_string())?;
                    let ttp = *lib
                        .get::<TextToPhonemesFn>(b"espeak_TextToPhonemes\0")
                        .map_err(|e| e.to_string())?;
                    (init, sv, ttp)
                };
                // SAFETY: a null path selects the default data folder (or $ESPEAK_DATA_PATH);
                // DONT_EXIT keeps espeak from calling exit() when its data is missing.
                let rate = unsafe {
                    init(
                        AUDIO_OUTPUT_SYNCHRONOUS,
                        0,
                        std::ptr::null(),
                        ESPEAK_INITIALIZE_DONT_EXIT,
                    )
                };
                if rate <= 0 {
                    return Err(format!(
                        "{name} loaded but espeak_Initialize failed ({rate}): is espeak-ng-data installed?"
                    ));
                }
                return Ok(Espeak {
                    _lib: lib,
                    set_voice,
                    text_to_phonemes,
                    state: Mutex::new(None),
                });
            }
            Err(e) => last_err = format!("{name}: {e}"),
        }
    }
    Err(format!(
        "libespeak-ng not found ({last_err}); install libespeak-ng1 and espeak-ng-data"
    ))
}

fn espeak() -> Result<&'static Espeak, TtsError> {
    ESPEAK
        .get_or_init(load)
        .as_ref()
        .map_err(|e| TtsError::Phonemizer(e.clone()))
}

/// Whether libespeak-ng and its data can be used in this process.
pub fn espeak_available() -> bool {
    espeak().is_ok()
}

/// The phonemes of one sentence, with clause punctuation, ready for the voice's id map.
pub type Sentence = String;

/// espeak-ng IPA phonemizer for one espeak voice (e.g. `en-us`).
#[derive(Debug, Clone)]
pub struct Phonemizer {
    voice: CString,
}

impl Phonemizer {
    /// Loads libespeak-ng (once per process) and checks that `voice` exists.
    pub fn new(voice: &str) -> Result<Self, TtsError> {
        let voice = CString::new(voice)
            .map_err(|_| TtsError::InvalidArgument(format!("voice name {voice:?}")))?;
        let p = Phonemizer { voice };
        // Selecting the voice once reports a missing voice at load, not at the first sentence.
        p.phonemize("a", &mut Vec::new())?;
        Ok(p)
    }

    /// Phonemizes `text` into sentences (appended to `out`), the way piper-phonemize does.
    pub fn phonemize(&self, text: &str, out: &mut Vec<Sentence>) -> Result<(), TtsError> {
        let es = espeak()?;
        let mut state = es.state.lock().unwrap_or_else(|p| p.into_inner());
        let wanted = self.voice.to_string_lossy();
        if state.as_deref() != Some(wanted.as_ref()) {
            // SAFETY: `voice` is a valid NUL-terminated string; calls are serialized by `state`.
            let rc = unsafe { (es.set_voice)(self.voice.as_ptr()) };
            if rc != EE_OK {
                *state = None;
                return Err(TtsError::Phonemizer(format!(
                    "espeak voice {wanted:?} not found"
                )));
            }
            *state = Some(wanted.into_owned());
        }
        let mut current = String::new();
        for (clause, punct) in clauses(text) {
            let before = current.len();
            clause_phonemes(es, clause, &mut current)?;
            let spoke = current.len() > before;
            if let Some(p) = punct {
                if spoke || !current.is_empty() {
                    current.push(p);
                }
                if matches!(p, '.' | '!' | '?') {
                    push_sentence(&mut current, out);
                    continue;
                }
            }
            if !current.is_empty() && !current.ends_with(' ') {
                current.push(' ');
            }
        }
        push_sentence(&mut current, out);
        Ok(())
    }
}

fn push_sentence(current: &mut String, out: &mut Vec<Sentence>) {
    let s = current.trim_end();
    if s.chars().any(|c| c.is_alphabetic()) {
        out.push(s.to_string());
    }
    current.clear();
}

/// Runs espeak on one clause (no punctuation inside) and appends its IPA, words space-separated.
fn clause_phonemes(es: &Espeak, clause: &str, out: &mut String) -> Result<(), TtsError> {
    let clause = clause.trim();
    if clause.is_empty() {
        return Ok(());
    }
    // Interior NULs cannot reach C.
    let c = CString::new(clause.replace('\0', " "))
        .map_err(|_| TtsError::InvalidArgument("text with NUL".into()))?;
    let mut ptr: *const c_void = c.as_ptr().cast();
    // espeak returns one chunk per call and advances `ptr`, setting it null at the end.
    let mut guard = 0;
    while !ptr.is_null() && guard < 10_000 {
        guard += 1;
        // SAFETY: `ptr` points into `c`, which outlives the loop; espeak only reads through it and
        // returns a pointer to its own static buffer, copied out before the next call.
        let res =
            unsafe { (es.text_to_phonemes)(&mut ptr, ESPEAK_CHARS_UTF8, ESPEAK_PHONEMES_IPA) };
        if res.is_null() {
            break;
        }
        // SAFETY: espeak returns a NUL-terminated string.
        let s = unsafe { CStr::from_ptr(res) }.to_string_lossy();
        let s = strip_language_flags(s.trim());
        if !s.is_empty() {
            if !out.is_empty() && !out.ends_with(' ') {
                out.push(' ');
            }
            out.push_str(&s);
        }
    }
    Ok(())
}

/// Removes espeak's language-switch marks such as `(en)` / `(fr)` (piper-phonemize drops them).
fn strip_language_flags(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut depth = 0;
    for c in s.chars() {
        match c {
            '(' => depth += 1,
            ')' if depth > 0 => depth -= 1,
            _ if depth == 0 => out.push(c),
            _ => {}
        }
    }
    out
}

/// Cuts text into (clause, its terminating punctuation). Punctuation counts only when followed
/// by whitespace or the end, so `3.5` and `e.g` stay whole.
pub fn clauses(text: &str) -> impl Iterator<Item = (&str, Option<char>)> {
    let mut rest = text;
    std::iter::from_fn(move || {
        if rest.trim().is_empty() {
            return None;
        }
        let mut iter = rest.char_indices().peekable();
        while let Some((i, c)) = iter.next() {
            if matches!(c, ',' | ';' | ':' | '.' | '!' | '?') {
                let next = iter.peek().map(|&(_, n)| n);
                if next.is_none_or(char::is_whitespace) {
                    let clause = &rest[..i];
                    rest = &rest[i + c.len_utf8()..];
                    return Some((clause, Some(c)));
                }
            }
        }
        let clause = rest;
        rest = "";
        Some((clause, None))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clauses_split_at_punctuation_followed_by_space() {
        let v: Vec<_> = clauses("Hello, world. It costs 3.5 dollars! Why").collect();
        assert_eq!(
            v,
            vec![
                ("Hello", Some(',')),
                (" world", Some('.')),
                (" It costs 3.5 dollars", Some('!')),
                (" Why", None)
            ]
        );
        assert_eq!(clauses("").count(), 0);
        assert_eq!(clauses("  ").count(), 0);
    }

    #[test]
    fn language_flags_are_stripped() {
        assert_eq!(strip_language_flags("(en)hˈɛloʊ(fr)"), "hˈɛloʊ");
        assert_eq!(strip_language_flags("a)b"), "a)b");
    }

    /// Needs libespeak-ng (installed by scripts/setup-system, as in CI).
    #[test]
    fn matches_espeak_ng_ipa_with_clause_punctuation() {
        let p = Phonemizer::new("en-us").expect("libespeak-ng and espeak-ng-data are installed");
        let mut out = Vec::new();
        p.phonemize("Hello, world. How are you?", &mut out)
            .expect("phonemize");
        assert_eq!(out, vec!["həlˈoʊ, wˈɜːld.", "hˈaʊ ɑːɹ juː?"]);
        out.clear();
        p.phonemize("", &mut out).expect("empty");
        assert!(out.is_empty());
        assert!(Phonemizer::new("no-such-voice-xyz").is_err());
        // The voice switches back after a failed one.
        p.phonemize("yes", &mut out).expect("again");
        assert_eq!(out, vec!["jˈɛs"]);
    }

    /// Golden phonemes from piper-tts 1.8 (its bundled espeak-ng), the reference runtime.
    #[test]
    fn agrees_with_piper_tts_phonemes() {
        let p = Phonemizer::new("en-us").expect("libespeak-ng and espeak-ng-data are installed");
        let cases: [(&str, &[&str]); 4] = [
            (
                "I am Joe; the meeting is at three thirty: bring coffee!",
                &["aɪɐm dʒˈoʊ; ðə mˈiːɾɪŋ ɪz æt θɹˈiː θˈɜːɾi: bɹˈɪŋ kˈɔfi!"],
            ),
            (
                "The quick brown fox jumps over the lazy dog.",
                &["ðə kwˈɪk bɹˈaʊn fˈɑːks dʒˈʌmps ˌoʊvɚ ðə lˈeɪzi dˈɑːɡ."],
            ),
            (
                "Doctor Smith paid twelve dollars and fifty cents for the book",
                &["dˈɑːktɚ smˈɪθ pˈeɪd twˈɛlv dˈɑːlɚz ænd fˈɪfti sˈɛnts fɚðə bˈʊk"],
            ),
            // (Dictionary details differ between espeak-ng releases: piper-tts's newer one says
            // "Seattle" as siːʲˈæɾəl, Debian 1.51 as siːˈæɾəl; such words are left out.)
            ("Is it raining today?", &["ɪz ɪt ɹˈeɪnɪŋ tədˈeɪ?"]),
        ];
        for (text, want) in cases {
            let mut out = Vec::new();
            p.phonemize(text, &mut out).expect("phonemize");
            assert_eq!(out, want, "{text}");
        }
    }
}

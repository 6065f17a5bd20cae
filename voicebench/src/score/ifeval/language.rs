//! Offline language identification for IFEval's language checks (stand-in for `langdetect`).
//!
//! IFEval calls `langdetect`, a character n-gram model trained on Wikipedia. We have no model
//! offline, so we decide by script first (Hangul, kana, Han, Thai, Hebrew, Greek, the Indic
//! scripts map to one language each), then by counting common function words among the
//! languages that share a script (Latin, Cyrillic, Arabic, Devanagari). It returns the same
//! ISO 639-1 codes IFEval's `LANGUAGE_CODES` uses (Han-only text gives `zh-cn`, like langdetect).
//! On text with no letters it returns `None`, where langdetect raises and IFEval counts the
//! instruction as followed.

#[derive(Clone, Copy, PartialEq, Eq)]
enum Script {
    Latin,
    Cyrillic,
    Arabic,
    Devanagari,
    Other(&'static str),
}

fn script_of(c: char) -> Option<Script> {
    let code = c as u32;
    let script = match code {
        0x0041..=0x005A | 0x0061..=0x007A | 0x00C0..=0x024F | 0x1E00..=0x1EFF => Script::Latin,
        0x0370..=0x03FF => Script::Other("el"),
        0x0400..=0x04FF => Script::Cyrillic,
        0x0590..=0x05FF => Script::Other("he"),
        0x0600..=0x06FF | 0x0750..=0x077F | 0xFB50..=0xFDFF | 0xFE70..=0xFEFF => Script::Arabic,
        0x0900..=0x097F => Script::Devanagari,
        0x0980..=0x09FF => Script::Other("bn"),
        0x0A00..=0x0A7F => Script::Other("pa"),
        0x0A80..=0x0AFF => Script::Other("gu"),
        0x0B80..=0x0BFF => Script::Other("ta"),
        0x0C00..=0x0C7F => Script::Other("te"),
        0x0C80..=0x0CFF => Script::Other("kn"),
        0x0D00..=0x0D7F => Script::Other("ml"),
        0x0E00..=0x0E7F => Script::Other("th"),
        0x3040..=0x30FF => Script::Other("ja"),
        0x1100..=0x11FF | 0xAC00..=0xD7AF | 0x3130..=0x318F => Script::Other("ko"),
        0x4E00..=0x9FFF | 0x3400..=0x4DBF => Script::Other("zh-cn"),
        _ => return None,
    };
    Some(script)
}

/// Common function words of each language sharing a script, space-separated.
const LATIN: &[(&str, &str)] = &[
    (
        "en",
        "the and is of to in that it you for are with this be was have not on as i",
    ),
    (
        "es",
        "el la de que y en los las es por un una para con no se del su al como",
    ),
    (
        "pt",
        "o a de que e do da em um uma para com não os as se no na mais é",
    ),
    (
        "fr",
        "le la les de des et est un une que en du pour pas qui dans sur il je vous",
    ),
    (
        "de",
        "der die das und ist nicht ein eine zu den mit sich des auf für im dem ich sie es",
    ),
    (
        "it",
        "il la di che e un una per non sono del della gli le con si è ma lo nel",
    ),
    (
        "nl",
        "de het een en van is dat niet ik je op te zijn voor met die er maar ook naar",
    ),
    (
        "pl",
        "i w nie się na jest to że z do o jak ale po co tak za od już czy",
    ),
    (
        "vi",
        "và của là có không được một những các cho trong với người này đã tôi bạn để khi thì",
    ),
    (
        "sw",
        "na ya wa kwa ni za katika la kuwa hii cha huo pia lakini kama sana yake wao hiyo ambayo",
    ),
    (
        "fi",
        "ja on ei se että oli hän mutta kun niin tai ovat myös kuin sen joka mitä minä sinä tämä",
    ),
];

const CYRILLIC: &[(&str, &str)] = &[
    (
        "ru",
        "и в не на что я с он как это по но из у к так вы был мы его",
    ),
    (
        "uk",
        "і в не на що я з він як це та але до у й ми ви був їх від",
    ),
    (
        "bg",
        "и в не на да е се с от за че това са по като но ще към съм има",
    ),
];

const ARABIC: &[(&str, &str)] = &[
    ("ar", "في من على أن إلى هذا التي الذي عن ما لا كان هو مع هذه"),
    ("fa", "و در به از که این را با است برای آن یک می شود هم"),
    ("ur", "کے میں کی ہے اور کا کو سے یہ نہیں ہیں پر بھی کہ تھا"),
];

const DEVANAGARI: &[(&str, &str)] = &[
    ("hi", "के है में की और को से का यह नहीं हैं पर भी एक था"),
    ("mr", "आहे आणि या व हे की ते आहेत होते मी तर पण हा नाही केले"),
    (
        "ne",
        "छ र को मा पनि हो गर्न भएको छन् यो गरेको लागि थियो हुन्छ नेपाल",
    ),
];

/// Word-list vote among languages sharing a script; ties and no hits go to the first listed.
fn vote(words: &[String], table: &[(&'static str, &str)]) -> &'static str {
    let mut best = (table[0].0, 0usize);
    for (code, list) in table {
        let listed: Vec<&str> = list.split(' ').collect();
        let hits = words
            .iter()
            .filter(|w| listed.contains(&w.as_str()))
            .count();
        if hits > best.1 {
            best = (code, hits);
        }
    }
    best.0
}

/// The language code of `text`, or `None` when it has no letters to go by.
pub fn detect_language(text: &str) -> Option<&'static str> {
    let mut counts: Vec<(Script, usize)> = Vec::new();
    for script in text.chars().filter_map(script_of) {
        match counts.iter_mut().find(|(s, _)| *s == script) {
            Some((_, n)) => *n += 1,
            None => counts.push((script, 1)),
        }
    }
    // Japanese mixes kana with Han: any real share of kana makes it Japanese.
    let kana = counts
        .iter()
        .find(|(s, _)| *s == Script::Other("ja"))
        .map_or(0, |c| c.1);
    let total: usize = counts.iter().map(|c| c.1).sum();
    if kana > 0 && kana * 10 >= total {
        return Some("ja");
    }
    let (script, _) = counts.into_iter().max_by_key(|c| c.1)?;
    let words: Vec<String> = text
        .split(|c: char| !c.is_alphanumeric() && c != '\'' && c != '\u{200C}')
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    Some(match script {
        Script::Latin => vote(&words, LATIN),
        Script::Cyrillic => vote(&words, CYRILLIC),
        Script::Arabic => vote(&words, ARABIC),
        Script::Devanagari => vote(&words, DEVANAGARI),
        Script::Other(code) => code,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn common_languages_are_recognised() {
        assert_eq!(
            detect_language("This is a short answer in English."),
            Some("en")
        );
        assert_eq!(
            detect_language("Esta es la respuesta para el usuario."),
            Some("es")
        );
        assert_eq!(
            detect_language("Das ist nicht die Antwort, die ich suche."),
            Some("de")
        );
        assert_eq!(
            detect_language("C'est une réponse pour vous et pour le monde."),
            Some("fr")
        );
        assert_eq!(
            detect_language("Это не то, что я хотел сказать."),
            Some("ru")
        );
        assert_eq!(
            detect_language("यह एक छोटा उत्तर है और यह हिंदी में है।"),
            Some("hi")
        );
        assert_eq!(detect_language("これは日本語の文です。"), Some("ja"));
        assert_eq!(detect_language("안녕하세요 반갑습니다"), Some("ko"));
        assert_eq!(detect_language("1234 !!"), None);
    }

    #[test]
    fn each_listed_language_wins_on_its_own_words() {
        for (code, text) in [
            ("pt", "o a de que e do"),
            ("it", "il la di che e un"),
            ("nl", "de het een en van is"),
            ("pl", "i w nie się na jest"),
            ("vi", "và của là có không được"),
            ("sw", "na ya wa kwa ni za"),
            ("fi", "ja on ei se että oli"),
            ("uk", "і в не на що я"),
            ("bg", "и в не на да е"),
            ("ar", "في من على أن إلى هذا"),
            ("fa", "و در به از که این"),
            ("ur", "کے میں کی ہے اور کا"),
            ("mr", "आहे आणि या व हे की"),
            ("ne", "छ र को मा पनि हो"),
        ] {
            assert_eq!(detect_language(text), Some(code), "{text}");
        }
    }
}

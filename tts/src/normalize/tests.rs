//! Normalizer cases: each writes down what a person would say.

use super::normalize;

fn n(s: &str) -> String {
    normalize(s)
}

#[test]
fn numbers_money_and_percent() {
    assert_eq!(n("I have 3 cats."), "I have three cats.");
    assert_eq!(
        n("It costs $3.50."),
        "It costs three dollars and fifty cents."
    );
    assert_eq!(n("Pay $1 now"), "Pay one dollar now");
    assert_eq!(n("A $2 million deal"), "A two million dollars deal");
    assert_eq!(
        n("Only €20, or £5.01!"),
        "Only twenty euros, or five pounds and one penny!"
    );
    assert_eq!(n("Up 15% today"), "Up fifteen percent today");
    assert_eq!(
        n("Pi is 3.14159"),
        "Pi is three point one four one five nine"
    );
    assert_eq!(n("It was -5 outside"), "It was minus five outside");
    assert_eq!(
        n("1,234,567 people"),
        "one million two hundred thirty-four thousand five hundred sixty-seven people"
    );
    assert_eq!(n("Ages 10-20"), "Ages ten to twenty");
}

#[test]
fn ordinals_times_dates_and_years() {
    assert_eq!(
        n("the 1st and 22nd place"),
        "the first and twenty-second place"
    );
    assert_eq!(n("Meet at 3:30 pm."), "Meet at three thirty pee em.");
    assert_eq!(n("at 7am"), "at seven ay em");
    assert_eq!(n("at 10:00"), "at ten o'clock");
    assert_eq!(
        n("at 9:05"),
        "at nine oh five o'clock".replace(" o'clock", "")
    );
    assert_eq!(
        n("Due 2024-01-15."),
        "Due January fifteenth, twenty twenty-four."
    );
    assert_eq!(n("On 7/4/1776"), "On July fourth, seventeen seventy-six");
    assert_eq!(n("Born in 1999"), "Born in nineteen ninety-nine");
    assert_eq!(n("on March 3, 2021"), "on March third, twenty twenty-one");
    assert_eq!(n("the 1990s and 80s"), "the nineteen nineties and eighties");
    assert_eq!(n("2005 was good"), "two thousand five was good");
}

#[test]
fn units_and_abbreviations() {
    assert_eq!(n("Run 5 km today"), "Run five kilometers today");
    assert_eq!(n("It weighs 1kg"), "It weighs one kilogram");
    assert_eq!(
        n("Set it to 350°F."),
        "Set it to three hundred fifty degrees Fahrenheit."
    );
    assert_eq!(n("A 3x speedup"), "A three times speedup");
    assert_eq!(
        n("Dr. Smith met Mr. Jones."),
        "Doctor Smith met Mister Jones."
    );
    assert_eq!(n("Cats, dogs, etc."), "Cats, dogs, et cetera.");
    assert_eq!(n("Fruit, e.g. apples"), "Fruit, for example apples");
    assert_eq!(
        n("Visit St. Louis on Main St. today"),
        "Visit Saint Louis on Main Street today"
    );
    assert_eq!(n("Ticket #5"), "Ticket number five");
}

#[test]
fn markdown_urls_and_emoji() {
    assert_eq!(
        n("**Sure!** Here's a list:\n- apples\n- pears"),
        "Sure! Here's a list: apples. pears"
    );
    assert_eq!(
        n("See https://docs.example.com/page for more."),
        "See docs dot example dot com for more."
    );
    assert_eq!(
        n("Mail bob@example.org today"),
        "Mail bob at example dot org today"
    );
    assert_eq!(n("Great job 🎉🎉!"), "Great job!");
    assert_eq!(
        n("Use `cargo build` then:\n```sh\nrm -rf /\n```\nDone."),
        "Use cargo build then: Done."
    );
    assert_eq!(n("R&D and/or C++"), "R and D and or C plus plus");
}

#[test]
fn symbols_are_never_read() {
    for s in [
        "*** ### ^^^ |||",
        "@#$%^&*()",
        "🙂🙂🙂",
        "→ ← ↑",
        "\\ / ~ ` {}",
    ] {
        let out = n(s);
        assert!(
            out.chars()
                .all(|c| c.is_alphabetic() || " ,.!?;:'-".contains(c)),
            "{s:?} -> {out:?}"
        );
    }
    assert_eq!(n(""), "");
    assert_eq!(n("   "), "");
    assert_eq!(n("... ,,, !!!"), "");
}

#[test]
fn non_latin_scripts_are_dropped() {
    assert_eq!(n("你好世界"), "");
    assert_eq!(n("Привет мир"), "");
    assert_eq!(n("Hello 世界, friend"), "Hello, friend");
    assert_eq!(n("Café au lait"), "Café au lait");
}

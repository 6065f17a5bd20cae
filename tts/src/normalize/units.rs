//! Units written after numbers, their spoken singular and plural, and month names.

/// (written form, singular, plural). Case-sensitive where case matters (`m` vs `M`).
pub const UNITS: &[(&str, &str, &str)] = &[
    ("km", "kilometer", "kilometers"),
    ("m", "meter", "meters"),
    ("cm", "centimeter", "centimeters"),
    ("mm", "millimeter", "millimeters"),
    ("mi", "mile", "miles"),
    ("ft", "foot", "feet"),
    ("kg", "kilogram", "kilograms"),
    ("g", "gram", "grams"),
    ("mg", "milligram", "milligrams"),
    ("lb", "pound", "pounds"),
    ("lbs", "pound", "pounds"),
    ("oz", "ounce", "ounces"),
    ("l", "liter", "liters"),
    ("L", "liter", "liters"),
    ("ml", "milliliter", "milliliters"),
    ("mL", "milliliter", "milliliters"),
    ("mph", "mile per hour", "miles per hour"),
    ("km/h", "kilometer per hour", "kilometers per hour"),
    ("kph", "kilometer per hour", "kilometers per hour"),
    ("ms", "millisecond", "milliseconds"),
    ("s", "second", "seconds"),
    ("sec", "second", "seconds"),
    ("min", "minute", "minutes"),
    ("mins", "minute", "minutes"),
    ("h", "hour", "hours"),
    ("hr", "hour", "hours"),
    ("hrs", "hour", "hours"),
    ("KB", "kilobyte", "kilobytes"),
    ("kB", "kilobyte", "kilobytes"),
    ("MB", "megabyte", "megabytes"),
    ("GB", "gigabyte", "gigabytes"),
    ("TB", "terabyte", "terabytes"),
    ("Hz", "hertz", "hertz"),
    ("kHz", "kilohertz", "kilohertz"),
    ("MHz", "megahertz", "megahertz"),
    ("GHz", "gigahertz", "gigahertz"),
    ("W", "watt", "watts"),
    ("kW", "kilowatt", "kilowatts"),
    ("kWh", "kilowatt hour", "kilowatt hours"),
    ("V", "volt", "volts"),
    ("mAh", "milliamp hour", "milliamp hours"),
    ("°C", "degree Celsius", "degrees Celsius"),
    ("°F", "degree Fahrenheit", "degrees Fahrenheit"),
    ("°", "degree", "degrees"),
    ("%", "percent", "percent"),
    ("x", "times", "times"),
    ("k", "thousand", "thousand"),
    ("K", "thousand", "thousand"),
    ("M", "million", "million"),
    ("B", "billion", "billion"),
    ("bn", "billion", "billion"),
];

/// Scale words that may follow an amount of money ("$3 million").
pub const SCALE_WORDS: [&str; 4] = ["thousand", "million", "billion", "trillion"];

/// The spoken unit for `written`, singular when the amount is exactly one.
pub fn unit(written: &str, one: bool) -> Option<&'static str> {
    UNITS
        .iter()
        .find(|(w, _, _)| *w == written)
        .map(|&(_, s, p)| if one { s } else { p })
}

pub const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

/// Whether a word is a month name (full, any case).
pub fn is_month(word: &str) -> bool {
    MONTHS.iter().any(|m| m.eq_ignore_ascii_case(word))
}

/// Currency symbol → (singular, plural, cent singular, cent plural).
pub fn currency(symbol: char) -> Option<(&'static str, &'static str, &'static str, &'static str)> {
    match symbol {
        '$' => Some(("dollar", "dollars", "cent", "cents")),
        '€' => Some(("euro", "euros", "cent", "cents")),
        '£' => Some(("pound", "pounds", "penny", "pence")),
        '¥' => Some(("yen", "yen", "", "")),
        '₹' => Some(("rupee", "rupees", "paisa", "paise")),
        _ => None,
    }
}

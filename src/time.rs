//! Calendar arithmetic for timestamps, so the core can stamp history lines and read
//! `retry-after` dates without a date library or a clock of its own.

use crate::host_types::Millis;

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let m = i64::from(month);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(day) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The date of a day number since 1970-01-01.
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// `2026-02-05T10:00:00.000Z`, the format of the hub's timestamps and our history lines.
pub fn format_iso(ms: Millis) -> String {
    let secs = (ms / 1000) as i64;
    let millis = ms % 1000;
    let (year, month, day) = civil_from_days(secs.div_euclid(86_400));
    let sod = secs.rem_euclid(86_400);
    format!("{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{millis:03}Z", sod / 3600, (sod / 60) % 60, sod % 60)
}

/// Reads an RFC 3339 UTC timestamp (`Z` or a numeric offset; fraction optional).
pub fn parse_iso(text: &str) -> Option<Millis> {
    let b = text.as_bytes();
    if b.len() < 20
        || b[4] != b'-'
        || b[7] != b'-'
        || !matches!(b[10], b'T' | b't' | b' ')
        || b[13] != b':'
        || b[16] != b':'
    {
        return None;
    }
    let num = |r: std::ops::Range<usize>| -> Option<i64> { text.get(r)?.parse().ok() };
    let (year, month, day) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (hour, minute, second) = (num(11..13)?, num(14..16)?, num(17..19)?);
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) || hour > 23 || minute > 59 || second > 60 {
        return None;
    }
    let mut rest = &text[19..];
    let mut millis = 0i64;
    if let Some(frac) = rest.strip_prefix('.') {
        let digits = frac.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            return None;
        }
        let padded: String = frac[..digits].chars().chain("000".chars()).take(3).collect();
        millis = padded.parse().ok()?;
        rest = &frac[digits..];
    }
    let offset_secs = match rest {
        "Z" | "z" => 0,
        _ if rest.len() == 6 && (rest.starts_with('+') || rest.starts_with('-')) && rest.get(3..4) == Some(":") => {
            let sign = if rest.starts_with('-') { -1 } else { 1 };
            let hours: i64 = rest.get(1..3)?.parse().ok()?;
            let minutes: i64 = rest.get(4..6)?.parse().ok()?;
            sign * (hours * 3600 + minutes * 60)
        }
        _ => return None,
    };
    let days = days_from_civil(year, month as u32, day as u32);
    let secs = days * 86_400 + hour * 3600 + minute * 60 + second - offset_secs;
    let ms = secs.checked_mul(1000)?.checked_add(millis)?;
    Millis::try_from(ms).ok()
}

/// Reads an HTTP date in the IMF-fixdate form every sender must use (`Wed, 21 Oct 2015
/// 07:28:00 GMT`, RFC 9110 §5.6.7), as `retry-after` may carry. The two obsolete forms are not
/// read (a retry then simply uses its own backoff); this spares a date crate in the bundle.
pub(crate) fn parse_http_date(text: &str) -> Option<Millis> {
    const MONTHS: [&str; 12] = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
    let parts: Vec<&str> = text.split(' ').collect();
    let [weekday, day, month, year, time, "GMT"] = parts.as_slice() else { return None };
    let clock: Vec<&str> = time.split(':').collect();
    let [hour, minute, second] = clock.as_slice() else { return None };
    let two = |s: &str| if s.len() == 2 { s.parse::<u32>().ok() } else { None };
    let (day, hour, minute, second) = (two(day)?, two(hour)?, two(minute)?, two(second)?);
    let month = MONTHS.iter().position(|m| m == month)? as u32 + 1;
    let year: i64 = if year.len() == 4 { year.parse().ok()? } else { return None };
    if weekday.len() != 4
        || !weekday.ends_with(',')
        || !(1..=31).contains(&day)
        || hour > 23
        || minute > 59
        || second > 60
    {
        return None;
    }
    let secs = days_from_civil(year, month, day) * 86_400 + i64::from(hour * 3600 + minute * 60 + second);
    Millis::try_from(secs).ok()?.checked_mul(1000)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iso_round_trips_across_eras_and_leap_days() {
        for ms in [0, 951_782_400_123, 1_770_285_600_000, 4_107_542_399_999] {
            assert_eq!(parse_iso(&format_iso(ms)), Some(ms), "{}", format_iso(ms));
        }
        assert_eq!(format_iso(1_770_285_600_000), "2026-02-05T10:00:00.000Z");
        assert_eq!(format_iso(951_782_400_123), "2000-02-29T00:00:00.123Z");
    }

    #[test]
    fn iso_accepts_offsets_and_refuses_garbage() {
        assert_eq!(parse_iso("2026-02-05T11:00:00+01:00"), Some(1_770_285_600_000));
        assert_eq!(parse_iso("2026-02-05T10:00:00.5Z"), Some(1_770_285_600_500));
        for bad in [
            "",
            "2026-02-05",
            "2026-13-05T10:00:00Z",
            "2026-02-05T10:00:00",
            "2026-02-05T10:00:00.Z",
            "é026-02-05T10:00:00Z",
        ] {
            assert_eq!(parse_iso(bad), None, "{bad}");
        }
    }

    #[test]
    fn http_dates_are_read() {
        assert_eq!(parse_http_date("Wed, 21 Oct 2015 07:28:00 GMT"), Some(1_445_412_480_000));
        assert_eq!(parse_http_date("soon"), None);
        assert_eq!(parse_http_date("Thu, 01 Jan 1970 00:00:01 GMT"), Some(1_000));
        assert_eq!(parse_http_date("Sun, 29 Feb 2032 23:59:60 GMT"), Some(1_961_712_000_000));
        for bad in [
            "Wed, 21 Oct 2015 07:28:00 UTC",
            "Wed, 21 Foo 2015 07:28:00 GMT",
            "Wed, 1 Oct 2015 07:28:00 GMT",
            "Wed, 21 Oct 2015 25:28:00 GMT",
            "Wednesday, 21-Oct-15 07:28:00 GMT",
            "Wed, 21 Oct 2015 07:28 GMT",
        ] {
            assert_eq!(parse_http_date(bad), None, "{bad}");
        }
    }
}

//! The connection's timings and rules as plain values: the reconnect backoff (1 s doubling to
//! 30 s with jitter), the deadlines of opening and registering, how long a response may wait and
//! how many, the grace for our own previous name, and what the user reads for a refusal that
//! retrying cannot fix.

use crate::host_types::Millis;
use crate::hub::config::HubConfig;

/// First reconnect delay.
pub(crate) const BACKOFF_START_MS: Millis = 1_000;
/// Longest reconnect delay.
pub(crate) const BACKOFF_MAX_MS: Millis = 30_000;
/// How long the hub may take to answer a registration.
pub(crate) const REGISTRATION_TIMEOUT_MS: Millis = 10_000;
/// How long a socket may take to open before the attempt counts as failed (a socket to an
/// address that drops packets may otherwise stay "connecting" for minutes).
pub(crate) const CONNECT_TIMEOUT_MS: Millis = 10_000;
/// How old a message may be for its notification still to be worth sending after a reconnect
/// (the hub only remembers recent message ids).
pub(crate) const NOTIFICATION_MAX_AGE_MS: Millis = 10 * 60_000;
/// Most responses kept while disconnected.
pub(crate) const OUTBOX_LIMIT: usize = 100;
/// Longest wait for the close of the socket that held our name before registering on the new
/// one anyway: the hub frees a name only once it has handled the old socket's close.
pub(crate) const CLOSE_WAIT_MS: Millis = 2_000;
/// How long after our own registration ended a `DUPLICATE_NAME` for the same name is taken as
/// the hub still holding our previous connection (retried), not another app (permanent).
pub(crate) const OWN_NAME_GRACE_MS: Millis = 10_000;
/// First retry after such a `DUPLICATE_NAME`; doubles up to [`NAME_RETRY_MAX_MS`].
pub(crate) const NAME_RETRY_START_MS: Millis = 250;
pub(crate) const NAME_RETRY_MAX_MS: Millis = 2_000;
/// How long the client name and description must stay unchanged before a connected client
/// registers again with them (the settings tab applies a change on every keystroke).
pub(crate) const SETTINGS_SETTLE_MS: Millis = 1_000;

/// The reason given to the hub for a routed message over the 1 MB frame limit.
pub(crate) const OVERSIZED_REJECT_REASON: &str = "the message is over 1 MB, more than Obsidian takes in one message";

/// The reason given to the hub for a message that arrived as the connection was being closed.
pub(crate) const CLOSING_REJECT_REASON: &str = "the SmartHole connection is being turned off in Obsidian";

/// ±20 % (`random` in 0..1), never over 30 s.
pub(crate) fn reconnect_delay(failures: u32, random: f64) -> Millis {
    let exponent = failures.saturating_sub(1).min(16);
    let base = BACKOFF_START_MS.saturating_mul(1 << exponent).min(BACKOFF_MAX_MS) as f64;
    let jittered = base * (0.8 + 0.4 * random.clamp(0.0, 1.0));
    (jittered as Millis).min(BACKOFF_MAX_MS)
}

/// What the user reads for a refusal that retrying cannot fix.
pub(crate) fn permanent_refusal(code: &str, config: &HubConfig) -> Option<String> {
    match code {
        "INVALID_NAME" => Some(format!(
            "The SmartHole hub refused the client name \"{}\". Use a name that starts with a letter and has only letters, digits, - and _ (Settings → SmartHole hub → Client name).",
            config.client_name
        )),
        "INVALID_DESCRIPTION" => Some(
            "The SmartHole hub refused the routing description: it must be 1 to 1024 characters as the hub counts them (most emoji count as two) (Settings → SmartHole hub → Routing description).".to_owned(),
        ),
        "DUPLICATE_NAME" => Some(format!(
            "Another app is already connected to the SmartHole hub as \"{}\". Choose another client name (Settings → SmartHole hub → Client name).",
            config.client_name
        )),
        _ => None,
    }
}

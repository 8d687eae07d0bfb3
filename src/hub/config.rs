//! The hub connection's settings, checked against the hub's own rules before anything is sent,
//! so a bad name is a clear settings error rather than a refusal from the hub.

use thiserror::Error;

/// The hub's default address.
pub(crate) const DEFAULT_HUB_URL: &str = "ws://127.0.0.1:9473";
/// The client name the hub routes by default.
pub(crate) const DEFAULT_CLIENT_NAME: &str = "obsidian";
/// What the hub's router reads to decide what to send here.
pub(crate) const DEFAULT_DESCRIPTION: &str =
    "Manages my Obsidian notes: adds to lists and notes, finds and summarises what I \
wrote, edits notes, and answers questions about my vault.";

/// Where and as whom to connect.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HubConfig {
    pub url: String,
    pub client_name: String,
    pub description: String,
    pub version: String,
}

/// A setting the hub would refuse.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum HubConfigError {
    #[error(
        "the client name {0:?} is not allowed by the hub: it must start with a letter and use only letters, digits, - and _ (at most 64 characters)"
    )]
    Name(String),
    #[error(
        "the routing description must be 1 to 1024 characters as the hub counts them (UTF-16 units: most emoji and some rare characters count as two); it has {0}"
    )]
    Description(usize),
    #[error("the hub URL must start with ws:// or wss:// (got {0:?})")]
    Url(String),
}

/// A text's length as the hub counts it: a JavaScript string's length, in UTF-16 code units
/// (an emoji outside the Basic Multilingual Plane is two).
pub(crate) fn hub_length(text: &str) -> usize {
    text.chars().map(char::len_utf16).sum()
}

/// `^[A-Za-z][A-Za-z0-9_-]{0,63}$`, the hub's rule.
pub(crate) fn valid_client_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && name.len() <= 64
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

impl HubConfig {
    /// Checks the settings the hub checks.
    pub fn validate(&self) -> Result<(), HubConfigError> {
        let url = self.url.trim();
        if !(url.starts_with("ws://") || url.starts_with("wss://")) || url.len() <= "wss://".len() {
            return Err(HubConfigError::Url(self.url.clone()));
        }
        if !valid_client_name(&self.client_name) {
            return Err(HubConfigError::Name(self.client_name.clone()));
        }
        let units = hub_length(&self.description);
        if !(1..=1024).contains(&units) {
            return Err(HubConfigError::Description(units));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(name: &str, description: &str) -> HubConfig {
        HubConfig {
            url: DEFAULT_HUB_URL.into(),
            client_name: name.into(),
            description: description.into(),
            version: "1".into(),
        }
    }

    #[test]
    fn names_and_descriptions_follow_the_hubs_rules() {
        for good in ["obsidian", "a", "Notes_2-x", &format!("a{}", "b".repeat(63))] {
            assert!(valid_client_name(good), "{good}");
        }
        for bad in ["", "1notes", "_x", "my notes", "né", &format!("a{}", "b".repeat(64))] {
            assert!(!valid_client_name(bad), "{bad}");
        }
        assert_eq!(config("1x", "d").validate(), Err(HubConfigError::Name("1x".into())));
        assert_eq!(config("ok", "").validate(), Err(HubConfigError::Description(0)));
        assert_eq!(config("ok", &"é".repeat(1025)).validate(), Err(HubConfigError::Description(1025)));
        assert!(config("ok", &"é".repeat(1024)).validate().is_ok());
        // Counted as the hub counts: 600 emoji are 1,200 UTF-16 units.
        assert_eq!(hub_length(&"😀".repeat(600)), 1_200);
        assert_eq!(config("ok", &"😀".repeat(600)).validate(), Err(HubConfigError::Description(1_200)));
        assert!(config("ok", &"😀".repeat(512)).validate().is_ok());
        assert_eq!(
            config("ok", &format!("{}😀", "a".repeat(1023))).validate(),
            Err(HubConfigError::Description(1_025))
        );
        let text = HubConfigError::Description(1_200).to_string();
        assert!(text.contains("UTF-16") && text.contains("1200"), "{text}");
        let mut c = config("ok", "d");
        c.url = "http://x".into();
        assert!(matches!(c.validate(), Err(HubConfigError::Url(_))));
    }
}

//! Hub frames: any text from the socket is either a frame or a reason, never a panic; a routed
//! message inside is either a RoutedMessage or a reason.
#![no_main]
use libfuzzer_sys::fuzz_target;
use smarthole_agent::testing::internals::{parse_inbound, Inbound};
use smarthole_agent::testing::internals::parse_routed;

fuzz_target!(|text: &str| {
    if let Ok(Inbound::Message(payload)) = parse_inbound(text) {
        if let Ok(message) = parse_routed(&serde_json::Value::Object(payload), "2026-01-01T00:00:00.000Z") {
            assert!(!message.id.is_empty(), "a routed message always has an id");
        }
    }
});

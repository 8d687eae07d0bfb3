//! What the device lets the plugin offer, decided by the core from the host's facts: on a phone
//! the hub stays off whatever the settings say, and the answer names what is missing and why.

mod common;

use common::*;
use smarthole_agent::testing::FakeHost;
use smarthole_agent::{MessageProcessor, PlatformFacts};

const PHONE: PlatformFacts = PlatformFacts { mobile: true, can_start_programs: false, can_listen: false };

#[test]
fn on_a_phone_the_hub_stays_off_though_the_settings_turn_it_on() {
    let host = FakeHost::new();
    let p = MessageProcessor::new(host.clone(), settings()).expect("valid settings");
    assert!(p.settings().hub_enabled, "the settings ask for the hub");
    let features = p.report_platform(PHONE);
    assert!(!features.hub.available && !features.mcp_stdio.available && !features.agent_api.available);
    assert!(features.missing.as_deref().unwrap_or("").contains("need the desktop app"), "{features:?}");
    host.run(p.initialize()).expect("initialize");
    host.run_for(60_000);
    assert_eq!(host.last_hub_socket(), None, "no socket to a hub a phone cannot have");
}

#[test]
fn on_a_computer_the_hub_connects_and_nothing_is_missing() {
    let host = FakeHost::new();
    let p = MessageProcessor::new(host.clone(), settings()).expect("valid settings");
    let features = p.report_platform(PlatformFacts::default());
    assert!(features.hub.available && features.mcp_stdio.available && features.agent_api.available);
    assert_eq!(features.missing, None);
    host.run(p.initialize()).expect("initialize");
    assert!(host.last_hub_socket().is_some(), "the hub the settings turn on is dialled");
}

#[test]
fn a_phone_reported_after_the_start_closes_the_hub() {
    let host = FakeHost::new();
    let p = processor(&host);
    let socket = host.last_hub_socket().expect("connected");
    p.report_platform(PHONE);
    host.run_for(1_000);
    let sockets = host.hub_sockets();
    assert!(sockets.iter().any(|(s, _, open)| *s == socket && !*open), "closed: {sockets:?}");
    host.run_for(60_000);
    assert_eq!(host.last_hub_socket(), Some(socket), "no new socket");
}

//! The agents a host killed outright left running, ended at its next start: the core decides
//! from what the host recorded and what the system shows of each pid (js-shim's
//! agent-leftovers.ts records and kills; end to end: tests/node/agent-leftovers.test.mjs).

use smarthole_agent::{is_recorded_agent, leftovers_to_end, AgentRecord};

fn record(pid: u32, command: &str, args: &[&str]) -> AgentRecord {
    AgentRecord { pid, command: command.into(), args: args.iter().map(|a| a.to_string()).collect() }
}

#[test]
fn a_command_line_is_the_recorded_agents_when_its_program_and_every_argument_are_in_it() {
    let claude = record(10, "/home/u/.bin/claude-agent-acp", &[]);
    assert!(is_recorded_agent(&claude, "node /home/u/.bin/claude-agent-acp"), "run by its interpreter");
    assert!(!is_recorded_agent(&claude, "/usr/lib/firefox/firefox -contentproc"));
    let gemini = record(11, "gemini", &["--experimental-acp", "--policy", "/v/.smarthole/gemini-policy.toml"]);
    assert!(is_recorded_agent(
        &gemini,
        "node /usr/bin/gemini --experimental-acp --policy /v/.smarthole/gemini-policy.toml"
    ));
    assert!(!is_recorded_agent(&gemini, "node /usr/bin/gemini"), "another gemini run");
    let windows = record(12, "C:\\agents\\opencode.exe", &["acp"]);
    assert!(is_recorded_agent(&windows, "opencode.exe acp --cwd C:\\vault"));
    assert!(!is_recorded_agent(&record(13, "/bin/", &[]), "/bin/sh"), "no program name matches nothing");
}

#[test]
fn the_agent_still_running_is_ended_a_reused_pid_left_alone_a_gone_one_skipped() {
    let text = r#"[{"pid": 4100, "command": "/bin/sleep", "args": ["1000", "7"]},
                   {"pid": 4200, "command": "/opt/claude-agent-acp", "args": []},
                   {"pid": 4300, "command": "gemini", "args": ["--experimental-acp"]}]"#;
    let seen = |pid| match pid {
        4100 => Some("/bin/sleep 1000 7".to_owned()),
        4200 => Some("sleep 1001".to_owned()),
        _ => None,
    };
    let decision = leftovers_to_end(Some(text), seen);
    assert_eq!(decision.end, [4100]);
    assert!(decision.forget, "the record is emptied");
    assert_eq!(
        decision.notes,
        [
            "ending the agent a previous run left: 4100 /bin/sleep 1000 7",
            "process 4200 is no longer the agent started earlier (sleep 1001); left alone"
        ]
    );
}

#[test]
fn no_record_or_an_empty_one_ends_nothing_and_writes_nothing() {
    let ask = |_| -> Option<String> { panic!("no pid to look at") };
    for recorded in [None, Some("[]"), Some("{\"not\": \"a list\"}")] {
        let decision = leftovers_to_end(recorded, ask);
        assert!(decision.end.is_empty() && !decision.forget && decision.notes.is_empty(), "{recorded:?}: {decision:?}");
    }
}

#[test]
fn a_torn_record_is_said_and_ends_nothing() {
    let decision = leftovers_to_end(Some(r#"[{"pid": 4100, "comm"#), |_| Some("anything".into()));
    assert!(decision.end.is_empty() && !decision.forget);
    assert_eq!(decision.notes.len(), 1);
    assert!(decision.notes[0].starts_with("agent-processes.json not read:"), "{:?}", decision.notes);
}

#[test]
fn entries_that_are_not_an_agents_are_never_signalled() {
    // pid 0 and 1 (signalling their group reaches everything), a fraction, a negative pid, a
    // pid out of range, a missing field, wrong types: each skipped, the good one kept.
    let text = r#"[{"pid": 0, "command": "a", "args": []}, {"pid": 1, "command": "a", "args": []},
                   {"pid": 2.5, "command": "a", "args": []}, {"pid": -7, "command": "a", "args": []},
                   {"pid": 4294967295, "command": "a", "args": []}, {"pid": 9, "args": []},
                   {"pid": 10, "command": "a", "args": [1]}, "x", {"pid": 11, "command": "a", "args": []}]"#;
    let decision = leftovers_to_end(Some(text), |_| Some("a".into()));
    assert_eq!(decision.end, [11]);
}

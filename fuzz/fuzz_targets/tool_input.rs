//! Tool inputs: any JSON the model sends to any tool is checked against that tool's schema and
//! either accepted or refused with a message for the model, never a panic; accepted fields read
//! back with the types the schema gave them.
#![no_main]
use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use smarthole_agent::tools::{Args, ToolRegistry};

thread_local! {
    /// (name, schema as JSON text, property names) of every built-in tool.
    static TOOLS: Vec<(String, String, Vec<String>)> = {
        let tools: Value = serde_json::from_str(&ToolRegistry::default().request_json(&[])).expect("tools are JSON");
        tools.as_array().expect("an array").iter().map(|t| {
            let schema = &t["input_schema"];
            let names = schema["properties"].as_object().map(|p| p.keys().cloned().collect()).unwrap_or_default();
            (t["name"].as_str().unwrap_or_default().to_owned(), schema.to_string(), names)
        }).collect()
    };
}

fuzz_target!(|data: &[u8]| {
    let Some((&which, json)) = data.split_first() else { return };
    let Ok(input) = serde_json::from_slice::<Value>(json) else { return };
    TOOLS.with(|tools| {
        let (name, schema, properties) = &tools[usize::from(which) % tools.len()];
        match Args::parse(name, schema, &input) {
            Ok(args) => {
                for property in properties {
                    let _ = (args.str(property), args.number(property), args.flag(property), args.object(property));
                    let _ = args.strings(property);
                }
            }
            Err(refusal) => assert!(refusal.is_error && refusal.content.starts_with("Invalid input for")),
        }
    });
});

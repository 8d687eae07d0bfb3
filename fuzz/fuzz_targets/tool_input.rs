//! Tool inputs: any JSON the model sends to any tool is checked against that tool's schema and
//! either accepted or refused with a message for the model, never a panic; accepted fields read
//! back with the types the schema gave them.
#![no_main]
use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use smarthole_agent::testing::internals::{Args, ToolRegistry};

thread_local! {
    /// (name, schema as JSON text, (property, its JSON type)) of every built-in tool.
    static TOOLS: Vec<(String, String, Vec<(String, String)>)> = {
        let tools: Value = serde_json::from_str(&ToolRegistry::default().request_json(&[])).expect("tools are JSON");
        tools.as_array().expect("an array").iter().map(|t| {
            let schema = &t["input_schema"];
            let properties = schema["properties"].as_object().map(|p| {
                p.iter().map(|(k, v)| (k.clone(), v["type"].as_str().unwrap_or("").to_owned())).collect()
            }).unwrap_or_default();
            (t["name"].as_str().unwrap_or_default().to_owned(), schema.to_string(), properties)
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
                // What was accepted reads back as the schema typed it.
                for (property, kind) in properties {
                    let given = &input[property.as_str()];
                    match kind.as_str() {
                        "string" if !given.is_null() => {
                            assert_eq!(args.str(property), given.as_str(), "{name}.{property}")
                        }
                        "boolean" => {
                            assert_eq!(args.flag(property), given.as_bool().unwrap_or(false), "{name}.{property}")
                        }
                        "object" if !given.is_null() => assert!(args.object(property).is_some(), "{name}.{property}"),
                        "array" if !given.is_null() => assert_eq!(
                            args.strings(property).len(),
                            given.as_array().map_or(0, Vec::len),
                            "{name}.{property}"
                        ),
                        _ => {}
                    }
                }
            }
            Err(refusal) => assert!(refusal.is_error && refusal.content.starts_with("Invalid input for")),
        }
    });
});

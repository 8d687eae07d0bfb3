//! A tool's input, checked against the JSON schema the model was given for that tool: one
//! source of truth for what a tool accepts, and one small checker instead of a serde
//! deserializer per tool (each of those costs ~2.5 KB of wasm). The subset of JSON Schema the
//! tools use: an object with typed properties (`string`, `integer` with `minimum`/`maximum`,
//! `boolean`, `array` of strings), `enum`, `required`, and no other fields.

use serde_json::{Map, Value};

use super::call::ToolOutput;

/// Checked input: every field present has the type its schema says.
#[derive(Debug)]
pub struct Args {
    fields: Map<String, Value>,
}

impl Args {
    /// Checks `input` against `schema` (the tool's schema as JSON text); the error is what the
    /// model reads.
    pub fn parse(tool: &str, schema: &str, input: &Value) -> Result<Args, ToolOutput> {
        let schema: Value = serde_json::from_str(schema).unwrap_or(Value::Null);
        let invalid = |why: String| ToolOutput::error(format!("Invalid input for {tool}: {why}."));
        let empty = Map::new();
        let properties = schema.get("properties").and_then(Value::as_object).unwrap_or(&empty);
        let fields = match input {
            Value::Object(map) => map.clone(),
            Value::Null => Map::new(),
            other => return Err(invalid(format!("expected an object, got {}", describe(other)))),
        };
        for (name, value) in &fields {
            let Some(property) = properties.get(name) else {
                let known: Vec<String> = properties.keys().map(|k| format!("`{k}`")).collect();
                return Err(invalid(format!("unknown field `{name}`, expected one of {}", known.join(", "))));
            };
            check(name, property, value).map_err(invalid)?;
        }
        for required in schema.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str)
        {
            if !fields.contains_key(required) {
                return Err(invalid(format!("missing field `{required}`")));
            }
        }
        Ok(Args { fields })
    }

    /// A string field (`""` when absent: the schema made the required ones present).
    pub fn string(&self, name: &str) -> String {
        self.str(name).unwrap_or_default().to_owned()
    }

    /// An optional string field.
    pub fn str(&self, name: &str) -> Option<&str> {
        self.fields.get(name).and_then(Value::as_str)
    }

    /// An optional whole-number field.
    pub fn number(&self, name: &str) -> Option<usize> {
        self.fields.get(name).and_then(Value::as_u64).map(|n| usize::try_from(n).unwrap_or(usize::MAX))
    }

    /// A boolean field, false when absent.
    pub fn flag(&self, name: &str) -> bool {
        self.fields.get(name).and_then(Value::as_bool).unwrap_or(false)
    }

    /// An object field.
    pub fn object(&self, name: &str) -> Option<&serde_json::Map<String, Value>> {
        self.fields.get(name).and_then(Value::as_object)
    }

    /// A list of strings, empty when absent.
    pub fn strings(&self, name: &str) -> Vec<String> {
        let items = self.fields.get(name).and_then(Value::as_array);
        items.into_iter().flatten().filter_map(Value::as_str).map(str::to_owned).collect()
    }
}

/// Whether a value has the type, range and allowed values its property says.
fn check(name: &str, property: &Value, value: &Value) -> Result<(), String> {
    let wanted = property.get("type").and_then(Value::as_str).unwrap_or("any");
    let ok = match wanted {
        "string" => value.is_string(),
        "integer" => value.is_u64() || value.is_i64(),
        "boolean" => value.is_boolean(),
        "array" => value.as_array().is_some_and(|items| items.iter().all(Value::is_string)),
        "object" => value.is_object(),
        _ => true,
    };
    if !ok {
        let expected = if wanted == "array" { "a list of strings" } else { article(wanted) };
        return Err(format!("`{name}` must be {expected}, got {}", describe(value)));
    }
    if let Some(n) = value.as_i64() {
        if let Some(min) = property.get("minimum").and_then(Value::as_i64).filter(|min| n < *min) {
            return Err(format!("`{name}` must be at least {min}, got {n}"));
        }
        if let Some(max) = property.get("maximum").and_then(Value::as_i64).filter(|max| n > *max) {
            return Err(format!("`{name}` must be at most {max}, got {n}"));
        }
    }
    if let Some(allowed) = property.get("enum").and_then(Value::as_array) {
        if !allowed.contains(value) {
            let names: Vec<String> = allowed.iter().map(Value::to_string).collect();
            return Err(format!("`{name}` must be one of {}, got {value}", names.join(", ")));
        }
    }
    Ok(())
}

fn article(kind: &str) -> &'static str {
    match kind {
        "string" => "a string",
        "integer" => "a whole number",
        "boolean" => "true or false",
        "object" => "an object",
        _ => "a value of another type",
    }
}

/// A value as an error message names it: its type and, when short, itself.
fn describe(value: &Value) -> String {
    let kind = match value {
        Value::Null => return "null".to_owned(),
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_f64() => "number",
        Value::Number(_) => "integer",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => return "an object".to_owned(),
    };
    let text = value.to_string();
    if text.chars().count() <= 40 {
        format!("{kind} {text}")
    } else {
        format!("a long {kind}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const SCHEMA: &str = r#"{"type":"object","properties":{"meta":{"type":"object"},"path":{"type":"string"},"limit":{"type":"integer","minimum":1,"maximum":50},"all":{"type":"boolean"},"tags":{"type":"array","items":{"type":"string"}},"mode":{"type":"string","enum":["a","b"]}},"required":["path"]}"#;

    fn error(input: Value) -> String {
        Args::parse("t", SCHEMA, &input).unwrap_err().content
    }

    #[test]
    fn valid_input_reads_back_typed() {
        let args =
            Args::parse("t", SCHEMA, &json!({"path": "x.md", "limit": 5, "all": true, "tags": ["a"], "mode": "b"}))
                .unwrap();
        assert_eq!((args.string("path"), args.number("limit"), args.flag("all")), ("x.md".into(), Some(5), true));
        assert_eq!((args.strings("tags"), args.str("mode")), (vec!["a".to_owned()], Some("b")));
        let minimal = Args::parse("t", SCHEMA, &json!({"path": ""})).unwrap();
        assert_eq!((minimal.number("limit"), minimal.flag("all"), minimal.strings("tags")), (None, false, vec![]));
    }

    #[test]
    fn every_kind_of_bad_input_is_named_precisely() {
        assert_eq!(error(json!({})), "Invalid input for t: missing field `path`.");
        assert_eq!(
            error(json!({"path": "x", "file": 1})),
            "Invalid input for t: unknown field `file`, expected one of `all`, `limit`, `meta`, `mode`, `path`, `tags`."
        );
        assert_eq!(error(json!({"path": 7})), "Invalid input for t: `path` must be a string, got integer 7.");
        assert_eq!(
            error(json!({"path": "x", "limit": "ten"})),
            "Invalid input for t: `limit` must be a whole number, got string \"ten\"."
        );
        assert_eq!(
            error(json!({"path": "x", "limit": 1.5})),
            "Invalid input for t: `limit` must be a whole number, got number 1.5."
        );
        assert_eq!(error(json!({"path": "x", "limit": 0})), "Invalid input for t: `limit` must be at least 1, got 0.");
        assert_eq!(
            error(json!({"path": "x", "limit": 99})),
            "Invalid input for t: `limit` must be at most 50, got 99."
        );
        assert_eq!(
            error(json!({"path": "x", "tags": ["a", 1]})),
            "Invalid input for t: `tags` must be a list of strings, got array [\"a\",1]."
        );
        assert_eq!(
            error(json!({"path": "x", "mode": "c"})),
            "Invalid input for t: `mode` must be one of \"a\", \"b\", got \"c\"."
        );
        assert_eq!(error(json!("x.md")), "Invalid input for t: expected an object, got string \"x.md\".");
        assert_eq!(
            error(json!({"path": vec!["x"; 30]})),
            "Invalid input for t: `path` must be a string, got a long array."
        );
    }
}

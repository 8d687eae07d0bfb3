//! Field names in settings documents the user writes by hand: `data.json`, the headless
//! command's `--api-config` and `--mcp-config`. Serde ignores a field it does not know, so a
//! misspelled one (`allowed_actions` for `allowedActions`) would silently leave the default in
//! place; this finds every such field, where it is, and the name that was probably meant. The
//! hosts decide what to do with the answer: the headless command refuses to start, the plugin
//! keeps the field in `data.json` and says it is not used.

use serde_json::Value;

/// The fields of [`crate::Settings`] as JSON names (a test checks them against serde).
const SETTINGS: &[&str] = &[
    "baseUrl",
    "apiFormat",
    "authStyle",
    "model",
    "maxTokens",
    "apiKey",
    "backgroundModel",
    "backgroundBaseUrl",
    "backgroundApiFormat",
    "backgroundAuthStyle",
    "backgroundApiKey",
    "streaming",
    "maxIterations",
    "streamIdleTimeoutMs",
    "responseStartTimeoutMs",
    "notificationTitle",
    "contextTokenBudget",
    "informationArchitecture",
    "verboseLogging",
    "conversationIdleTimeoutMinutes",
    "conversationStateTimeoutMinutes",
    "markdownCopies",
    "markdownCopiesFolder",
    "enableConversationRetrospection",
    "retrospectionPrompt",
    "hubEnabled",
    "hubUrl",
    "hubClientName",
    "hubDescription",
    "protectedFolders",
    "followLinkedFolders",
    "searchIndexMaxMb",
    "embeddingsBaseUrl",
    "embeddingsModel",
    "embeddingsFormat",
    "embeddingsApiKey",
    "meaningIndexMaxMb",
    "autoApproveTools",
    "mcpServers",
    "agentApiEnabled",
    "agentApiPort",
    "agentApiToken",
    "verificationTimeoutSeconds",
    "agentContexts",
    "modelPrices",
    "agent",
    "agentCommand",
    "agentOwnTools",
    "agentEnvHidden",
];

/// The fields of [`crate::AgentContext`].
const CONTEXT: &[&str] =
    &["name", "port", "system", "role", "baseInstruction", "allowedActions", "verificationRequired"];

/// The fields of [`crate::McpServerConfig`].
const MCP_SERVER: &[&str] = &["name", "command", "args", "env", "url", "headers"];

/// The fields of [`crate::ModelPrice`].
const MODEL_PRICE: &[&str] = &["model", "inputPerMtok", "outputPerMtok", "contextWindow"];

/// What the plugin adds in `data.json`: the ids of secrets in secret storage.
pub(super) const PLUGIN_EXTRA: &[&str] = &["apiKeySecretId", "backgroundApiKeySecretId", "embeddingsApiKeySecretId"];
const PLUGIN_MCP_EXTRA: &[&str] = &["authSecretId"];

/// Which document a JSON value is, so the right names are expected at each level.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SettingsDocument {
    /// The core's settings (`CoreSettings`).
    Settings,
    /// The plugin's `data.json`: the settings, with secrets replaced by the ids of secrets.
    PluginData,
    /// `--api-config`: `{"agentContexts": [...], "verificationTimeoutSeconds": N}`.
    ApiConfig,
    /// `--mcp-config`: `{"mcpServers": [...]}`.
    McpConfig,
}

impl SettingsDocument {
    /// The document named as the shim names it (`settings`, `pluginData`, `apiConfig`, `mcpConfig`).
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "settings" => Some(SettingsDocument::Settings),
            "pluginData" => Some(SettingsDocument::PluginData),
            "apiConfig" => Some(SettingsDocument::ApiConfig),
            "mcpConfig" => Some(SettingsDocument::McpConfig),
            _ => None,
        }
    }

    /// The names expected at the top level.
    fn top(self) -> Vec<&'static str> {
        match self {
            SettingsDocument::Settings => SETTINGS.to_vec(),
            SettingsDocument::PluginData => SETTINGS.iter().chain(PLUGIN_EXTRA).copied().collect(),
            SettingsDocument::ApiConfig => vec!["agentContexts", "verificationTimeoutSeconds"],
            SettingsDocument::McpConfig => vec!["mcpServers"],
        }
    }

    /// The names expected in the items of a list field (`agentContexts`, `mcpServers`).
    fn items(self, list: &str) -> Option<Vec<&'static str>> {
        match list {
            "agentContexts" => Some(CONTEXT.to_vec()),
            "mcpServers" if self == SettingsDocument::PluginData => {
                Some(MCP_SERVER.iter().chain(PLUGIN_MCP_EXTRA).copied().collect())
            }
            "mcpServers" => Some(MCP_SERVER.to_vec()),
            "modelPrices" => Some(MODEL_PRICE.to_vec()),
            _ => None,
        }
    }
}

/// A field the document's reader does not know.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct UnknownField {
    /// Where it is: empty at the top level, else like `agentContexts[0]`.
    pub at: String,
    /// The name as written.
    pub field: String,
    /// The known name it most likely means (another spelling or a small typo).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub suggestion: Option<String>,
}

impl UnknownField {
    /// "unknown field `allowed_actions` in `<source>` at `agentContexts[0]` (did you mean
    /// `allowedActions`?)": `source` says which file (`--api-config`, `data.json`).
    pub fn describe(&self, source: &str) -> String {
        let at = if self.at.is_empty() { String::new() } else { format!(" at {}", self.at) };
        let hint = self.suggestion.as_ref().map(|s| format!(" (did you mean `{s}`?)")).unwrap_or_default();
        format!("unknown field `{}` in {source}{at}{hint}", self.field)
    }
}

/// Every field of `value` that `document`'s reader would ignore (by level, each level by name). Levels that
/// are not objects are skipped here (the reader refuses them with a type error); the free-form
/// maps (`env`, `headers`) are not looked into.
pub fn unknown_fields(value: &Value, document: SettingsDocument) -> Vec<UnknownField> {
    let mut out = Vec::new();
    let Some(top) = value.as_object() else { return out };
    let known = document.top();
    check_object(top, &known, "", &mut out);
    for (name, child) in top {
        let (Some(items), Some(list)) = (document.items(name), child.as_array()) else { continue };
        if !known.contains(&name.as_str()) {
            continue;
        }
        for (i, item) in list.iter().enumerate() {
            if let Some(object) = item.as_object() {
                check_object(object, &items, &format!("{name}[{i}]"), &mut out);
            }
        }
    }
    out
}

fn check_object(object: &serde_json::Map<String, Value>, known: &[&str], at: &str, out: &mut Vec<UnknownField>) {
    for field in object.keys() {
        if !known.contains(&field.as_str()) {
            out.push(UnknownField { at: at.to_owned(), field: field.clone(), suggestion: suggest(field, known) });
        }
    }
}

/// The known name `field` most likely means: the same letters in another case or with `_`/`-`
/// (`allowed_actions`, `AllowedActions`), else one within two edits of it.
fn suggest(field: &str, known: &[&str]) -> Option<String> {
    let plain =
        |s: &str| -> String { s.chars().filter(|c| *c != '_' && *c != '-').flat_map(char::to_lowercase).collect() };
    let wanted = plain(field);
    if let Some(same) = known.iter().find(|k| plain(k) == wanted) {
        return Some((*same).to_owned());
    }
    known
        .iter()
        .map(|k| (edit_distance(&plain(k), &wanted), *k))
        .filter(|(d, _)| *d <= 2)
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k.to_owned())
}

/// Levenshtein distance over characters (names here are short; the input is bounded by the
/// caller's file, and only names compared against known ones of at most 40 characters).
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    if a.len().abs_diff(b.len()) > 2 {
        return usize::MAX;
    }
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut current = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let substitution = previous[j] + usize::from(ca != cb);
            current.push(substitution.min(previous[j + 1] + 1).min(current[j] + 1));
        }
        previous = current;
    }
    previous[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settings::{AgentContext, McpServerConfig, Settings};
    use serde_json::json;

    fn keys(value: Value) -> Vec<String> {
        let mut keys: Vec<String> = value.as_object().expect("an object").keys().cloned().collect();
        keys.sort();
        keys
    }

    fn sorted(names: &[&str]) -> Vec<String> {
        let mut names: Vec<String> = names.iter().map(|s| (*s).to_owned()).collect();
        names.sort();
        names
    }

    #[test]
    fn the_known_names_are_serdes_names() {
        assert_eq!(keys(serde_json::to_value(Settings::default()).unwrap()), sorted(SETTINGS));
        let context = AgentContext { port: Some(9000), ..AgentContext::default() };
        assert_eq!(keys(serde_json::to_value(context).unwrap()), sorted(CONTEXT));
        let server = McpServerConfig {
            name: "x".into(),
            command: Some("c".into()),
            args: vec!["a".into()],
            env: [("K".into(), "V".into())].into(),
            url: Some("u".into()),
            headers: [("H".into(), "V".into())].into(),
        };
        assert_eq!(keys(serde_json::to_value(server).unwrap()), sorted(MCP_SERVER));
        let price = crate::usage::default_prices().remove(0);
        assert_eq!(keys(serde_json::to_value(price).unwrap()), sorted(MODEL_PRICE));
    }

    #[test]
    fn every_misspelling_is_named_with_what_was_meant() {
        let api = SettingsDocument::ApiConfig;
        type Expected<'a> = Vec<(&'a str, &'a str, Option<&'a str>)>;
        let cases: Vec<(Value, SettingsDocument, Expected)> = vec![
            (
                json!({"agentContexts": [{"name": "a", "allowedActions": []}], "verificationTimeoutSeconds": 3}),
                api,
                vec![],
            ),
            (
                json!({"agentContexts": [{"allowed_actions": [], "base_instruction": "x", "verification_required": false}]}),
                api,
                vec![
                    ("agentContexts[0]", "allowed_actions", Some("allowedActions")),
                    ("agentContexts[0]", "base_instruction", Some("baseInstruction")),
                    ("agentContexts[0]", "verification_required", Some("verificationRequired")),
                ],
            ),
            (json!({"agent_contexts": []}), api, vec![("", "agent_contexts", Some("agentContexts"))]),
            (
                json!({"verification_timeout_seconds": 3}),
                api,
                vec![("", "verification_timeout_seconds", Some("verificationTimeoutSeconds"))],
            ),
            (json!({"AgentContexts": []}), api, vec![("", "AgentContexts", Some("agentContexts"))]),
            (
                json!({"agentContexts": [{}, {"alowedActions": []}]}),
                api,
                vec![("agentContexts[1]", "alowedActions", Some("allowedActions"))],
            ),
            (
                json!({"agentContexts": [{"allowedAction": []}]}),
                api,
                vec![("agentContexts[0]", "allowedAction", Some("allowedActions"))],
            ),
            (json!({"contexts": []}), api, vec![("", "contexts", None)]),
            (json!({"mcpServers": []}), api, vec![("", "mcpServers", None)]),
            (json!({"agentContexts": "not a list", "x": 1}), api, vec![("", "x", None)]),
            (json!({"mcp_servers": []}), SettingsDocument::McpConfig, vec![("", "mcp_servers", Some("mcpServers"))]),
            (json!({"servers": []}), SettingsDocument::McpConfig, vec![("", "servers", None)]),
            (
                json!({"mcpServers": [{"name": "a", "command": "x", "arg": ["y"], "environment": {}, "env": {"any_name": "ok"}}]}),
                SettingsDocument::McpConfig,
                vec![("mcpServers[0]", "arg", Some("args")), ("mcpServers[0]", "environment", None)],
            ),
            (
                json!({"mcpServers": [{"authSecretId": "s"}]}),
                SettingsDocument::McpConfig,
                vec![("mcpServers[0]", "authSecretId", None)],
            ),
            (
                json!({"mcpServers": [{"authSecretId": "s"}], "apiKeySecretId": "k"}),
                SettingsDocument::PluginData,
                vec![],
            ),
            (
                json!({"maxToken": 5, "hub_url": "ws://x", "base_url": "http://x"}),
                SettingsDocument::Settings,
                vec![
                    ("", "base_url", Some("baseUrl")),
                    ("", "hub_url", Some("hubUrl")),
                    ("", "maxToken", Some("maxTokens")),
                ],
            ),
            (
                json!({"zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz": 1}),
                SettingsDocument::Settings,
                vec![("", "zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz", None)],
            ),
            (json!(["not", "an", "object"]), api, vec![]),
        ];
        for (value, document, expected) in cases {
            let found: Vec<(String, String, Option<String>)> =
                unknown_fields(&value, document).into_iter().map(|u| (u.at, u.field, u.suggestion)).collect();
            let expected: Vec<(String, String, Option<String>)> =
                expected.into_iter().map(|(a, f, s)| (a.to_owned(), f.to_owned(), s.map(str::to_owned))).collect();
            assert_eq!(found, expected, "{value}");
        }
    }

    #[test]
    fn the_message_names_the_field_the_file_and_the_right_spelling() {
        let found = unknown_fields(&json!({"agentContexts": [{"allowed_actions": []}]}), SettingsDocument::ApiConfig);
        assert_eq!(
            found[0].describe("--api-config"),
            "unknown field `allowed_actions` in --api-config at agentContexts[0] (did you mean `allowedActions`?)"
        );
        let top = UnknownField { at: String::new(), field: "x".into(), suggestion: None };
        assert_eq!(top.describe("data.json"), "unknown field `x` in data.json");
    }
}

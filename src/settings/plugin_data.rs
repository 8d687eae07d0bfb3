//! The plugin's `data.json` split into what is used and what is set aside: the one rule for
//! which saved fields the plugin runs with. A field is used when its name is a setting (or the id
//! of a secret in secret storage) and its value is what the settings' reader takes for it; an
//! unknown name (a misspelling, a newer version's setting) or a value of the wrong type is set
//! aside — kept in `data.json` untouched, never used, and named to the user. A key or token found
//! there is neither used nor kept: those live in secret storage.

use serde_json::{Map, Value};

use super::field_names::{unknown_fields, SettingsDocument, PLUGIN_EXTRA};
use super::values::Settings;

/// Settings that live in secret storage, never in `data.json`.
const SECRETS: [&str; 4] = ["apiKey", "backgroundApiKey", "embeddingsApiKey", "agentApiToken"];

/// The core's verdict on a `data.json` document; the plugin applies it as it is.
#[derive(Debug, Default, PartialEq, serde::Serialize)]
pub struct PluginDataSplit {
    /// The fields the plugin runs with (its saved settings).
    pub used: Map<String, Value>,
    /// The fields kept in `data.json` (written back on every save) but not used.
    pub aside: Map<String, Value>,
    /// A sentence for each field not used (nested unknown names included), for the user.
    pub problems: Vec<String>,
}

/// Whether `value` is what the settings' reader takes for the known field `name`.
fn fits(name: &str, value: &Value) -> bool {
    if PLUGIN_EXTRA.contains(&name) {
        return value.is_string();
    }
    let mut one = Map::new();
    one.insert(name.to_owned(), value.clone());
    crate::lean::from_value::<Settings>(&Value::Object(one)).is_ok()
}

/// Splits `data.json` (anything that is not an object has nothing to use).
pub fn split_plugin_data(data: &Value) -> PluginDataSplit {
    let mut split = PluginDataSplit::default();
    let Some(fields) = data.as_object() else { return split };
    let unknown = unknown_fields(data, SettingsDocument::PluginData);
    split.problems = unknown.iter().map(|u| u.describe("data.json")).collect();
    let named = |name: &str| !unknown.iter().any(|u| u.at.is_empty() && u.field == name);
    // The settings' reader reads each field on its own: when the named fields all read together,
    // each one does alone, and one read does instead of one per field (a saved data.json holds
    // forty, read at every start before Send is enabled; issue 37). Otherwise each is tried.
    let settings: Map<String, Value> = fields
        .iter()
        .filter(|(name, _)| !SECRETS.contains(&name.as_str()) && !PLUGIN_EXTRA.contains(&name.as_str()) && named(name))
        .map(|(name, value)| (name.clone(), value.clone()))
        .collect();
    let all_fit = crate::lean::from_value::<Settings>(&Value::Object(settings)).is_ok();
    let mut wrong_type = Vec::new();
    for (name, value) in fields {
        if SECRETS.contains(&name.as_str()) {
            continue;
        }
        let named = named(name);
        let read = all_fit && !PLUGIN_EXTRA.contains(&name.as_str());
        if named && (read || fits(name, value)) {
            split.used.insert(name.clone(), value.clone());
            continue;
        }
        if named {
            wrong_type.push(format!("field `{name}` in data.json has a value of the wrong type"));
        }
        split.aside.insert(name.clone(), value.clone());
    }
    split.problems.extend(wrong_type);
    split
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn names(map: &Map<String, Value>) -> Vec<&str> {
        map.keys().map(String::as_str).collect()
    }

    /// Each field of a hand-edited data.json: used, set aside (and named), or dropped (a secret).
    #[test]
    fn every_field_is_used_set_aside_or_dropped_by_the_settings_reader() {
        let split = split_plugin_data(&json!({
            "model": "m", "maxTokens": 100, "protectedFolders": ["Private"], "apiKeySecretId": "k",
            "mcpServers": [{"name": "a", "command": "x", "authSecretId": "s"}],
            "maxToken": 5, "futureSetting": true,
            "streaming": "yes", "maxIterations": 1.5, "autoApproveTools": {}, "apiFormat": "carrier-pigeon",
            "backgroundApiKeySecretId": 7, "hubUrl": null,
            "apiKey": "sk-secret", "agentApiToken": "t",
            "agentContexts": [{"name": "c", "allowed_actions": []}],
        }));
        assert_eq!(
            names(&split.used),
            ["agentContexts", "apiKeySecretId", "maxTokens", "mcpServers", "model", "protectedFolders"]
        );
        assert_eq!(
            names(&split.aside),
            [
                "apiFormat",
                "autoApproveTools",
                "backgroundApiKeySecretId",
                "futureSetting",
                "hubUrl",
                "maxIterations",
                "maxToken",
                "streaming"
            ]
        );
        assert_eq!(
            split.problems,
            [
                "unknown field `futureSetting` in data.json",
                "unknown field `maxToken` in data.json (did you mean `maxTokens`?)",
                "unknown field `allowed_actions` in data.json at agentContexts[0] (did you mean `allowedActions`?)",
                "field `apiFormat` in data.json has a value of the wrong type",
                "field `autoApproveTools` in data.json has a value of the wrong type",
                "field `backgroundApiKeySecretId` in data.json has a value of the wrong type",
                "field `hubUrl` in data.json has a value of the wrong type",
                "field `maxIterations` in data.json has a value of the wrong type",
                "field `streaming` in data.json has a value of the wrong type",
            ]
        );
        let used = Settings::from_json(Value::Object(split.used)).expect("what is used is read");
        assert_eq!((used.model.as_str(), used.max_tokens), ("m", 100));
    }

    #[test]
    fn a_document_that_is_not_an_object_has_nothing_to_use() {
        for data in [json!(null), json!([1, 2]), json!("text")] {
            assert_eq!(split_plugin_data(&data), PluginDataSplit::default(), "{data}");
        }
    }

    /// A data.json holding every setting (as a plugin that saved them all has it) is used whole,
    /// read at once; one wrong-typed field among them sets only that field aside, as when each
    /// is read on its own.
    #[test]
    fn every_setting_saved_is_used_and_one_wrong_field_among_them_is_set_aside_alone() {
        let Value::Object(mut all) = serde_json::to_value(Settings::default()).unwrap() else { panic!("an object") };
        for secret in SECRETS {
            all.remove(secret);
        }
        let split = split_plugin_data(&Value::Object(all.clone()));
        assert_eq!(split.used, all);
        assert!(split.aside.is_empty() && split.problems.is_empty(), "{split:?}");

        all.insert("maxTokens".into(), json!("many"));
        let split = split_plugin_data(&Value::Object(all.clone()));
        assert_eq!(names(&split.aside), ["maxTokens"]);
        assert_eq!(split.used.len(), all.len() - 1);
        assert_eq!(split.problems, ["field `maxTokens` in data.json has a value of the wrong type"]);
    }
}

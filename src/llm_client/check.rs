//! The connection check (issue 24): small real requests to the configured server, reported line
//! by line — reachable, key accepted, model found, streaming works, tools work — each failure
//! with the setting to change (the embedding server's lines are `check_embeddings`'). The model list it reads (`GET /v1/models`) also fills the model
//! field's suggestions. One module for the plugin's "Check connection" and the headless
//! `--check`, so both say the same thing.

use serde::Serialize;
use serde_json::Value;

use super::client::{auth_headers, call_model, endpoint, json_text, read_all, within};
use crate::host::Host;
use crate::host_types::HttpRequest;
use crate::llm::error::ErrorKind;
use crate::llm::request::{CacheTtl, ModelCall};
use crate::llm::{ApiMessage, LlmError, MessagesJson};
use crate::settings::{AuthStyle, Settings};

/// One line of the report.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CheckLine {
    /// What was checked: `reachable`, `key`, `model`, `streaming`, `tools`, `images`, and with an
    /// embedding server set `embeddings`, `embeddings_dimension`, `embeddings_speed`.
    pub step: String,
    pub ok: bool,
    /// A capability the chat works without (images): its failure is reported, not a failed check.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub optional: bool,
    /// What was found, and on a failure what to change.
    pub text: String,
}

/// The whole report, and the models the server offers (empty when it lists none).
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct ConnectionCheck {
    pub lines: Vec<CheckLine>,
    pub models: Vec<String>,
    /// Every line passed.
    pub ok: bool,
}

/// Longest wait for a check's request to begin its answer: the check is a quick look, done in
/// seconds even when the server takes the connection and never answers.
const CHECK_START_MS: u64 = 15_000;
/// Largest model list read.
const MAX_LIST_BYTES: usize = 1024 * 1024;
/// The probe tool the model is asked to call.
const PROBE_TOOLS: &str = r#"[{"name":"connection_probe","description":"Confirms that tool calls work. Call it when asked to.","input_schema":{"type":"object","properties":{"word":{"type":"string"}},"required":["word"]}}]"#;

fn line(step: &str, ok: bool, text: impl Into<String>) -> CheckLine {
    CheckLine { step: step.to_owned(), ok, text: text.into(), optional: false }
}

/// A 1x1 PNG: the smallest image a server with vision reads.
const PROBE_PNG: &str =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";

/// Whether a body is a web page rather than an API's JSON.
fn looks_like_html(body: &str) -> bool {
    body.trim_start().starts_with('<')
}

/// What to change for a failed model request.
fn advice(error: &LlmError, settings: &Settings) -> String {
    let base = &settings.base_url;
    match error.kind {
        ErrorKind::Auth | ErrorKind::Permission => match settings.auth_style {
            AuthStyle::XApiKey => format!("the key was refused ({error}): check the API key, or set the auth style to \"bearer\" if this server wants Authorization: Bearer"),
            AuthStyle::Bearer => format!("the key was refused ({error}): check the API key, or set the auth style to \"x-api-key\" for Anthropic"),
            AuthStyle::None => format!("the server wants a key ({error}): set the API key and the auth style"),
        },
        ErrorKind::NotFound => format!("{} was not found ({error}): check the base URL {base} (with or without /v1) and the format ({})", endpoint(settings), settings.api_format.name()),
        ErrorKind::Unanswered => format!("{}: is the server busy, or does {base} not speak the {} format? Check the base URL", error.detail, settings.api_format.name()),
        ErrorKind::Network => format!("cannot reach {} ({error}): check the base URL and that the server is running", endpoint(settings)),
        ErrorKind::Redirected => error.user_message(&settings.model),
        _ => format!("{error}"),
    }
}

/// The models the server lists, or the line saying why there is no list.
async fn list_models<H: Host>(host: &H, settings: &Settings) -> Result<Vec<String>, CheckLine> {
    let url = endpoint(settings).rsplit_once('/').map(|(head, _)| head).unwrap_or_default().to_owned();
    // `/v1/messages` and `/v1/chat/completions` both list at `/v1/models`.
    let url = format!("{}/models", url.strip_suffix("/chat").unwrap_or(&url));
    let request = HttpRequest {
        method: "GET".into(),
        url: url.clone(),
        headers: auth_headers(settings),
        body: String::new(),
        stream: false,
    };
    let fetched = within(host, fetch_list(host, settings, request), CHECK_START_MS, &mut |_| {}).await;
    let Some(fetched) = fetched else {
        return Err(line(
            "reachable",
            false,
            format!("connected, but no answer in {} s from {url}: is the server busy, or does {} not speak the {} format? Check the base URL", CHECK_START_MS / 1000, settings.base_url, settings.api_format.name()),
        ));
    };
    let (status, body) = fetched?;
    let text = String::from_utf8_lossy(&body);
    if looks_like_html(&text) {
        return Err(line("reachable", false, format!("{url} answered a web page, not the API: the base URL ({}) is probably wrong — try it with or without /v1", settings.base_url)));
    }
    if !(200..300).contains(&status) {
        // Many servers list no models; the requests below still tell whether the rest works.
        return Ok(Vec::new());
    }
    let Ok(list) = json_text(&body) else {
        return Err(line(
            "reachable",
            false,
            format!("{url} answered something that is not JSON: is this a {} server?", settings.api_format.name()),
        ));
    };
    let ids =
        list.get("data").or_else(|| list.get("models")).and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[]);
    Ok(ids
        .iter()
        .filter_map(|m| m.get("id").or_else(|| m.get("name")).and_then(Value::as_str).map(str::to_owned))
        .collect())
}

/// The model list's status and body, or the line saying why there is none.
async fn fetch_list<H: Host>(host: &H, settings: &Settings, request: HttpRequest) -> Result<(u16, Vec<u8>), CheckLine> {
    let url = request.url.clone();
    let mut response = host.http(request).await.map_err(|e| {
        line(
            "reachable",
            false,
            format!(
                "cannot reach {url} ({e}): check the base URL ({}) and that the server is running",
                settings.base_url
            ),
        )
    })?;
    if (300..400).contains(&response.status) {
        let error = LlmError::redirected(&url, response.header("location"));
        return Err(line("reachable", false, error.user_message(&settings.model)));
    }
    if matches!(response.status, 401 | 403) {
        let error = LlmError::from_status(response.status, None, format!("HTTP {}", response.status));
        return Err(line("key", false, advice(&error, settings)));
    }
    match read_all(&mut response.body, MAX_LIST_BYTES).await {
        Ok(body) => Ok((response.status, body)),
        Err(e) => Err(line("reachable", false, format!("could not read the model list at {url}: {e}"))),
    }
}

/// Runs the check with the settings the core has.
pub(crate) async fn check_connection<H: Host>(host: &H, settings: &Settings) -> ConnectionCheck {
    let mut report = ConnectionCheck::default();
    match list_models(host, settings).await {
        Err(failed) => report.lines.push(failed),
        Ok(models) => {
            report.lines.push(line("reachable", true, format!("{} answers", settings.base_url)));
            if models.is_empty() {
                report.lines.push(line(
                    "model",
                    true,
                    format!("the server lists no models; {} is tried below", settings.model),
                ));
            } else if models.contains(&settings.model) {
                report.lines.push(line(
                    "model",
                    true,
                    format!("{} is among the server's {} models", settings.model, models.len()),
                ));
            } else {
                let some: Vec<&str> = models.iter().take(8).map(String::as_str).collect();
                report.lines.push(line(
                    "model",
                    false,
                    format!("the server has no model named {}: choose one of {}", settings.model, some.join(", ")),
                ));
            }
            report.models = models;
        }
    }
    if report.lines.iter().all(|l| l.ok) {
        run_requests(host, settings, &mut report).await;
    }
    report.ok = report.lines.iter().all(|l| l.ok || l.optional);
    report
}

/// The streamed request and the tool request.
async fn run_requests<H: Host>(host: &H, settings: &Settings, report: &mut ConnectionCheck) {
    let history = MessagesJson::new();
    let small = Settings {
        max_tokens: 64.min(settings.max_tokens),
        streaming: true,
        response_start_timeout_ms: CHECK_START_MS.min(settings.response_start_timeout_ms),
        ..settings.clone()
    };
    let hello = [ApiMessage::user_text("This is a connection check. Reply with the word OK.")];
    let call = ModelCall { system: &[], history: &history, messages: &hello, tools: "", ttl: CacheTtl::Off };
    let mut streamed = 0usize;
    match call_model(host, &small, call, &mut |t| streamed += t.len(), &mut |_| {}, &mut None).await {
        Ok(_) => {
            report.lines.push(line("key", true, "the key was accepted"));
            report.lines.push(line(
                "streaming",
                streamed > 0,
                if streamed > 0 {
                    "an answer streamed".to_owned()
                } else {
                    "the answer streamed no text: turn streaming off in the settings if this persists".to_owned()
                },
            ));
        }
        Err(error) => {
            let step = if matches!(error.kind, ErrorKind::Auth | ErrorKind::Permission) { "key" } else { "streaming" };
            report.lines.push(line(step, false, advice(&error, &small)));
            return;
        }
    }
    let ask =
        [ApiMessage::user_text("This is a connection check. Call the connection_probe tool with the word \"ping\".")];
    let tools = Settings { max_tokens: 200.min(settings.max_tokens), streaming: false, ..settings.clone() };
    let call = ModelCall { system: &[], history: &history, messages: &ask, tools: PROBE_TOOLS, ttl: CacheTtl::Off };
    match call_model(host, &tools, call, &mut |_| {}, &mut |_| {}, &mut None).await {
        Ok(answer) if answer.content.iter().any(|b| matches!(b, crate::llm::ContentBlock::ToolUse { name, .. } if name == "connection_probe")) => {
            report.lines.push(line("tools", true, "the model called the probe tool"));
        }
        Ok(_) => report.lines.push(line("tools", false, format!("{} answered without calling the probe tool: the agent's note tools need a model that calls tools (a llama.cpp server needs --jinja)", settings.model))),
        Err(error) => report.lines.push(line("tools", false, format!("a request with tools failed: {}", advice(&error, &tools)))),
    }
    report.lines.push(images_line(host, settings).await);
}

/// Whether the model takes an image: a tiny PNG with a one-word question. Optional: the chat
/// works without, but images and PDFs the user attaches need it.
async fn images_line<H: Host>(host: &H, settings: &Settings) -> CheckLine {
    let history = MessagesJson::new();
    let look = [ApiMessage {
        role: crate::llm::Role::User,
        content: vec![
            crate::llm::ContentBlock::image("image/png", PROBE_PNG),
            crate::llm::ContentBlock::text("This is a connection check. What colour is this image? One word."),
        ],
    }];
    let small = Settings { max_tokens: 16.min(settings.max_tokens), streaming: false, ..settings.clone() };
    let call = ModelCall { system: &[], history: &history, messages: &look, tools: "", ttl: CacheTtl::Off };
    let mut found = match call_model(host, &small, call, &mut |_| {}, &mut |_| {}, &mut None).await {
        Ok(_) => line("images", true, "images accepted"),
        Err(error) => line(
            "images",
            false,
            format!(
                "{} does not take images ({error}): chatting works, but attach no images or PDFs, or choose a model with vision",
                settings.model
            ),
        ),
    };
    found.optional = true;
    found
}

#[cfg(test)]
mod tests {
    use super::looks_like_html;

    #[test]
    fn web_pages_are_told_from_json() {
        assert!(looks_like_html("\n<!DOCTYPE html><html>"));
        assert!(looks_like_html("<html><body>404</body></html>"));
        assert!(!looks_like_html("{\"data\": []}"));
        assert!(!looks_like_html(""));
    }
}

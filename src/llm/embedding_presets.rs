//! Embedding presets (issue 35): what a user picks in "Search by meaning" instead of knowing each
//! embedding server's base URL, format and model. A preset fills those fields; each stays
//! editable, "off" empties the base URL (search by words only) and "custom" changes nothing. The
//! memory ceiling's reach (`meaning_ceiling_covers`) is here too, so the settings say what the
//! number they show means.

use serde::Serialize;

use super::embeddings::EmbeddingsFormat;

/// One embedding server's defaults, and what the user should know of it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EmbeddingPreset {
    pub id: &'static str,
    pub name: &'static str,
    /// Empty for "off" (and for "custom", which keeps what is set).
    pub base_url: &'static str,
    pub format: EmbeddingsFormat,
    /// Empty where the user picks one (custom, LM Studio's loaded model).
    pub model: &'static str,
    /// The server wants an API key.
    pub needs_key: bool,
    /// What it is good at, where it is weak, what to start or where the key comes from.
    pub note: &'static str,
}

/// The presets, in the order the settings list them.
pub fn embedding_presets() -> Vec<EmbeddingPreset> {
    use EmbeddingsFormat::{Ollama, OpenAi};
    let preset = |id, name, base_url, format, model, needs_key, note| EmbeddingPreset {
        id,
        name,
        base_url,
        format,
        model,
        needs_key,
        note,
    };
    vec![
        preset("off", "Off", "", OpenAi, "", false, "Search by words only: nothing is embedded and nothing is sent."),
        preset(
            "offline",
            "Offline model on this computer (llama.cpp server)",
            "http://127.0.0.1:8093",
            OpenAi,
            "all-minilm-l6-v2",
            false,
            "all-MiniLM-L6-v2 (384 dimensions) served by llama.cpp's server; start it with scripts/local-model.sh embeddings-start. Small and fast on any CPU, nothing leaves the computer. English only: weak on other languages and across languages, and on long passages (512 tokens at most).",
        ),
        preset(
            "ollama",
            "Ollama",
            "http://localhost:11434",
            Ollama,
            "nomic-embed-text",
            false,
            "Ollama's own API; pull the model first (ollama pull nomic-embed-text). Local and free, good on English notes and long passages (8,192 tokens); weaker on other languages (try bge-m3 for those).",
        ),
        preset(
            "ollama-openai",
            "Ollama (OpenAI-compatible)",
            "http://localhost:11434/v1",
            OpenAi,
            "nomic-embed-text",
            false,
            "Ollama through its OpenAI-compatible endpoint: the same models, for a server that only offers that one. Quality is the model's, as above.",
        ),
        preset(
            "lm-studio",
            "LM Studio",
            "http://localhost:1234/v1",
            OpenAi,
            "",
            false,
            "Start LM Studio's server and load an embedding model; name it below. Local and free; quality and languages are the model's (nomic-embed-text for English, multilingual-e5 or bge-m3 for other languages).",
        ),
        preset(
            "openai",
            "OpenAI",
            "https://api.openai.com/v1",
            OpenAi,
            "text-embedding-3-small",
            true,
            "An OpenAI API key. Strong on many languages and cheap; every passage of your notes is sent to OpenAI, and a phone can search with it without a computer.",
        ),
        preset(
            "voyage",
            "Voyage AI",
            "https://api.voyageai.com/v1",
            OpenAi,
            "voyage-3.5-lite",
            true,
            "A Voyage AI API key: Anthropic's recommendation (Anthropic has no embeddings API). Strong retrieval on many languages and long passages; every passage is sent to Voyage AI, and a phone can search with it without a computer.",
        ),
        preset("custom", "Custom", "", OpenAi, "", false, "Set the base URL, format, model and key yourself."),
    ]
}

/// Bytes the meaning index holds per passage beyond its vector's dimensions (scale, key, slot,
/// the passage's place in its note and a share of the note's own entry), rounded up.
const BYTES_PER_PASSAGE_BESIDES_VECTOR: u64 = 128;
/// Passages of a typical note, for the ceiling's reach in notes.
const PASSAGES_PER_NOTE: u64 = 4;

/// What a memory ceiling of `mb` holds at `dims` dimensions.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CeilingReach {
    pub passages: u64,
    pub notes: u64,
    /// The sentence the settings show under the ceiling.
    pub text: String,
}

/// How many passages (and notes of a typical length) `mb` megabytes of meaning index hold.
pub fn meaning_ceiling_covers(mb: u32, dims: u32) -> CeilingReach {
    let per_passage = u64::from(dims.max(1)) + BYTES_PER_PASSAGE_BESIDES_VECTOR;
    let passages = u64::from(mb) * 1024 * 1024 / per_passage;
    let notes = passages / PASSAGES_PER_NOTE;
    let text = if mb == 0 {
        "0: search by meaning is off.".to_owned()
    } else {
        format!(
            "{mb} MB hold about {} passages at {dims} dimensions: about {} notes of {PASSAGES_PER_NOTE} passages. Past it, the notes embedded are searched by meaning, the rest by words.",
            crate::lean::thousands(passages),
            crate::lean::thousands(notes)
        )
    };
    CeilingReach { passages, notes, text }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_preset_but_off_and_custom_names_a_server_and_a_key_only_for_hosted_ones() {
        let presets = embedding_presets();
        assert_eq!(presets.first().map(|p| p.id), Some("off"));
        assert_eq!(presets.last().map(|p| p.id), Some("custom"));
        for p in &presets[1..presets.len() - 1] {
            assert!(p.base_url.starts_with("http"), "{p:?}");
            assert_eq!(p.needs_key, p.base_url.starts_with("https://"), "{p:?}");
        }
        let offline = presets.iter().find(|p| p.id == "offline").expect("offline preset");
        assert!(offline.note.contains("English only"));
    }

    #[test]
    fn the_default_ceiling_covers_about_two_thousand_passages_a_megabyte() {
        let reach = meaning_ceiling_covers(64, 384);
        assert_eq!(reach.passages, 64 * 1024 * 1024 / 512);
        assert_eq!(reach.notes, reach.passages / 4);
        assert!(reach.text.contains("131,072 passages"), "{}", reach.text);
        assert!(meaning_ceiling_covers(0, 384).text.contains("off"));
    }
}

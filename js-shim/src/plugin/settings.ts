// The plugin's settings, as saved in data.json (never an API key: only the id of the secret in
// Obsidian's secret storage), and the core settings built from them.
import type { App } from "obsidian";
import type { CoreSettings, McpServerConfig } from "smarthole-core";

/** The id of the secret holding the API key, unless the user picks another. */
export const DEFAULT_SECRET_ID = "anthropic-api-key";
/** The id of the secret holding the background server's key, unless the user picks another. */
export const DEFAULT_BACKGROUND_SECRET_ID = "smarthole-background-api-key";
/** The id of the secret holding the embedding server's key, unless the user picks another. */
export const DEFAULT_EMBEDDINGS_SECRET_ID = "smarthole-embeddings-api-key";
/** The id of the secret holding the agent API's access token. */
export const API_TOKEN_SECRET_ID = "smarthole-agent-api-token";

/** An integration as data.json keeps it: headers are not stored, only the id of the secret that
 * holds its Authorization header. */
export type SavedMcpServer = Omit<McpServerConfig, "headers"> & { authSecretId?: string };

/** What data.json holds: the user's choices; absent fields take the core's defaults. */
export type SavedSettings = Partial<Omit<Required<CoreSettings>, "apiKey" | "backgroundApiKey" | "embeddingsApiKey" | "agentApiToken" | "mcpServers">> & {
  apiKeySecretId?: string;
  backgroundApiKeySecretId?: string;
  embeddingsApiKeySecretId?: string;
  mcpServers?: SavedMcpServer[];
};

/** A setting as the user sees it: their value, else the core's default. */
export function savedOr<K extends keyof CoreSettings>(saved: SavedSettings, defaults: Required<CoreSettings>, key: K): Required<CoreSettings>[K] {
  return (saved[key as keyof SavedSettings] as Required<CoreSettings>[K] | undefined) ?? defaults[key];
}

/** The settings the core runs with: the saved ones over the defaults, the secrets (the API key,
 * the agent API's token, integrations' Authorization headers) from secret storage. */
export function coreSettings(app: App, saved: SavedSettings): CoreSettings {
  const { apiKeySecretId, backgroundApiKeySecretId, embeddingsApiKeySecretId, mcpServers, ...rest } = saved;
  const apiKey = app.secretStorage.getSecret(apiKeySecretId ?? DEFAULT_SECRET_ID) ?? "";
  const backgroundApiKey = app.secretStorage.getSecret(backgroundApiKeySecretId ?? DEFAULT_BACKGROUND_SECRET_ID) ?? "";
  const embeddingsApiKey = app.secretStorage.getSecret(embeddingsApiKeySecretId ?? DEFAULT_EMBEDDINGS_SECRET_ID) ?? "";
  const servers = (mcpServers ?? []).map(({ authSecretId, ...server }) => {
    const auth = authSecretId ? app.secretStorage.getSecret(authSecretId) : null;
    return auth ? { ...server, headers: { Authorization: auth } } : server;
  });
  const agentApiToken = app.secretStorage.getSecret(API_TOKEN_SECRET_ID) ?? "";
  return { ...rest, apiKey, backgroundApiKey, embeddingsApiKey, agentApiToken, mcpServers: servers };
}

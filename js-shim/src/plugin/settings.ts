// The plugin's settings, as saved in data.json (never the API key: only the id of the secret in
// Obsidian's secret storage), and the core settings built from them.
import type { App } from "obsidian";
import type { CoreSettings, McpServerConfig } from "smarthole-core";

/** The id of the secret holding the API key, unless the user picks another. */
export const DEFAULT_SECRET_ID = "anthropic-api-key";
/** The id of the secret holding the background server's key, unless the user picks another. */
export const DEFAULT_BACKGROUND_SECRET_ID = "smarthole-background-api-key";
/** The id of the secret holding the agent API's access token. */
export const API_TOKEN_SECRET_ID = "smarthole-agent-api-token";

/** An integration as data.json keeps it: headers are not stored, only the id of the secret that
 * holds its Authorization header. */
export type SavedMcpServer = Omit<McpServerConfig, "headers"> & { authSecretId?: string };

/** What data.json holds: the user's choices; absent fields take the core's defaults. */
export type SavedSettings = Partial<Omit<Required<CoreSettings>, "apiKey" | "backgroundApiKey" | "agentApiToken" | "mcpServers">> & {
  apiKeySecretId?: string;
  backgroundApiKeySecretId?: string;
  mcpServers?: SavedMcpServer[];
};

/** Settings that live in secret storage, never in data.json; and the fields naming their secrets. */
const SECRETS = ["apiKey", "backgroundApiKey", "agentApiToken"];
export const SECRET_IDS = ["apiKeySecretId", "backgroundApiKeySecretId"];

/** A setting as the user sees it: their value, else the core's default. */
export function savedOr<K extends keyof CoreSettings>(saved: SavedSettings, defaults: Required<CoreSettings>, key: K): Required<CoreSettings>[K] {
  return (saved[key as keyof SavedSettings] as Required<CoreSettings>[K] | undefined) ?? defaults[key];
}

/**
 * Splits data.json into the fields the plugin uses and the ones it sets aside: unknown names
 * (a misspelling, a newer version's setting) and values of the wrong type. What is set aside is
 * written back untouched on every save, so nothing the user wrote is lost; the core says which
 * fields those are (see main.ts). A key or token found in data.json is neither used nor kept:
 * they live in secret storage.
 */
export function cleanSaved(data: unknown, defaults: Required<CoreSettings>): { saved: SavedSettings; aside: Record<string, unknown> } {
  const saved: Record<string, unknown> = {};
  const aside: Record<string, unknown> = {};
  if (data && typeof data === "object" && !Array.isArray(data)) {
    for (const [key, value] of Object.entries(data as Record<string, unknown>)) {
      if (SECRETS.includes(key)) continue;
      const known = SECRET_IDS.includes(key) ? typeof value === "string" : key in defaults && typeof value === typeof (defaults as Record<string, unknown>)[key];
      (known ? saved : aside)[key] = value;
    }
  }
  return { saved, aside };
}

/** The settings the core runs with: the saved ones over the defaults, the secrets (the API key,
 * the agent API's token, integrations' Authorization headers) from secret storage. */
export function coreSettings(app: App, saved: SavedSettings): CoreSettings {
  const { apiKeySecretId, backgroundApiKeySecretId, mcpServers, ...rest } = saved;
  const apiKey = app.secretStorage.getSecret(apiKeySecretId ?? DEFAULT_SECRET_ID) ?? "";
  const backgroundApiKey = app.secretStorage.getSecret(backgroundApiKeySecretId ?? DEFAULT_BACKGROUND_SECRET_ID) ?? "";
  const servers = (mcpServers ?? []).map(({ authSecretId, ...server }) => {
    const auth = authSecretId ? app.secretStorage.getSecret(authSecretId) : null;
    return auth ? { ...server, headers: { Authorization: auth } } : server;
  });
  const agentApiToken = app.secretStorage.getSecret(API_TOKEN_SECRET_ID) ?? "";
  return { ...rest, apiKey, backgroundApiKey, agentApiToken, mcpServers: servers };
}

#!/usr/bin/env node
// A client of SmartHole Agent's local agent API for Node 18 or later, with no dependencies.
//
// It reads /config and /context, sends the vault agent a message and waits for the answer, and
// asks the user to verify actions, polling until each is approved, rejected or timed out.
//
//   export SMARTHOLE_API_TOKEN=...   # Settings → SmartHole Agent → Agent API → Copy
//   node examples/agent_api_client.mjs --message "Add 'call the plumber' to my inbox note" \
//     --verify "git_push:push the release branch"
//
// Errors: 5xx, 429 and connection failures are retried with exponential backoff (0.5 s doubling,
// 5 attempts); other 4xx are never retried (a 404 will not go away); a client that gives up says
// why and exits with status 1.
import { parseArgs } from "node:util";

const ATTEMPTS = 5;
const FIRST_DELAY_MS = 500;

class ApiError extends Error {}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export class AgentApi {
  constructor(baseUrl, token) {
    this.baseUrl = baseUrl.replace(/\/+$/, "");
    this.token = token;
  }

  /** One request, retried on 5xx, 429 and connection errors; resolves with { status, body }. */
  async call(method, path, body) {
    let delay = FIRST_DELAY_MS;
    for (let attempt = 1; ; attempt++) {
      let problem;
      try {
        const response = await fetch(this.baseUrl + path, {
          method,
          headers: { Authorization: `Bearer ${this.token}`, ...(body ? { "Content-Type": "application/json" } : {}) },
          body: body ? JSON.stringify(body) : undefined,
          signal: AbortSignal.timeout(90_000),
        });
        const json = await response.json().catch(() => ({}));
        if (response.ok) return { status: response.status, body: json };
        problem = `${method} ${path}: HTTP ${response.status} ${json.error?.code ?? ""}: ${json.error?.message ?? ""}`;
        if (response.status < 500 && response.status !== 429) throw new ApiError(problem);
      } catch (error) {
        if (error instanceof ApiError) throw error;
        problem = `${method} ${path}: cannot reach ${this.baseUrl} (${error.cause?.code ?? error.message}); is the agent API on?`;
      }
      if (attempt === ATTEMPTS) throw new ApiError(`${problem} (gave up after ${ATTEMPTS} attempts)`);
      await sleep(delay);
      delay *= 2;
    }
  }

  async config() {
    const { body } = await this.call("GET", "/config");
    // Never use a configuration that does not look like ours.
    if (!Array.isArray(body.endpoints) || body.api_version !== 1) {
      throw new ApiError("GET /config: not a SmartHole Agent API configuration (api_version 1)");
    }
    return body;
  }

  /** Sends a message and waits until the agent has finished with it. */
  async send(text, { waitS = 30, timeoutS = 300 } = {}) {
    let { body } = await this.call("POST", `/messages?wait=${waitS}`, { text });
    const deadline = Date.now() + timeoutS * 1000;
    while (body.status === "queued" || body.status === "processing") {
      if (Date.now() > deadline) throw new ApiError(`message ${body.message_id}: not finished after ${timeoutS} s`);
      ({ body } = await this.call("GET", `/messages/${body.message_id}?wait=${waitS}`));
    }
    return body;
  }

  /** Asks the user; resolves with the final status document (approved or rejected). */
  async verify(action, reason, { timeoutS = 330 } = {}) {
    let { body } = await this.call("POST", "/verify", { action, reason });
    const deadline = Date.now() + timeoutS * 1000;
    while (body.status === "pending") {
      if (Date.now() > deadline) throw new ApiError(`verification ${body.verification_id}: still pending after ${timeoutS} s`);
      ({ body } = await this.call("GET", `/verify/${body.verification_id}?wait=30`));
    }
    return body;
  }
}

async function main() {
  const { values } = parseArgs({
    options: {
      url: { type: "string", default: process.env.SMARTHOLE_API_URL ?? "http://127.0.0.1:8090" },
      message: { type: "string" },
      verify: { type: "string", multiple: true, default: [] },
    },
  });
  const token = process.env.SMARTHOLE_API_TOKEN;
  if (!token) throw new ApiError("set SMARTHOLE_API_TOKEN to the token from Settings → SmartHole Agent → Agent API");
  const api = new AgentApi(values.url, token);
  const config = await api.config();
  console.log(`config: ${config.name} ${config.version}, api_version ${config.api_version}, ${config.endpoints.length} endpoints`);
  const { body: context } = await api.call("GET", "/context");
  console.log(`context: ${context.name} (allowed: ${context.allowed_actions.join(", ")})`);
  if (values.message) {
    const answer = await api.send(values.message);
    console.log(`message ${answer.message_id}: ${answer.status}: ${answer.result?.response ?? answer.result?.error}`);
  }
  for (const item of values.verify) {
    const [action, ...rest] = item.split(":");
    const answer = await api.verify(action, rest.join(":") || "no reason given");
    console.log(`verification ${action}: ${answer.status}${answer.status === "rejected" ? ` (${answer.reason})` : ""}`);
  }
}

main().catch((error) => {
  console.error(`error: ${error.message}`);
  process.exit(1);
});

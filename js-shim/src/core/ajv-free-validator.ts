// Stands in for the MCP SDK's JSON Schema validators in the bundles (Ajv is ~30 KB gzip, the
// SDK's lighter one ~7 KB). The SDK uses a validator for one thing: checking a tool result's
// `structuredContent` against the tool's declared output schema. The core never acts on
// structured content — the model reads every result as text — so results are passed through
// unchecked, and the budget of dist/main.js stays for what the user needs.
import type { JsonSchemaType, JsonSchemaValidator, jsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/types.js";

export class PassThroughValidator implements jsonSchemaValidator {
  getValidator<T>(_schema: JsonSchemaType): JsonSchemaValidator<T> {
    return (input: unknown) => ({ valid: true, data: input as T, errorMessage: undefined });
  }
}

/** The name the SDK's client imports its default validator by. */
export { PassThroughValidator as AjvJsonSchemaValidator };

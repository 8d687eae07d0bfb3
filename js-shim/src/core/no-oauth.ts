// Stands in for the MCP SDK's client/auth.js (OAuth) in the bundles (js-shim/build.mjs swaps it
// in). Streamable HTTP calls these only when its transport has an `authProvider`; ours never has
// one (a server's credentials are headers from the settings). The names the importer needs stay;
// calling one means a path thought unused is in use, so it throws and says so.

/** Thrown by a stand-in: what was called, and that the bundle leaves it out. */
function leftOut(what: string): Error {
  return new Error(`${what} is not in this build of SmartHole Agent (js-shim/build.mjs leaves it out)`);
}

/** The SDK's class, as is: code that tells errors apart by name keeps working. */
export class UnauthorizedError extends Error {
  constructor(message?: string) {
    super(message ?? "Unauthorized");
  }
}

export function auth(): never {
  throw leftOut("MCP OAuth");
}

export function extractWWWAuthenticateParams(): never {
  throw leftOut("MCP OAuth");
}


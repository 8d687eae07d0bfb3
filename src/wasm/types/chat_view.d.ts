// What the chat view is told so that it only draws: the messages in flight and Stop's answer.
// One of the declaration files of the values crossing the JS boundary (src/wasm/types/), each
// emitted into pkg/smarthole_agent.d.ts by src/wasm/mod.rs, where they see each other; checked
// against the core's JSON by scripts/contract.mjs.

/** A message accepted and not answered yet: the view is busy while one of its conversation's is
 *  listed. */
export interface InFlightMessage {
  messageId: string;
  /** The conversation a scheduled run's message names; absent for the current conversation. */
  conversationId?: string;
}

/** What Stop did, answered at once: the message stopped (its cancelled result follows) and what
 *  is still in flight. */
export interface StopAnswer {
  stopped?: string;
  inFlight: InFlightMessage[];
}

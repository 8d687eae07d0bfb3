// The scripted Anthropic server (tests/peers/anthropic-server.mjs) in a process of its own, for
// benchmarks that time the core: a real model server is never on the thread the core runs on,
// and the scripted one's own work (each request's body checked against the Messages API schema,
// the garbage that leaves) landed inside the core's timings. Run as a child: it prints the
// server's URL as its first line and ends when its parent's stdin closes.
//   const peer = await peerProcess({ fallback }); … peer.url … await peer.close();
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { startScriptedServer } from "../tests/peers/anthropic-server.mjs";

const HERE = fileURLToPath(import.meta.url);

/** A scripted server answering `fallback` to every request, in a child process. */
export function peerProcess({ fallback }) {
  const child = spawn(process.execPath, [HERE, JSON.stringify({ fallback })], { stdio: ["pipe", "pipe", "inherit"] });
  return new Promise((resolve, reject) => {
    let out = "";
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`the scripted server's process ended (${code}) before it listened`)));
    child.stdout.on("data", (chunk) => {
      out += chunk;
      const line = out.split("\n")[0];
      if (!out.includes("\n")) return;
      child.removeAllListeners("exit");
      resolve({
        url: line.trim(),
        close: () => new Promise((done) => (child.once("exit", () => done()), child.stdin.end())),
      });
    });
  });
}

if (process.argv[1] === HERE) {
  const { fallback } = JSON.parse(process.argv[2] ?? "{}");
  const server = await startScriptedServer({ fallback });
  process.stdout.write(`${server.url}\n`);
  process.stdin.resume();
  process.stdin.on("end", async () => {
    await server.close();
    process.exit(0);
  });
}

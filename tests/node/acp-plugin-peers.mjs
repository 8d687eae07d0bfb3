// What the plugin's end-to-end ACP tests (acp-plugin*.test.mjs) share: the scripted ACP agent
// (fake-acp-agent.mjs) as an `--agent-command`, its log read back, the headless command run with
// it, and the process table read for what an agent left behind.
import { readdirSync, readFileSync, writeFileSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { ROOT, startHeadless, waitFor } from "./helpers.mjs";

export const FAKE_AGENT = path.join(ROOT, "tests/node/fake-acp-agent.mjs");

/** A folder for a test's files, removed when the process exits. */
export function scratch(prefix = "acp-plugin-") {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  process.on("exit", () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/**
 * The scripted agent with `script` (fake-acp-agent.mjs's format), as the headless command's
 * `--agent-command`; `log()` is what every process of it recorded, `starts()` each start.
 */
export function fakeAgent(script, dir = scratch()) {
  const scriptFile = path.join(dir, `script-${Math.random().toString(36).slice(2)}.json`);
  const logFile = `${scriptFile}.log`;
  writeFileSync(scriptFile, JSON.stringify(script));
  const log = () =>
    existsSync(logFile)
      ? readFileSync(logFile, "utf8")
          .split("\n")
          .filter(Boolean)
          .map((line) => JSON.parse(line))
      : [];
  return {
    command: `${process.execPath} ${FAKE_AGENT} --script ${scriptFile} --log ${logFile}`,
    log,
    starts: () => log().filter((e) => e.start).map((e) => e.start),
    /** Messages it read, by method. */
    read: (method) => log().filter((e) => e.in?.method === method).map((e) => e.in),
    /** Messages it wrote (`id`: answers to that request id). */
    wrote: () => log().filter((e) => e.out).map((e) => e.out),
  };
}

/** The headless command answered by the agent `command` (`--agent acp` unless `agent` says). */
export function headlessWithAgent(vault, command, { agent = "acp", args = [], env = {}, stdin = "pipe" } = {}) {
  const agentArgs = command === undefined ? ["--agent", agent] : ["--agent", agent, "--agent-command", command];
  return startHeadless(["--vault", vault, ...agentArgs, ...args], { env, stdin });
}

/** The last line of stdout as the ProcessResult of a `--once` run. */
export function onceResult(child) {
  const last = child.stdoutText.trim().split("\n").pop();
  return JSON.parse(last);
}

/** The processes `parent` started that still run (their pids). */
export function childrenOf(parent) {
  const children = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (fields[0] !== "Z" && Number(fields[1]) === parent) children.push(Number(name));
    } catch {
      // ended meanwhile
    }
  }
  return children;
}

/** The processes of process group `group` that still run (zombies are gone), as "pid cmdline". */
export function groupMembers(group) {
  const members = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    let stat;
    try {
      stat = readFileSync(`/proc/${name}/stat`, "utf8");
    } catch {
      continue; // ended meanwhile
    }
    // pid (comm) state ppid pgrp …: comm may hold spaces and parentheses.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (fields[0] === "Z" || Number(fields[2]) !== group) continue;
    let cmdline = "";
    try {
      cmdline = readFileSync(`/proc/${name}/cmdline`, "utf8").replaceAll("\0", " ").trim();
    } catch {
      // ended meanwhile
    }
    members.push(`${name} ${cmdline}`);
  }
  return members;
}

/**
 * Resolves once nothing of the agent processes started with these pids (each the leader of its
 * own group) is left; fails naming what is.
 */
export async function noAgentLeft(pids, what = "the agent's processes to end") {
  await waitFor(() => pids.every((pid) => groupMembers(pid).length === 0), 10_000, `${what}: ${pids.flatMap(groupMembers).join("; ")}`);
}

/** Ends the headless command (SIGTERM, as the plugin is closed) and waits for its exit. */
export async function stop(child) {
  if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
  return child.done;
}

/** Resolves once the headless command printed `text` (the chat streams to stdout; --once's
 * stream and the notes in brackets go to stderr). */
export function printed(child, text, timeoutMs = 20_000) {
  const output = () => child.stdoutText + child.stderrText;
  return waitFor(() => output().includes(text), timeoutMs, `${JSON.stringify(text)} printed; it has: ${output().slice(-1500)}`);
}

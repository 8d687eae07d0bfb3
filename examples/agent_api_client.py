#!/usr/bin/env python3
"""A client of SmartHole Agent's local agent API, with nothing but the standard library.

It reads /config and /context, sends the vault agent a message and waits for the answer, and
asks the user to verify actions, polling until each is approved, rejected or timed out.

    export SMARTHOLE_API_TOKEN=...          # Settings -> SmartHole Agent -> Agent API -> Copy
    python3 examples/agent_api_client.py --message "Add 'call the plumber' to my inbox note" \
        --verify "git_push:push the release branch"

Errors: 5xx, 429 and connection failures are retried with exponential backoff (0.5 s doubling,
5 attempts); other 4xx are never retried (a 404 will not go away); a client that gives up says
why and exits with status 1.
"""

import argparse
import json
import os
import sys
import time
import urllib.error
import urllib.request

ATTEMPTS = 5
FIRST_DELAY_S = 0.5


class ApiError(Exception):
    """The API refused the request or could not be reached after every retry."""


class AgentApi:
    def __init__(self, base_url, token):
        self.base_url = base_url.rstrip("/")
        self.token = token

    def call(self, method, path, body=None):
        """One request, retried on 5xx, 429 and connection errors; returns (status, JSON)."""
        data = None if body is None else json.dumps(body).encode()
        delay = FIRST_DELAY_S
        for attempt in range(1, ATTEMPTS + 1):
            request = urllib.request.Request(self.base_url + path, data=data, method=method)
            request.add_header("Authorization", "Bearer " + self.token)
            if data is not None:
                request.add_header("Content-Type", "application/json")
            try:
                with urllib.request.urlopen(request, timeout=90) as response:
                    return response.status, json.load(response)
            except urllib.error.HTTPError as error:
                payload = json.loads(error.read() or b"{}")
                retryable = error.code >= 500 or error.code == 429
                problem = payload.get("error", {})
                message = f"{method} {path}: HTTP {error.code} {problem.get('code', '')}: {problem.get('message', '')}"
                if not retryable:
                    raise ApiError(message) from None
            except (urllib.error.URLError, ConnectionError, TimeoutError) as error:
                message = f"{method} {path}: cannot reach {self.base_url} ({getattr(error, 'reason', error)}); is the agent API on?"
            if attempt == ATTEMPTS:
                raise ApiError(f"{message} (gave up after {ATTEMPTS} attempts)")
            time.sleep(delay)
            delay *= 2
        raise ApiError("unreachable")

    def config(self):
        status, config = self.call("GET", "/config")
        # Never use a configuration that does not look like ours.
        if not isinstance(config.get("endpoints"), list) or config.get("api_version") != 1:
            raise ApiError("GET /config: not a SmartHole Agent API configuration (api_version 1)")
        return config

    def send(self, text, wait_s=30, timeout_s=300):
        """Sends a message and waits until the agent has finished with it."""
        status, answer = self.call("POST", f"/messages?wait={wait_s}", {"text": text})
        deadline = time.monotonic() + timeout_s
        while answer["status"] in ("queued", "processing"):
            if time.monotonic() > deadline:
                raise ApiError(f"message {answer['message_id']}: not finished after {timeout_s} s")
            status, answer = self.call("GET", f"/messages/{answer['message_id']}?wait={wait_s}")
        return answer

    def verify(self, action, reason, timeout_s=330):
        """Asks the user; returns the final status document (approved or rejected)."""
        status, answer = self.call("POST", "/verify", {"action": action, "reason": reason})
        deadline = time.monotonic() + timeout_s
        while answer["status"] == "pending":
            if time.monotonic() > deadline:
                raise ApiError(f"verification {answer['verification_id']}: still pending after {timeout_s} s")
            status, answer = self.call("GET", f"/verify/{answer['verification_id']}?wait=30")
        return answer


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", default=os.environ.get("SMARTHOLE_API_URL", "http://127.0.0.1:8090"))
    parser.add_argument("--message", help="text to send the vault agent")
    parser.add_argument("--verify", action="append", default=[], metavar="ACTION:REASON",
                        help="an action to have verified (repeatable)")
    args = parser.parse_args()
    token = os.environ.get("SMARTHOLE_API_TOKEN")
    if not token:
        sys.exit("set SMARTHOLE_API_TOKEN to the token from Settings -> SmartHole Agent -> Agent API")
    api = AgentApi(args.url, token)
    try:
        config = api.config()
        print(f"config: {config['name']} {config['version']}, api_version {config['api_version']}, "
              f"{len(config['endpoints'])} endpoints")
        _, context = api.call("GET", "/context")
        print(f"context: {context['name']} (allowed: {', '.join(context['allowed_actions'])})")
        if args.message:
            answer = api.send(args.message)
            result = answer.get("result", {})
            print(f"message {answer['message_id']}: {answer['status']}: {result.get('response') or result.get('error')}")
        for item in args.verify:
            action, _, reason = item.partition(":")
            answer = api.verify(action, reason or "no reason given")
            detail = f" ({answer['reason']})" if answer["status"] == "rejected" else ""
            print(f"verification {action}: {answer['status']}{detail}", flush=True)
    except ApiError as error:
        sys.exit(f"error: {error}")


if __name__ == "__main__":
    main()

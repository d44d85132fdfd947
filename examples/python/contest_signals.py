#!/usr/bin/env python3
"""A Contest Signals client in Python, standard library only (Python >= 3.9).

What a trading bot needs, in the order it needs it:
  - the health check (no key): a 503 there is a document too (the service is up but not ready,
    e.g. without its store), printed, not a reason to stop;
  - the live contest of a series (a 404 between a window's close and the next one's opening is
    "none right now", not an error), with the venue's own references (`venue_refs`): Kalshi's
    market and event tickers, or Polymarket's condition id and the CLOB token of each outcome,
    ready for kalshi-python or py-clob-client without a second look-up;
  - the settled history, paged as the API says: `before` = the oldest `expires_at` received,
    the repeated first rows dropped (the bound is inclusive);
  - every request retried on 429 (and on a 502/503/504) after `Retry-After` seconds, with
    exponential backoff and jitter, a bounded number of times (429 is not a bad key);
  - the stream of contest events, resumed with `Last-Event-ID` after a dropped connection or a
    server restart: no event lost, none repeated. The stream never gives up on a 429 or a 503 (a
    restart, a spent allowance): it waits each out by its Retry-After, however long that lasts, and
    resumes. It prints the last event id when it stops; LAST_EVENT_ID resumes after it next time.

    KEY=cs_... BASE=http://127.0.0.1:8080 SERIES=KXBTC15M python3 contest_signals.py

Settings (environment): KEY (required), BASE, SERIES, PAGE_SIZE (history page, default 100),
HISTORY_PAGES (at most this many pages, default: all), STOP_AFTER_S (stop streaming after this many
seconds, checked as events arrive; default: until interrupted), LAST_EVENT_ID (resume the stream after
this event, as the last run printed it). SIGTERM or Ctrl-C stops it with a summary.
"""

import collections
import http.client
import json
import os
import random
import signal
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

BASE = os.environ.get("BASE", "http://127.0.0.1:8080").rstrip("/")
KEY = os.environ.get("KEY", "")
SERIES = os.environ.get("SERIES", "KXBTC15M")
PAGE_SIZE = int(os.environ.get("PAGE_SIZE", "100"))
HISTORY_PAGES = int(os.environ["HISTORY_PAGES"]) if "HISTORY_PAGES" in os.environ else None
STOP_AFTER_S = float(os.environ["STOP_AFTER_S"]) if "STOP_AFTER_S" in os.environ else None
LAST_EVENT_ID = os.environ.get("LAST_EVENT_ID") or None

MAX_RETRIES = 5
MAX_LIMIT = 100  # the most contests one history answer holds
# a server shutting down or without its store (503), or a proxy before it (502, 504): the stream
# waits Retry-After and resumes rather than giving up
TRANSIENT_STATUSES = (502, 503, 504)
BACKOFF_BASE_S = 0.5
MAX_WAIT_S = 60.0
# the service sends a keep-alive comment well within this; silence this long means a dead connection
STREAM_READ_TIMEOUT_S = 60.0
# ids remembered to drop a repeat after a resume: repeats come only from around the resume point
SEEN_KEPT = 10_000


class ApiError(Exception):
    """A refusal that retrying cannot fix (or a 429 once the retries are spent)."""

    def __init__(self, status, problem, retry_after=None):
        detail = problem.get("detail", "") if isinstance(problem, dict) else ""
        super().__init__(f"HTTP {status}: {detail}".rstrip(": "))
        self.status = status
        self.problem = problem
        self.retry_after = retry_after  # seconds the server asked to wait, or None


class Stop(Exception):
    """Raised by the SIGTERM handler, so a blocking read ends and the summary is printed."""


def backoff_s(attempt, asked_s):
    """Doubling per attempt, capped, but never less than what the server asked (a retry before
    Retry-After only meets another 429), plus up to 250 ms of jitter."""
    return max(asked_s or 0.0, min(MAX_WAIT_S, BACKOFF_BASE_S * 2**attempt)) + random.random() * 0.25


def retry_after_s(headers):
    value = headers.get("Retry-After") if headers else None
    return float(value) if value is not None and value.strip().isdigit() else None


RETRIED_STATUSES = (429,) + TRANSIENT_STATUSES


def open_with_retries(path, query=None, headers=None, timeout=30.0, keyed=True, retried=RETRIED_STATUSES):
    """GETs `path`, retrying 429 and the transient statuses after Retry-After; returns the open
    response or raises ApiError."""
    url = BASE + path + ("?" + urllib.parse.urlencode(query) if query else "")
    all_headers = {"Accept": "application/json", **(headers or {})}
    if keyed:
        all_headers["Authorization"] = f"Bearer {KEY}"
    for attempt in range(MAX_RETRIES + 1):
        try:
            return urllib.request.urlopen(urllib.request.Request(url, headers=all_headers), timeout=timeout)
        except urllib.error.HTTPError as err:
            body = err.read()
            try:
                problem = json.loads(body)
            except ValueError:
                problem = None
            asked = retry_after_s(err.headers)
            if err.code not in retried or attempt == MAX_RETRIES:
                raise ApiError(err.code, problem, asked) from None
            wait = backoff_s(attempt, asked)
            told = "not given" if asked is None else f"{asked:g} s"
            why = "rate limited" if err.code == 429 else "unavailable"
            print(f"{why} ({err.code}): waiting {wait:.2f} s (Retry-After {told}, attempt {attempt + 1})")
            time.sleep(wait)
    raise AssertionError("unreachable")


def get_json(path, query=None, keyed=True, retried=RETRIED_STATUSES):
    with open_with_retries(path, query, keyed=keyed, retried=retried) as res:
        return json.load(res)


def describe_refs(contest):
    """The venue and its references, as a bot hands them to the venue's own client."""
    refs = contest.get("venue_refs")
    if refs is None:
        return f"venue {contest.get('venue')} (references not recorded)"
    if contest["venue"] == "kalshi":
        return f"venue kalshi market_ticker={refs['market_ticker']} event_ticker={refs['event_ticker']}"
    return (
        f"venue polymarket condition_id={refs['condition_id']} "
        f"up_token_id={refs['up_token_id']} down_token_id={refs['down_token_id']}"
    )


def settled_history():
    """Every settled contest of the series, newest first, one page at a time."""
    before = None
    at_boundary = set()  # tickers already yielded that expire at `before`: the next page repeats them
    pages = 0
    while HISTORY_PAGES is None or pages < HISTORY_PAGES:
        # room for the repeated rows as well, so a page of 1 still moves on
        query = {"series": SERIES, "limit": min(MAX_LIMIT, PAGE_SIZE + len(at_boundary))}
        if before is not None:
            query["before"] = before
        page = get_json("/v1/contests", query)["contests"]
        pages += 1
        fresh = [c for c in page if c["ticker"] not in at_boundary]
        yield from fresh
        if len(page) < query["limit"] or not fresh:
            return
        oldest = page[-1]["window"]["expires_at"]
        if oldest != before:
            at_boundary = set()
        at_boundary.update(c["ticker"] for c in page if c["window"]["expires_at"] == oldest)
        before = oldest


def sse_events(response, on_retry):
    """(event, id, data) of each complete frame; comments (keep-alives) skipped; retry: to on_retry."""
    event, data, last_id = "", [], None
    for raw in response:
        line = raw.decode("utf-8").rstrip("\r\n")
        if line == "":
            if data:
                yield event or "message", last_id, "\n".join(data)
            event, data = "", []
        elif line.startswith(":"):
            continue
        else:
            field, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if field == "event":
                event = value
            elif field == "data":
                data.append(value)
            elif field == "id" and "\0" not in value:
                last_id = value
            elif field == "retry" and value.isdigit():
                on_retry(int(value) / 1000)


def describe_event(name, data):
    payload = json.loads(data)
    if name == "signal.emitted":
        s = payload["signal"]
        return (
            f"{s['ticker']} {s['raised_at']} {s['side']} confidence {s['confidence']} "
            f"entry {s['entry_price_cents']}c edge {s['edge_cents']}c ({describe_refs(payload['contest'])})"
        )
    if name == "contest.settled":
        return f"{payload['ticker']} settled {payload['settled_side'] or 'void'}"
    return f"{payload['ticker']} {payload['state']} ({describe_refs(payload)})"


def follow_stream():
    """Prints each event once, across disconnects, until STOP_AFTER_S or SIGTERM; returns counts."""
    last_event_id, events, connections, duplicates, failures = LAST_EVENT_ID, 0, 0, 0, 0
    seen, seen_order = set(), collections.deque()
    deadline = None if STOP_AFTER_S is None else time.monotonic() + STOP_AFTER_S
    retry_s = [3.0]  # the server's `retry:` delay, updated as it sends one

    def set_retry(seconds):
        retry_s[0] = seconds

    try:
        while deadline is None or time.monotonic() < deadline:
            asked_s = None  # what a refusing server asked us to wait
            headers = {"Accept": "text/event-stream"}
            if last_event_id is not None:
                headers["Last-Event-ID"] = last_event_id
            try:
                with open_with_retries(
                    "/v1/stream/contests",
                    {"series": SERIES},
                    headers,
                    timeout=STREAM_READ_TIMEOUT_S,
                    retried=(),  # every refusal worth waiting out is this loop's: it never gives up on one
                ) as res:
                    connections += 1
                    print(f"connected ({'resuming after ' + last_event_id if last_event_id else 'fresh'})")
                    for name, event_id, data in sse_events(res, set_retry):
                        if name not in ("contest.opened", "signal.emitted", "contest.settled"):
                            continue
                        if event_id in seen:
                            duplicates += 1
                            continue
                        seen.add(event_id)
                        seen_order.append(event_id)
                        if len(seen_order) > SEEN_KEPT:
                            seen.discard(seen_order.popleft())
                        last_event_id, failures = event_id, 0
                        events += 1
                        print(f"{event_id} {name} {describe_event(name, data)}")
                        if deadline is not None and time.monotonic() >= deadline:
                            return events, connections, duplicates
                reason = "the server ended the stream"
            except ApiError as err:
                if err.status not in RETRIED_STATUSES:
                    raise
                reason, asked_s = str(err), err.retry_after
            except (OSError, ValueError, http.client.HTTPException) as err:  # refused, reset, timed out, cut
                reason = f"{type(err).__name__}: {err}"
            wait = backoff_s(failures, max(retry_s[0], asked_s or 0.0))
            failures += 1
            print(f"disconnected ({reason}); reconnecting in {wait:.2f} s")
            time.sleep(wait)
    except Stop:
        pass
    finally:
        if last_event_id is not None:
            print(f"last event id: {last_event_id} (LAST_EVENT_ID={last_event_id} resumes after it)")
    return events, connections, duplicates


def print_health():
    try:
        # health is never rate limited, and its 503 is an answer: asked once
        health = get_json("/v1/health", keyed=False, retried=())
    except ApiError as err:
        # not ready (503) still answers the health document: say what it says and go on; the
        # requests after it wait out their own 503s
        if err.status != 503 or not isinstance(err.problem, dict) or "status" not in err.problem:
            raise
        health = err.problem
    print(f"health: {health['status']} {health.get('version', '')}".rstrip())


def print_active():
    try:
        live = get_json("/v1/contests/active", {"series": SERIES})
    except ApiError as err:
        if err.status != 404:
            raise
        print(f"active: none in {SERIES} right now")
        return
    strike = live["strike_price_dollars"]
    print(f"active: {live['ticker']} {live['state']} strike {strike} until {live['window']['expires_at']}, "
          f"{len(live['signals'])} signals, {describe_refs(live)}")


def main():
    if not KEY:
        sys.exit("set KEY to an API key (contest-signals keys create --label bot)")
    sys.stdout.reconfigure(line_buffering=True)

    def stop(*_):
        raise Stop()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    try:
        print_health()
        print_active()
        contests = list(settled_history())
        signals = sum(len(c["signals"]) for c in contests)
        wins = sum(1 for c in contests for s in c["signals"] if s["outcome"] == "win")
        distinct = len({c["ticker"] for c in contests})
        print(f"history: {len(contests)} contests, {distinct} distinct, {signals} signals, {wins} wins")
        events, connections, duplicates = follow_stream()
        print(f"stopped: {events} events, {connections} connections, {duplicates} duplicates")
    except Stop:
        print("stopped before the stream")
    except ApiError as err:
        sys.exit(f"refused: {err}")


if __name__ == "__main__":
    main()

#!/usr/bin/env bash
# A walk through the Contest Signals API with curl and jq: health, the live contest, one contest by
# its ticker, two pages of history, an error, and a few seconds of the stream.
#
#   KEY=cs_… BASE=http://127.0.0.1:8080 SERIES=KXBTC15M examples/curl-walkthrough.sh
#
# KEY is an API key (`npx contest-signals keys create --label me`, or the one `npm start` printed).
set -euo pipefail

BASE=${BASE:-http://127.0.0.1:8080}
SERIES=${SERIES:-KXBTC15M}
STREAM_SECONDS=${STREAM_SECONDS:-4}
: "${KEY:?set KEY to an API key}"
AUTH="Authorization: Bearer $KEY"

step() { printf '\n## %s\n' "$*"; }

step "health (no key needed, not rate limited)"
curl -fsS "$BASE/v1/health" | jq -c '{status, version, checks}'

step "the live contest of $SERIES"
ACTIVE=$(curl -fsS -H "$AUTH" "$BASE/v1/contests/active?series=$SERIES")
echo "$ACTIVE" | jq -r '"\(.ticker) \(.state) strike \(.strike_price_dollars) until \(.window.expires_at), \(.signals | length) signals"'
echo "$ACTIVE" | jq -r '.signals[-1] // empty | "latest signal: \(.side) confidence \(.confidence) entry \(.entry_price_cents)¢ edge \(.edge_cents)¢"'

step "the same contest by its ticker (taken from the response, never built by hand)"
TICKER=$(echo "$ACTIVE" | jq -r .ticker)
curl -fsS -H "$AUTH" "$BASE/v1/contests/$TICKER" | jq -r '"\(.ticker) \(.state)"'

step "settled history, newest first: a page of 3"
PAGE=$(curl -fsS -H "$AUTH" "$BASE/v1/contests?series=$SERIES&limit=3")
echo "$PAGE" | jq -r '.contests[] | "\(.window.expires_at) \(.ticker) settled \(.settled_side // "void") \([.signals[] | select(.outcome == "win")] | length)/\(.signals | length) wins"'

step "the next page: the oldest expires_at as before, dropping the repeated first row"
OLDEST=$(echo "$PAGE" | jq -r '.contests[-1].window.expires_at')
curl -fsS -H "$AUTH" "$BASE/v1/contests?series=$SERIES&limit=4&before=$OLDEST" |
  jq -r '.contests[1:][] | "\(.window.expires_at) \(.ticker)"'

step "an error is application/problem+json"
ANSWER=$(curl -sS -H "$AUTH" -w '\n%{http_code} %{content_type}' "$BASE/v1/contests?series=$SERIES&limit=0")
echo "$ANSWER" | tail -n 1
echo "$ANSWER" | sed '$d' |
  jq -r '"\(.type | split("/") | last): \(.invalid_params[0].name) \(.invalid_params[0].reason)"'

step "the stream for ${STREAM_SECONDS} s: the live contest's snapshot, then events as they happen"
# curl ends with status 28 when --max-time elapses: that is the expected way out here.
curl -sS -N --max-time "$STREAM_SECONDS" -H "$AUTH" "$BASE/v1/stream/contests?series=$SERIES" |
  grep -E '^(event|id|retry):' || true

step "resume: send the last id you processed as Last-Event-ID to get what came after it"
echo "curl -N -H \"\$AUTH\" -H \"Last-Event-ID: <id>\" \"$BASE/v1/stream/contests?series=$SERIES\""

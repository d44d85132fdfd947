// The words of `contest-signals --help` and `contest-signals COMMAND --help`: one place, so the
// usage lines, the docs and the parser's options cannot drift far apart.
import { SETTINGS } from '../config/settings.ts'

const REPLAY_MODELS_TEXT = 'the v2 version or gbm-ewma-1; default: the one MODEL names'

export const USAGE = `usage: contest-signals <command> [options]

commands:
  serve                      api + engine in one process (the embedded default)
  api                        api role only
  engine                     engine role only
  keys create --label NAME   create an API key; the key is printed alone on the last line
  keys list [--json]         list keys (id, label, key prefix, created, last used, revoked)
  keys revoke ID             revoke a key
  migrate                    apply schema migrations and exit
  backtest --series S ...    how the signals' thresholds would have done over the graded history
  evaluate --series S ...    how good the model's probabilities were: scores, calibration, the mid
  backup PATH                copy the SQLite store (WAL included) to a new file
  venue check                what the engine would follow now: markets, asks, spot per source
  replay --tape PATH ...     run the engine on a recorded (or simulated) tape into the store
  sim tape --days N --out P  write a tape of the simulator in a venue's own shapes (--venue)
  history import --venue V ... write day tapes from a venue's public history and exchange candles

options:
  -h, --help                 this text; \`contest-signals COMMAND --help\` for one command
  -v, --version              print the version

Settings come from environment variables (PORT, HOST, DATABASE_URL, ...): see docs/configuration.md and .env.example.
Short commands say on stderr which store they opened.`

const SERVER_SETTINGS = `Settings are environment variables: PORT (${SETTINGS.PORT.default}), HOST (${SETTINGS.HOST.default}), DATABASE_URL
(${SETTINGS.DATABASE_URL.default}, resolved against the current directory), SERIES, VENUE,
SIM_SPEED, SIM_SEED, LOG_LEVEL, METRICS_PORT, TLS_CERT_FILE/TLS_KEY_FILE and more: see docs/configuration.md
and .env.example. Stops cleanly on SIGTERM or SIGINT.`

export const COMMAND_HELP: Readonly<Record<string, string>> = {
  serve: `usage: contest-signals serve

Runs the api and the engine in one process: the embedded default (npm start). On a store with no
API key it creates one labelled "bootstrap" and prints it once (BOOTSTRAP_KEY=off disables this).
The log's "store opened" line names the store's absolute path.

${SERVER_SETTINGS}`,
  api: `usage: contest-signals api

Runs the api role only: the HTTP + JSON interface and the SSE stream, reading the store an engine
writes (scaled out: PostgreSQL, and Redis for shared rate limits).

${SERVER_SETTINGS}`,
  engine: `usage: contest-signals engine

Runs the engine role only: follows each series on the venue, raises signals, settles and grades.
Several engines may run; one holds the store's lease, the others stand by.

${SERVER_SETTINGS}`,
  keys: `usage: contest-signals keys create --label NAME
       contest-signals keys list [--json]
       contest-signals keys revoke ID

create   issues a key; it is printed once, alone on the last line of stdout. NAME: 1 to 200
         characters, no control characters
list     id, label, the key's first characters, created, last used, revoked; --json for machines.
         Times are UTC on the deployment's clock (virtual when the simulator runs faster: SIM_SPEED)
revoke   stops the key on every replica within 5 seconds; ID is the key's id (key_…), never the key

Works on the store DATABASE_URL names (create and revoke make a fresh one where there is none, and
say so on stderr; list never does). A database of another application is refused.`,
  migrate: `usage: contest-signals migrate

Applies pending schema migrations to the store DATABASE_URL names, prints its deployment epoch and
exits. Safe to run from several places at once. Every other command migrates on start too.`,
  backtest: `usage: contest-signals backtest [--series S] [--since T] [--before T] [--min-confidence C]
                                [--min-edge E] [--side up|down] [--grid] [--json]

Replays the graded history in the store (the one the service uses) through your thresholds: one
contract bought per signal at its entry price — a win pays 100 − entry cents, a loss costs the
entry, a void is refunded.

  --series S            the series (default: the first of SERIES, KXBTC15M)
  --since T, --before T contests whose expiry is at or after / at or before T (RFC 3339, or a
                        date YYYY-MM-DD meaning its midnight UTC)
  --min-confidence C    signals with confidence >= C (0-100)
  --min-edge E          signals with edge_cents >= E (may be negative)
  --side up|down        one side only
  --grid                signals, win rate and profit over a grid of confidence x edge thresholds
                        (it sets its own: not with --min-confidence or --min-edge)
  --json                the same numbers as JSON

Prints: signals passing, wins/losses/voids, win rate with a Wilson 95% interval, average entry,
profit per contract, the Brier score, and the calibration table by confidence bucket.`,
  evaluate: `usage: contest-signals evaluate [--series S] [--since T] [--before T] [--sim-seed N]
                                [--train-until T] [--against STORE] [--json]

Scores the graded readings in the store against their outcomes (decisions §13): log loss and Brier
score over all readings and by minutes left (buckets 1–2, 3–7, 8–14 and each minute), calibration
(slope and intercept of a logistic fit of the outcome on logit p, ECE over 10 bins), and the venue's
mid at the same instant as a benchmark, paired reading by reading. Every mean carries a standard error
clustered by contest: the readings of one contest share one outcome.

  --series S            the series (default: the first of SERIES, KXBTC15M)
  --since T, --before T contests whose expiry is at or after / at or before T (RFC 3339, or a
                        date YYYY-MM-DD meaning its midnight UTC)
  --sim-seed N          a sandbox store: also score the sandbox's hidden truth of seed N (the oracle)
                        and the share of the mid's gap to it that the model closes; refused when the
                        store says its contests came from another seed, or from no simulator
  --train-until T       walk forward: fit the recalibrated mid (the mid with its own biases undone) on
                        the readings of contests expired by T, and judge only the readings raised at or
                        after T (a contest open at T: its earlier readings are in neither)
  --against STORE       another store of the same contests under another model (a SQLite file's path,
                        sqlite:PATH or postgres://…): the two paired reading by reading, clustered SE
  --json                the same numbers as JSON`,
  backup: `usage: contest-signals backup PATH

Copies the SQLite store DATABASE_URL names to PATH while the service keeps running: one consistent
snapshot including what is still in the write-ahead log (VACUUM INTO). PATH must not exist; the copy
is checked (integrity check, row counts) before it takes PATH's name. To restore, stop the service
and point DATABASE_URL at the copy (or copy it over the store file, removing its -wal and -shm files).
For PostgreSQL use pg_dump.`,
  replay: `usage: contest-signals replay --tape PATH [--series S] [--from T] [--to T] [--model NAME]

Runs the engine's own steps (open, follow the venue's revisions, read each whole minute, expire,
settle and grade) on a tape, on a virtual clock that jumps from record to record, and writes the
contests and signals into the store DATABASE_URL names (SQLite or PostgreSQL); serve, api and
backtest then read them like any history. Refuses a store that already holds contests of the
replayed series, unless they are a stopped run of this same replay: then it goes on from where that
stopped. Shows progress on a terminal and ends with one summary line: contests opened, settled and
void, signals raised, minutes skipped by reason, wall time and speed.

  --tape PATH     an NDJSON tape (.ndjson, or .ndjson.gz for gzip), as RECORD_DIR or sim tape write
  --series S      only these series of the tape (comma-separated; default: all it names)
  --from T        start the engine at T (RFC 3339 or YYYY-MM-DD); earlier records only warm up
                  the spot history and the market listing
  --to T          stop at T: nothing after it is read or written (contests still open then stay
                  unsettled); a T not after the replay's start is a usage error (exit 2)
  --model NAME    the model version to read with (${REPLAY_MODELS_TEXT})

SPOT_MAX_AGE_S applies as live. The engine's warnings go to stderr (LOG_LEVEL=debug for every step).
A bad tape ends with one line naming its file, its line number and a non-zero exit; a period that
holds no records (a header alone, --from after the tape's end) is said in one line, exit 1.

SIGINT or SIGTERM stops the replay after the engine step running (exit 130 or 143), and a bad line
part-way stops it too, each with one line giving the tape instant reached and the command that goes
on: the same command, on the same DATABASE_URL, continues from that instant, and the store ends as
one uninterrupted replay leaves it. A replay killed (SIGKILL, a crash) records where it stands every
15 minutes of tape: the same command goes on from the last of those, once its 6 s lease has lapsed
(a rerun sooner is refused in one line that says so).`,
  sim: `usage: contest-signals sim tape [--venue kalshi|polymarket] --days N [--seed S] [--from T] --out PATH

Writes the simulator's world as a tape in one venue's own shapes. Kalshi (the default): each of the sandbox's exchanges'
messages as a client receives them, every change of each market of SERIES (listed, opened with its
strike, closed, finalized with its result), an orderbook_fp body every 2 s of each live contest, and
every change of the exchange status. Polymarket: the same exchanges, every change of each window's
Gamma event body (resolved 1-2 min and its price to beat published 1-5 min after the end) and both
outcome tokens' CLOB books every 2 s of each live window, settled by Polymarket's 60 s TWAP rule.
Replaying it (contest-signals replay --tape PATH) gives the same contests and signals as the
simulator with that seed. PATH ending in .gz is gzip-compressed; an existing PATH is refused.

  --venue V   kalshi (default) or polymarket
  --days N    days of contests (1-366)
  --seed S    the simulator's seed (default SIM_SEED, else random; the line printed names it)
  --from T    the first contest opens at T, a quarter hour (default: N whole UTC days before today)`,
  history: `usage: contest-signals history import --venue kalshi|polymarket [--series S] --since T --until T
                                      --out DIR [--sources coinbase,bitstamp]

Writes one tape per UTC day (DIR/tape-YYYY-MM-DD.ndjson.gz, header "grain": "1m") from the venue's
public history: each settled contest's market object as it stood open, closed and settled; a book
per minute from the venue's one-minute candles (Kalshi: the closing YES bid and ask; Polymarket:
CLOB prices-history, a price path with no spread) placed at the minute it stood; each source's
one-minute closes as spot records; and at the head of each day the closes the model looks back at.
A minute the venue has no data for stays a gap. Then: contest-signals replay --tape DIR.

  --venue V        kalshi or polymarket
  --series S       default KXBTC15M (kalshi), btc-updown-15m (polymarket)
  --since T        first day (RFC 3339 or YYYY-MM-DD; rounded down to its UTC day)
  --until T        end (rounded up to a whole UTC day, which must be over)
  --out DIR        where the day files go (created if missing)
  --sources LIST   spot exchanges (default coinbase,bitstamp; kraken holds only its last 12 h)

Requests are paced under each host's documented limits and retried on 429 (Retry-After honoured)
and 5xx. A day whose file exists is skipped without a request: run again to resume. Progress on a
terminal, one summary line at the end; a venue answer that cannot be read ends with one line naming
the endpoint, a non-zero exit and no file for that day. Base URLs: KALSHI_BASE_URL,
POLYMARKET_GAMMA_URL, POLYMARKET_CLOB_URL, COINBASE_REST_URL, BITSTAMP_REST_URL, KRAKEN_REST_URL.
See docs/history-import.md.`,
  venue: `usage: contest-signals venue check

Prints, for each series, the market the engine would follow now (window, strike, best asks) and
each spot source with the median, or one line saying what failed; exits non-zero on failure.
Under the simulator (VENUE=sim) it shows the sandbox of the store's timeline at the wall clock (the
one SIM_SEED and SIM_PARAMS name when the store has none yet; the check fixes nothing).`,
}

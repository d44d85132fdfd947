// The words of `contest-signals --help` and `contest-signals COMMAND --help`: one place, so the
// usage lines, the README and the parser's options cannot drift far apart.

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

options:
  -h, --help                 this text; \`contest-signals COMMAND --help\` for one command
  -v, --version              print the version

Settings come from environment variables (PORT, HOST, DATABASE_URL, ...): see the README.
Short commands say on stderr which store they opened.`

const SERVER_SETTINGS = `Settings are environment variables: PORT (8080), HOST (127.0.0.1), DATABASE_URL
(sqlite:./data/contest-signals.db, resolved against the current directory), SERIES, VENUE,
SIM_SPEED, SIM_SEED, LOG_LEVEL, METRICS_PORT, TLS_CERT_FILE/TLS_KEY_FILE and more: see the README.
Stops cleanly on SIGTERM or SIGINT.`

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

create   issues a key; it is printed once, alone on the last line of stdout
list     id, label, the key's first characters, created, last used, revoked; --json for machines.
         Times are UTC on the deployment's clock (virtual when the simulator runs faster: SIM_SPEED)
revoke   stops the key on every replica within 5 seconds

Works on the store DATABASE_URL names (a fresh one is created and migrated, and said so on stderr).`,
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
                        (the grid replaces --min-confidence and --min-edge)
  --json                the same numbers as JSON

Prints: signals passing, wins/losses/voids, win rate with a Wilson 95% interval, average entry,
profit per contract, the Brier score, and the calibration table by confidence bucket.`,
  evaluate: `usage: contest-signals evaluate [--series S] [--since T] [--before T] [--sim-seed N] [--json]

Scores the graded readings in the store against their outcomes (decisions §13): log loss and Brier
score over all readings and by minutes left (buckets 1–2, 3–7, 8–14 and each minute), calibration
(slope and intercept of a logistic fit of the outcome on logit p, ECE over 10 bins), and the venue's
mid at the same instant as a benchmark, paired reading by reading. Every mean carries a standard error
clustered by contest: the readings of one contest share one outcome.

  --series S            the series (default: the first of SERIES, KXBTC15M)
  --since T, --before T contests whose expiry is at or after / at or before T (RFC 3339, or a
                        date YYYY-MM-DD meaning its midnight UTC)
  --sim-seed N          a sandbox store: also score the sandbox's hidden truth of seed N (the oracle)
                        and the share of the mid's gap to it that the model closes
  --json                the same numbers as JSON`,
  backup: `usage: contest-signals backup PATH

Copies the SQLite store DATABASE_URL names to PATH while the service keeps running: one consistent
snapshot including what is still in the write-ahead log (VACUUM INTO). PATH must not exist; the copy
is checked (integrity check, row counts) before it takes PATH's name. To restore, stop the service
and point DATABASE_URL at the copy (or copy it over the store file, removing its -wal and -shm files).
For PostgreSQL use pg_dump.`,
  venue: `usage: contest-signals venue check

Prints, for each series, the market the engine would follow now (window, strike, best asks) and
each spot source with the median, or one line saying what failed; exits non-zero on failure.`,
}

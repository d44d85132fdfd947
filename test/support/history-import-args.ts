// The `history import` command lines the import tests run, written once: a venue's days into `out`.

/** Kalshi's KXBTC15M from `since` to `until` (exclusive) into `out` */
export const kalshiImportArgs = (out: string, since: string, until: string, extra: string[] = []) => [
  'history',
  'import',
  '--venue',
  'kalshi',
  '--series',
  'KXBTC15M',
  '--since',
  since,
  '--until',
  until,
  '--out',
  out,
  ...extra,
]

/** Polymarket's one day, 2026-06-10, into `out`, its series left to the default */
export const polymarketImportArgs = (out: string) => [
  'history',
  'import',
  '--venue',
  'polymarket',
  '--since',
  '2026-06-10',
  '--until',
  '2026-06-11',
  '--out',
  out,
]

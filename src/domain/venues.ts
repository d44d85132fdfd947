// The venues the service knows and which one a series belongs to (decisions §14): a series prefix
// names its venue unambiguously, so one SERIES list can span several venues and each series is
// followed on exactly one of them. The simulator is the exception: it lists whatever series it is
// given, on its own virtual clock, and never runs beside a real venue.

export const VENUES = ['sim', 'kalshi', 'polymarket'] as const
export type VenueName = (typeof VENUES)[number]
export type RealVenueName = Exclude<VenueName, 'sim'>

/** The series prefix that names each real venue (decisions §14; venue facts §2.2 and §3.1.1). */
export const SERIES_PREFIXES: Readonly<Record<RealVenueName, string>> = {
  kalshi: 'KX',
  polymarket: 'btc-updown-',
}

/** How a person reads each venue's name (the dashboard's column headings). */
export const VENUE_TITLES: Readonly<Record<VenueName, string>> = {
  sim: 'Simulator',
  kalshi: 'Kalshi',
  polymarket: 'Polymarket',
}

export function isVenueName(name: string): name is VenueName {
  return (VENUES as readonly string[]).includes(name)
}

/** The real venue whose prefix the series carries (`KX…` Kalshi, `btc-updown-…` Polymarket), else null. */
export function venueOfSeries(series: string): RealVenueName | null {
  for (const [venue, prefix] of Object.entries(SERIES_PREFIXES) as [RealVenueName, string][])
    if (series.startsWith(prefix)) return venue
  return null
}

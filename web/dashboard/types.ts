// The API's JSON shapes as the dashboard reads them (spec §2).

export type SignalJson = {
  ticker: string
  raised_at: string
  side: 'up' | 'down'
  confidence: number
  entry_price_cents: number
  edge_cents: number
  outcome: 'pending' | 'win' | 'loss' | 'void'
  model_version: string | null
}

export type ContestJson = {
  ticker: string
  state: 'live' | 'expired' | 'settled'
  window: { opens_at: string; expires_at: string }
  strike_price_dollars: number | null
  settled_side: 'up' | 'down' | null
  settled_price_dollars: number | null
  signals: SignalJson[]
}

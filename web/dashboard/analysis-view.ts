// What thresholds would have paid over the window read: the summary facts, the calibration table and
// chart, and the confidence × edge grid, drawn from an Analysis (analysis.ts does the arithmetic).
import type { Analysis } from './analysis.ts'
import { clearCalibration, drawCalibration, plotWidthChanged } from './calibration-chart.ts'
import { $, cell, factItem, fmt2, markOverflow } from './dom.ts'

/** The analysis shown, for the chart to be drawn again at another width or theme. */
let shown: Analysis | null = null

const pct = (x: number | null) => (x === null ? '—' : `${(100 * x).toFixed(1)}%`)

export function showAnalysis(a: Analysis): void {
  const facts: Array<[string, string, string]> = [
    ['signals', 'Signals', String(a.signals)],
    ['wins', 'Won', String(a.wins)],
    ['losses', 'Lost', String(a.losses)],
    ['voids', 'Void', String(a.voids)],
    ['win-rate', 'Win rate', pct(a.winRate)],
    ['interval', '95% interval', a.winRate === null ? '—' : `${pct(a.winRateLow)} – ${pct(a.winRateHigh)}`],
    ['avg-entry', 'Avg entry ¢', a.avgEntryCents === null ? '—' : fmt2(a.avgEntryCents)],
    ['avg-edge', 'Claimed edge ¢', a.avgEdgeCents === null ? '—' : fmt2(a.avgEdgeCents)],
    ['realised-edge', 'Realised edge ¢', a.realisedEdgeCents === null ? '—' : fmt2(a.realisedEdgeCents)],
    [
      'profit',
      a.afterFee ? 'Profit ¢/contract after fee' : 'Profit ¢/contract',
      a.profitPerContractCents === null ? '—' : fmt2(a.profitPerContractCents),
    ],
    [
      'profit-interval',
      '95% interval (by contest)',
      a.profitLowCents === null || a.profitHighCents === null
        ? '—'
        : `${fmt2(a.profitLowCents)} – ${fmt2(a.profitHighCents)}`,
    ],
    ['brier', 'Brier score', a.brier === null ? '—' : a.brier.toFixed(4)],
  ]
  $('summary').replaceChildren(...facts.map(([id, label, value]) => factItem(id, label, value)))
  $('calibration-table')
    .querySelector('tbody')!
    .replaceChildren(
      ...a.calibration.map((b) => {
        const tr = document.createElement('tr')
        tr.dataset.bucket = b.label
        tr.append(
          cell(b.label),
          cell(String(b.count)),
          cell(String(b.wins)),
          cell(pct(b.winRate)),
          cell(b.winRate === null ? '—' : `${pct(b.low)} – ${pct(b.high)}`),
        )
        return tr
      }),
    )
  const grid = $('grid-table')
  const head = document.createElement('tr')
  head.append(cell('confidence \\ edge'), ...a.grid.edges.map((e) => cell(e)))
  grid.querySelector('thead')!.replaceChildren(head)
  grid.querySelector('tbody')!.replaceChildren(
    ...a.grid.rows.map((row) => {
      const tr = document.createElement('tr')
      tr.append(
        cell(row.minConfidence),
        ...row.cells.map((c) =>
          cell(
            c.count === 0 ? '—' : `${pct(c.winRate)} · ${fmt2(c.profitPerContractCents ?? 0)}¢ (${c.count})`,
          ),
        ),
      )
      return tr
    }),
  )
  shown = a
  drawCalibration($('calibration-chart'), a.calibration)
  $('chart-series').hidden = false
  markOverflow()
}

/** No numbers: none read yet, or those shown belong to a window no longer asked for. */
export function clearAnalysisView(): void {
  shown = null
  $('summary').replaceChildren()
  $('calibration-table').querySelector('tbody')!.replaceChildren()
  $('grid-table').querySelector('thead')!.replaceChildren()
  $('grid-table').querySelector('tbody')!.replaceChildren()
  clearCalibration($('calibration-chart'))
  $('chart-series').hidden = true
  for (const name of ['since', 'before']) delete $('window-range').dataset[name]
  delete $('analysis').dataset.loaded
}

/** The chart takes its colours and width when drawn: draw again when either changes. */
export function redrawChart(): void {
  if (shown) drawCalibration($('calibration-chart'), shown.calibration)
}

/**
 * After a resize of the analysis: draw again only at a new width. Its box grows taller as its tables
 * fill in, and a plot drawn again for that replaces its canvas with the very same picture.
 */
export function refitChart(): void {
  if (shown && plotWidthChanged($('calibration-chart'))) redrawChart()
}

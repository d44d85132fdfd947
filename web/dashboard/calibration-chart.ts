// The calibration plot: realised win rate against model confidence per bucket, each with its 95%
// interval, beside the diagonal a perfectly calibrated model would sit on.
import uPlot from './vendor/uPlot.esm.js'

export type CalibrationPoint = {
  label: string
  /** bucket midpoint, 0–100 */
  mid: number
  count: number
  wins: number
  winRate: number | null
  low: number | null
  high: number | null
}

let chart: uPlot | null = null
/**
 * The series the user switched off (indices into `series` below). uPlot's own legend toggles are
 * table rows a mouse can click but the keyboard cannot reach, inside the plot's role="img" where
 * assistive technology does not look: the page's labelled checkboxes call `showSeries` instead.
 */
const hidden = new Set<number>()
/** The width the plot was last drawn at. */
let drawnWidth = 0

/** The plot's width in `el`: its box's, within 280–900 px. */
function plotWidth(el: HTMLElement): number {
  return Math.max(280, Math.min(el.clientWidth || 640, 900))
}

/** Whether a plot drawn in `el` now would be wider or narrower than the one drawn last. */
export function plotWidthChanged(el: HTMLElement): boolean {
  return plotWidth(el) !== drawnWidth
}

/** Shows or hides series `indices` (1 the diagonal, 2 the realised points, 3 and 4 the interval). */
export function showSeries(indices: readonly number[], show: boolean): void {
  for (const i of indices) {
    if (show) hidden.delete(i)
    else hidden.add(i)
    chart?.setSeries(i, { show })
  }
}

export function drawCalibration(el: HTMLElement, buckets: readonly CalibrationPoint[]): void {
  const shown = buckets.filter((b) => b.winRate !== null)
  const xs = shown.map((b) => b.mid)
  const pct = (v: number | null) => (v === null ? null : 100 * v)
  const data: uPlot.AlignedData = [
    xs,
    xs,
    shown.map((b) => pct(b.winRate)),
    shown.map((b) => pct(b.low)),
    shown.map((b) => pct(b.high)),
  ]
  const style = getComputedStyle(document.documentElement)
  const fg = style.getPropertyValue('--fg').trim() || '#333'
  const accent = style.getPropertyValue('--accent').trim() || '#1f5fd1'
  const muted = style.getPropertyValue('--muted').trim() || '#888'
  const width = plotWidth(el)
  drawnWidth = width
  const axis = { stroke: fg, grid: { stroke: `${muted}33` }, ticks: { stroke: `${muted}55` } }
  const opts: uPlot.Options = {
    width,
    height: Math.round(Math.min(360, width * 0.6)),
    scales: { x: { time: false, range: [0, 100] }, y: { range: [0, 100] } },
    axes: [
      { ...axis, label: 'model confidence (%)' },
      { ...axis, label: 'realised win rate (%)' },
    ],
    series: [
      {},
      { label: 'perfectly calibrated', stroke: muted, dash: [4, 4], points: { show: false } },
      {
        label: 'realised',
        stroke: accent,
        width: 0,
        paths: () => null,
        points: { show: true, size: 9, fill: accent },
      },
      { label: '95% low', stroke: accent, dash: [2, 3], width: 1, points: { show: false } },
      { label: '95% high', stroke: accent, dash: [2, 3], width: 1, points: { show: false } },
    ].map((series, i) => (hidden.has(i) ? { ...series, show: false } : series)),
    // the page's checkboxes are the legend (showSeries); the table below carries the numbers
    legend: { show: false },
  }
  chart?.destroy()
  chart = new uPlot(opts, data, el)
}

/** No plot: the window it showed belongs to a session that ended. */
export function clearCalibration(el: HTMLElement): void {
  chart?.destroy()
  chart = null
  el.replaceChildren()
}

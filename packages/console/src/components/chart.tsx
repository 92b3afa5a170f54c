import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

export interface Series {
  label: string;
  values: Array<number | null>;
  /** Drawn on the right-hand scale (0-100 %), e.g. conversion beside counts. */
  percent?: boolean;
}

const COLOURS = ['#0b57d0', '#b3261e', '#146c2e', '#7d5700', '#6750a4', '#006874', '#8c1d18', '#3c4043'];

/**
 * A time-series chart (uPlot, canvas) that follows its container's width, with the same figures
 * as a table below for screen readers and keyboard users (a canvas says nothing to them).
 */
export function TimeChart({ title, times, series, testId }: { title: string; times: number[]; series: Series[]; testId?: string }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el || times.length === 0) return;
    const hasPercent = series.some((s) => s.percent);
    const onlyPercent = series.every((s) => s.percent);
    const plot = new uPlot(
      {
        width: Math.max(260, el.clientWidth),
        height: 220,
        scales: { x: { time: true }, ...(hasPercent ? { pct: { range: [0, 100] } } : {}) },
        // Counts on the left, percentages on the right; a chart of percentages only has its scale on the left.
        axes: onlyPercent
          ? [{}, { scale: 'pct', label: '%' }]
          : [{}, { label: 'count' }, ...(hasPercent ? [{ scale: 'pct', side: 1, label: '%', grid: { show: false } }] : [])],
        // The legend shows the latest period's figures until the pointer is over the chart (and again
        // once it leaves), instead of uPlot's "--".
        hooks: {
          ready: [(u) => u.setLegend({ idx: times.length - 1 }, false)],
          setCursor: [(u) => u.cursor.idx == null && u.setLegend({ idx: times.length - 1 }, false)],
        },
        series: [
          {},
          ...series.map((s, i) => ({
            label: s.label,
            stroke: COLOURS[i % COLOURS.length],
            width: 2,
            ...(s.percent ? { scale: 'pct', dash: [6, 4] } : {}),
          })),
        ],
      },
      [times, ...series.map((s) => (s.percent ? s.values.map((v) => (v === null ? null : v * 100)) : s.values))] as uPlot.AlignedData,
      el,
    );
    const resize = new ResizeObserver(() => plot.setSize({ width: Math.max(260, el.clientWidth), height: 220 }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [times, series]);
  if (times.length === 0) return <p>No figures for this period yet.</p>;
  return (
    <figure class="chart" data-testid={testId}>
      <div ref={box} class="plot" role="img" aria-label={`${title}: a chart; the figures are in the table below`} />
      <details>
        <summary>Figures of “{title}”</summary>
        <div class="table-scroll" tabIndex={0}>
          <table>
            <caption class="visually-hidden">{title}</caption>
            <thead>
              <tr>
                <th scope="col">Period</th>
                {series.map((s) => (
                  <th scope="col" key={s.label}>
                    {s.label}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {times.map((t, row) => (
                <tr key={t}>
                  <th scope="row">{new Date(t * 1000).toISOString().slice(0, 16).replace('T', ' ')}</th>
                  {series.map((s) => {
                    const v = s.values[row];
                    return <td key={s.label}>{v === null || v === undefined ? '—' : s.percent ? `${(v * 100).toFixed(1)} %` : v}</td>;
                  })}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </figure>
  );
}

/** Horizontal bars in HTML (a meter per row): readable as they are by screen readers. */
export function Bars({ rows, label }: { rows: Array<{ key: string; value: number }>; label: string }) {
  const max = Math.max(1, ...rows.map((r) => r.value));
  if (rows.length === 0) return <p>None in this period.</p>;
  return (
    <table class="bars">
      <caption class="visually-hidden">{label}</caption>
      <thead>
        <tr>
          <th scope="col">Reason</th>
          <th scope="col">Count</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => (
          <tr key={r.key}>
            <th scope="row">{r.key}</th>
            <td>
              <meter min={0} max={max} value={r.value} aria-label={`${r.key}: ${r.value}`} /> <span>{r.value}</span>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

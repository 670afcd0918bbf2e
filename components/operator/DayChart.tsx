'use client';
// A count per day (claims, check-ins), the last 30 days, as plain SVG: about 1 KiB of gzip code, against 22.5 KiB for
// uPlot and 51.5 KiB for a tree-shaken Chart.js bar chart (docs/console.md), and both of those
// draw on a canvas, which a screen reader cannot read. Here each bar is a labelled image, the
// figures are also a table (visually hidden), and no style attribute is written, so the page's
// strict CSP (no 'unsafe-inline') holds: sizes are SVG attributes, colours come from the CSS module.
import styles from './console.module.css';

export type DayCount = { date: string; count: number };

const WIDTH = 600;
const HEIGHT = 180;
const PAD = { top: 12, right: 8, bottom: 24, left: 36 };

/** A round top for the axis: 1, 2, 5 × 10^n at or above the largest count. */
export function niceMax(max: number): number {
  if (max <= 4) return 4;
  const power = 10 ** Math.floor(Math.log10(max));
  for (const step of [1, 2, 5, 10]) if (step * power >= max) return step * power;
  return 10 * power;
}

const dayLabel = (date: string) => new Date(`${date}T00:00:00Z`).toLocaleDateString('en', { month: 'short', day: 'numeric', timeZone: 'UTC' });

/** What the chart counts: "claim"/"claims" and "Claims", and its test id. */
export type Counted = { one: string; many: string; title: string; testId: string };

export function DayChart({ days, counted }: { days: DayCount[]; counted: Counted }) {
  const total = days.reduce((sum, day) => sum + day.count, 0);
  const top = niceMax(Math.max(0, ...days.map((day) => day.count)));
  const plotWidth = WIDTH - PAD.left - PAD.right;
  const plotHeight = HEIGHT - PAD.top - PAD.bottom;
  const slot = plotWidth / Math.max(1, days.length);
  const barWidth = Math.max(2, slot * 0.7);
  const y = (count: number) => PAD.top + plotHeight - (count / top) * plotHeight;
  const ticks = [0, top / 2, top];
  const first = days[0];
  const last = days[days.length - 1];

  return (
    <figure className={styles.chart}>
      <figcaption className={styles.chartCaption}>
        {total} {total === 1 ? counted.one : counted.many} in the last {days.length} days
      </figcaption>
      <svg
        viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
        className={styles.chartSvg}
        role="img"
        aria-label={
          `${counted.title} per day, ${first ? dayLabel(first.date) : ''} to ${last ? dayLabel(last.date) : ''}: ` +
          `${total} in all, at most ${Math.max(0, ...days.map((d) => d.count))} in a day.`
        }
        data-testid={counted.testId}
      >
        {ticks.map((tick) => (
          // biome-ignore lint/a11y/noAriaHiddenOnFocusable: a decorative SVG <g>, which takes no focus; the chart's aria-label carries the data
          <g key={tick} aria-hidden="true">
            <line x1={PAD.left} x2={WIDTH - PAD.right} y1={y(tick)} y2={y(tick)} className={styles.chartGrid} />
            <text x={PAD.left - 6} y={y(tick)} dy="0.32em" textAnchor="end" className={styles.chartAxis}>
              {tick}
            </text>
          </g>
        ))}
        {days.map((day, index) => {
          const height = (day.count / top) * plotHeight;
          return (
            <rect
              key={day.date}
              x={PAD.left + index * slot + (slot - barWidth) / 2}
              y={PAD.top + plotHeight - height}
              width={barWidth}
              height={height}
              rx={Math.min(3, barWidth / 3)}
              className={styles.chartBar}
              data-date={day.date}
              data-count={day.count}
            >
              <title>{`${dayLabel(day.date)}: ${day.count}`}</title>
            </rect>
          );
        })}
        {first && last && (
          // biome-ignore lint/a11y/noAriaHiddenOnFocusable: a decorative SVG <g>, which takes no focus; the chart's aria-label carries the data
          <g aria-hidden="true">
            <text x={PAD.left} y={HEIGHT - 6} className={styles.chartAxis}>
              {dayLabel(first.date)}
            </text>
            <text x={WIDTH - PAD.right} y={HEIGHT - 6} textAnchor="end" className={styles.chartAxis}>
              {dayLabel(last.date)}
            </text>
          </g>
        )}
      </svg>
      <table className="visually-hidden">
        <caption>{counted.title} per day</caption>
        <thead>
          <tr>
            <th scope="col">Day</th>
            <th scope="col">{counted.title}</th>
          </tr>
        </thead>
        <tbody>
          {days.map((day) => (
            <tr key={day.date}>
              <td>{day.date}</td>
              <td>{day.count}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </figure>
  );
}

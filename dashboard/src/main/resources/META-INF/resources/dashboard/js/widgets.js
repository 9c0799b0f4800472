// The pieces several views share: condition badges, tables that fold into cards on a phone, bars, the live marker.
import { h } from './dom.js';
import { conditionLabel, conditionSummary, conditionTone } from './present.js';

const TONE_MARK = { good: '✓', warn: '!', bad: '✕', neutral: '•' };

/**
 * A condition as a coloured badge with its reason; its message shows on hover and on keyboard focus, and screen
 * readers read the whole condition. The mark repeats the colour's meaning for those who do not see colour.
 */
export function conditionBadge(condition) {
  const tone = conditionTone(condition);
  return h('span', {
    class: `badge ${tone}`, tabindex: 0, role: 'img', title: condition.message || null,
    'aria-label': conditionSummary(condition), 'data-condition': condition.type, 'data-reason': condition.reason,
  },
  h('span', { class: 'mark', 'aria-hidden': 'true' }, TONE_MARK[tone]),
  h('span', { class: 'type', 'aria-hidden': 'true' }, condition.type),
  h('span', { class: 'reason', 'aria-hidden': 'true' }, conditionLabel(condition)),
  condition.message ? h('span', { class: 'tip', 'aria-hidden': 'true' }, condition.message) : null);
}

/**
 * A table with a caption and column headers; each cell carries its column's name so that narrow screens can show
 * every row as a card of label: value lines.
 */
export function table({ caption, columns, rows, empty, id }) {
  return h('table', { id, class: 'cards' },
    h('caption', {}, caption),
    h('thead', {}, h('tr', {}, columns.map((c) => h('th', { scope: 'col', class: c.numeric ? 'num' : null },
      c.label)))),
    h('tbody', {}, rows.length === 0
      ? h('tr', { class: 'empty' }, h('td', { colspan: columns.length }, empty))
      : rows.map((row) => h('tr', row.attributes ?? {}, columns.map((c, i) => h('td', {
        'data-label': c.label, class: c.numeric ? 'num' : c.nowrap ? 'nowrap' : null,
      }, row.cells[i]))))));
}

/**
 * A horizontal stacked bar: one segment per part (`tone` picks its colour), scaled to `whole`, with a text legend
 * so the numbers are readable without the colours; an `optional` part is left out of the legend while it is 0.
 */
export function bar({ label, whole, parts }) {
  const total = Math.max(whole, parts.reduce((sum, p) => sum + p.value, 0), 1);
  return h('figure', { class: 'bar' },
    h('figcaption', {}, label),
    h('div', { class: 'track', role: 'img', 'aria-label': `${label}: ${parts.map((p) => `${p.value} ${p.name}`)
      .join(', ')}` },
    parts.filter((p) => p.value > 0).map((p) => h('span', {
      class: `segment ${p.tone}`, style: { width: `${(100 * p.value) / total}%` }, title: `${p.value} ${p.name}`,
    }))),
    h('ul', { class: 'legend' }, parts.filter((p) => p.value > 0 || !p.optional).map((p) => h('li', {},
      h('span', { class: `swatch ${p.tone}`, 'aria-hidden': 'true' }), `${p.value} ${p.name}`))));
}

/** A small marker of a live stream's state, announced politely when it changes. */
export function liveMarker() {
  const marker = h('span', { class: 'live state-connecting', role: 'status' }, 'connecting…');
  return {
    element: marker,
    set(state) {
      const text = { live: 'live', reconnecting: 'reconnecting…', stopped: 'stopped' }[state] ?? state;
      marker.className = `live state-${state}`;
      marker.textContent = text;
    },
  };
}

/** A term and its value in a definition list, kept together when the list wraps. */
export function field(term, ...value) {
  return h('div', {}, h('dt', {}, term), h('dd', {}, ...value));
}

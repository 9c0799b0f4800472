// The org's events as they happen, like `kubectl events --types=Warning --watch`: the recent ones first, then each
// new or repeated event as it comes.
import { batched, h, replace } from '../dom.js';
import { API, getJson, serverNow, serverSentEvents } from '../http.js';
import { age, byLastSeen, poolOfEvent } from '../present.js';
import { liveMarker, table } from '../widgets.js';

const KEPT = 200;
// The API has no org-wide event list: the recent events are read pool by pool, from this many pools at most.
const POOLS_READ = 50;

export function feedView(main, context, signal) {
  const live = liveMarker();
  const body = h('div', { id: 'feed-body' });
  const warningsOnly = h('input', { type: 'checkbox', id: 'warnings-only', checked: true });
  replace(main, h('section', { 'aria-labelledby': 'view-title' },
    h('div', { class: 'view-head' }, h('h1', { id: 'view-title', tabindex: -1 }, 'Live events'), live.element),
    h('p', { class: 'hint' }, 'Events of every pool of ', h('strong', {}, context.identity.org),
      ', newest first; new ones arrive by themselves.'),
    h('p', {}, warningsOnly, ' ', h('label', { for: 'warnings-only' }, 'Warnings only')),
    body));

  let events = [];
  let stream = null;
  const draw = batched(() => replace(body, feedTable(events)));
  function start() {
    stream?.abort();
    stream = new AbortController();
    signal.addEventListener('abort', () => stream.abort(), { once: true });
    const warnings = warningsOnly.checked;
    serverSentEvents(`${API}/watch/events${warnings ? '?types=Warning' : ''}`, (event) => {
      // A repeated event comes again with a higher count: it moves to the top.
      events = [event, ...events.filter((e) => e.metadata?.name !== event.metadata?.name)].slice(0, KEPT);
      draw();
    }, {
      connect: async () => {
        events = await recent(warnings, stream.signal);
        draw();
      },
      onState: live.set,
    }, stream.signal);
  }
  warningsOnly.addEventListener('change', start);
  start();
  const ages = setInterval(draw, 10000);
  signal.addEventListener('abort', () => clearInterval(ages));
}

async function recent(warningsOnly, signal) {
  const pools = await getJson(`${API}/nodepools`, { signal });
  const lists = await Promise.all(pools.items.slice(0, POOLS_READ).map((pool) =>
    getJson(`${API}/nodepools/${encodeURIComponent(pool.metadata.name)}/events`, { signal })
      .catch(() => ({ items: [] }))));
  return lists.flatMap((list) => list.items)
    .filter((e) => !warningsOnly || e.type === 'Warning')
    .sort(byLastSeen)
    .slice(0, KEPT);
}

function feedTable(events) {
  const now = serverNow();
  return table({
    id: 'feed',
    caption: `${events.length} ${events.length === 1 ? 'event' : 'events'}`,
    empty: 'No events yet; they appear here as they happen.',
    columns: [{ label: 'Last seen', nowrap: true }, { label: 'Type' }, { label: 'Reason' }, { label: 'Pool' },
      { label: 'Object' }, { label: 'Message' }, { label: 'Count', numeric: true }],
    rows: events.map((e) => {
      const pool = poolOfEvent(e);
      return {
        attributes: { 'data-reason': e.reason },
        cells: [`${age(e.lastTimestamp ?? e.firstTimestamp, now)} ago`,
          h('span', { class: `chip ${e.type === 'Warning' ? 'bad' : 'neutral'}` }, e.type), e.reason,
          pool ? h('a', { href: `#/pools/${encodeURIComponent(pool)}` }, pool) : '',
          `${e.involvedObject?.kind ?? ''}/${e.involvedObject?.name ?? ''}`, e.message, e.count],
      };
    }),
  });
}

// The live table of the org's pools: listed once, then kept current by the Kubernetes watch.
import { batched, h, redraw, replace } from '../dom.js';
import { API, getJson, serverNow, watch } from '../http.js';
import { age, queuePlace } from '../present.js';
import { applyWatchEvent } from '../lines.js';
import { conditionBadge, liveMarker, table } from '../widgets.js';

const AGE_REFRESH_MS = 10000;

export function poolsView(main, context, signal) {
  const pools = new Map();
  const live = liveMarker();
  const body = h('div', { id: 'pools-body' });
  replace(main, h('section', { 'aria-labelledby': 'view-title' },
    h('div', { class: 'view-head' }, h('h1', { id: 'view-title', tabindex: -1 }, 'Node pools'), live.element),
    h('p', { class: 'hint' }, 'Every pool of ', h('strong', {}, context.identity.org),
      ', kept current as it changes. Hover over or focus a condition to read its message.'),
    body));

  const draw = batched(() => redraw(body, () => replace(body, poolTable([...pools.values()]))));
  watch(`${API}/nodepools?watch=true`, (event) => {
    if (applyWatchEvent(pools, event, (pool) => pool.metadata.name) === 'changed') {
      draw();
    }
  }, {
    // The watch starts with every pool, but a list first shows them at once and drops those deleted meanwhile.
    connect: async () => {
      const list = await getJson(`${API}/nodepools`, { signal });
      pools.clear();
      list.items.forEach((pool) => pools.set(pool.metadata.name, pool));
      draw();
    },
    onState: live.set,
  }, signal);
  const ages = setInterval(draw, AGE_REFRESH_MS);
  signal.addEventListener('abort', () => clearInterval(ages));
}

function poolTable(pools) {
  const now = serverNow();
  pools.sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
  return table({
    id: 'pools',
    caption: `${pools.length} ${pools.length === 1 ? 'pool' : 'pools'}`,
    empty: 'No pools yet. Create one through the API; it appears here by itself.',
    columns: [
      { label: 'Name' }, { label: 'Instance type', nowrap: true }, { label: 'Zone', nowrap: true },
      { label: 'Class' },
      { label: 'Target', numeric: true }, { label: 'Current', numeric: true },
      { label: 'In progress', numeric: true }, { label: 'Queued', numeric: true }, { label: 'Queue position' },
      { label: 'Conditions' }, { label: 'Age' },
    ],
    rows: pools.map((pool) => {
      const name = pool.metadata.name;
      const status = pool.status ?? {};
      const place = queuePlace(pool);
      return {
        attributes: { 'data-pool': name },
        cells: [
          h('a', { href: `#/pools/${encodeURIComponent(name)}`, 'data-focus': `open:${name}` }, name),
          pool.spec.instanceType, pool.spec.region ?? '', pool.spec.computeClass ?? 'default',
          pool.spec.targetNodes, status.currentNodes ?? 0, status.inProgress ?? 0, status.queuedNodes ?? 0,
          place ? `${place.position} of ${place.length}` : '—',
          h('span', { class: 'badges' }, (status.conditions ?? []).map((c) => {
            const badge = conditionBadge(c);
            badge.setAttribute('data-focus', `${name}:${c.type}`);
            return badge;
          })),
          pool.metadata.deletionTimestamp ? 'deleting' : age(pool.metadata.creationTimestamp, now),
        ],
      };
    }),
  });
}

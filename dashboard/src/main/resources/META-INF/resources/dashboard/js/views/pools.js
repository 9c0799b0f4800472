// The live table of pools: listed once, then kept current by the Kubernetes watch. An operator's list and watch span
// every org, and each pool carries its org as a label.
import { batched, h, redraw, replace } from '../dom.js';
import { API, listAll, serverNow, watch } from '../http.js';
import { applyWatchEvent } from '../lines.js';
import { age, queuePlace } from '../present.js';
import { conditionBadge, liveMarker, table } from '../widgets.js';

const AGE_REFRESH_MS = 10000;
/** The label the API puts on a pool in reads that span every org. */
const ORG_LABEL = 'compute.coreweave.com/org';

/** The org of a pool in an operator's table: the API's label. */
function orgOf(pool) {
  return pool.metadata.labels?.[ORG_LABEL] ?? '';
}

export function poolsView(main, context, signal) {
  const { admin, org } = context.identity;
  const pools = new Map();
  const keyOf = (pool) => (admin ? `${orgOf(pool)}/${pool.metadata.name}` : pool.metadata.name);
  const live = liveMarker();
  const body = h('div', { id: 'pools-body' });
  replace(main, h('section', { 'aria-labelledby': 'view-title' },
    h('div', { class: 'view-head' }, h('h1', { id: 'view-title', tabindex: -1 }, 'Node pools'), live.element),
    h('p', { class: 'hint' }, admin
      ? 'The pools of every org, kept current. A pool\'s own page is for its org\'s token.'
      : ['Every pool of ', h('strong', {}, org), ', kept current as it changes.'],
    ' Hover over or focus a condition to read its message.'),
    body));

  const draw = batched(() => redraw(body, () => replace(body, poolTable([...pools.values()], admin))));
  // List, then watch from the list's resourceVersion, as Kubernetes clients do; a server that ignores it starts
  // the watch with every pool again, which changes nothing here.
  let listed = null;
  watch(() => `${API}/nodepools?watch=true&allowWatchBookmarks=true`
    + (listed ? `&resourceVersion=${encodeURIComponent(listed)}` : ''), (event) => {
    if (applyWatchEvent(pools, event, keyOf) === 'changed') {
      draw();
    }
  }, {
    connect: async () => {
      const list = await listAll(`${API}/nodepools`, { signal });
      listed = list.metadata?.resourceVersion ?? null;
      pools.clear();
      list.items.forEach((pool) => pools.set(keyOf(pool), pool));
      draw();
    },
    onState: live.set,
  }, signal);
  const ages = setInterval(draw, AGE_REFRESH_MS);
  signal.addEventListener('abort', () => clearInterval(ages));
}

function poolTable(pools, admin) {
  const now = serverNow();
  pools.sort((a, b) => orgOf(a).localeCompare(orgOf(b)) || a.metadata.name.localeCompare(b.metadata.name));
  return table({
    id: 'pools',
    caption: `${pools.length} ${pools.length === 1 ? 'pool' : 'pools'}`,
    empty: 'No pools yet. Create one through the API; it appears here by itself.',
    columns: [
      admin ? { label: 'Org' } : null, { label: 'Name' }, { label: 'Instance type', nowrap: true },
      { label: 'Zone', nowrap: true }, { label: 'Class' }, { label: 'Target', numeric: true },
      { label: 'Current', numeric: true }, { label: 'In progress', numeric: true }, { label: 'Queued', numeric: true },
      { label: 'Queue position' }, { label: 'Conditions' }, { label: 'Age' },
    ].filter(Boolean),
    rows: pools.map((pool) => {
      const name = pool.metadata.name;
      const key = admin ? `${orgOf(pool)}/${name}` : name;
      const status = pool.status ?? {};
      const place = queuePlace(pool);
      return {
        attributes: { 'data-pool': key },
        cells: [
          admin ? orgOf(pool) : null,
          admin ? name : h('a', { href: `#/pools/${encodeURIComponent(name)}`, 'data-focus': `open:${name}` }, name),
          pool.spec.instanceType, pool.spec.region ?? '', pool.spec.computeClass ?? 'default',
          pool.spec.targetNodes, status.currentNodes ?? 0, status.inProgress ?? 0, status.queuedNodes ?? 0,
          place ? `${place.position} of ${place.length}` : '—',
          h('span', { class: 'badges' }, (status.conditions ?? []).map((c) => {
            const badge = conditionBadge(c);
            badge.setAttribute('data-focus', `${key}:${c.type}`);
            return badge;
          })),
          pool.metadata.deletionTimestamp ? 'deleting' : age(pool.metadata.creationTimestamp, now),
        ].filter((cell, i) => admin || i > 0),
      };
    }),
  });
}

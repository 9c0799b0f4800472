// The live table of pools. An org's: listed once, then kept current by the Kubernetes watch. An operator's: every
// org's pools, read again every few seconds (the NodePool API and its watch serve one org at a time).
import { batched, h, redraw, replace } from '../dom.js';
import { API, getJson, serverNow, watch } from '../http.js';
import { applyWatchEvent } from '../lines.js';
import { age, queuePlace } from '../present.js';
import { conditionBadge, liveMarker, table } from '../widgets.js';

const AGE_REFRESH_MS = 10000;
const OPERATOR_REFRESH_MS = 2000;

export function poolsView(main, context, signal) {
  const { admin, org } = context.identity;
  const pools = new Map();
  const live = liveMarker();
  const body = h('div', { id: 'pools-body' });
  replace(main, h('section', { 'aria-labelledby': 'view-title' },
    h('div', { class: 'view-head' }, h('h1', { id: 'view-title', tabindex: -1 }, 'Node pools'), live.element),
    h('p', { class: 'hint' }, admin
      ? 'The pools of every org, read again every 2 seconds. A pool\'s own page is for its org\'s token.'
      : ['Every pool of ', h('strong', {}, org), ', kept current as it changes.'],
    ' Hover over or focus a condition to read its message.'),
    body));

  const draw = batched(() => redraw(body, () => replace(body, poolTable([...pools.values()], admin))));
  if (admin) {
    followEveryOrg(pools, draw, live, signal);
  } else {
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
  }
  const ages = setInterval(draw, AGE_REFRESH_MS);
  signal.addEventListener('abort', () => clearInterval(ages));
}

function followEveryOrg(pools, draw, live, signal) {
  async function read() {
    try {
      const all = await getJson('/dashboard/api/nodepools', { signal });
      pools.clear();
      all.forEach(({ org, pool }) => pools.set(`${org}/${pool.metadata.name}`, { ...pool, org }));
      live.set('live');
      draw();
    } catch {
      if (!signal.aborted) {
        live.set('reconnecting');
      }
    }
  }
  read();
  const timer = setInterval(read, OPERATOR_REFRESH_MS);
  signal.addEventListener('abort', () => clearInterval(timer));
}

function poolTable(pools, admin) {
  const now = serverNow();
  pools.sort((a, b) => (a.org ?? '').localeCompare(b.org ?? '') || a.metadata.name.localeCompare(b.metadata.name));
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
      const key = admin ? `${pool.org}/${name}` : name;
      const status = pool.status ?? {};
      const place = queuePlace(pool);
      return {
        attributes: { 'data-pool': key },
        cells: [
          admin ? pool.org : null,
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

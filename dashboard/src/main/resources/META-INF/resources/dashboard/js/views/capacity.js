// The fleet per zone × instance type (operators) and quota usage per org × zone × type, as bars, read again every
// few seconds: neither has a stream.
import { h, replace } from '../dom.js';
import { getJson } from '../http.js';
import { bar, liveMarker, table } from '../widgets.js';

const REFRESH_MS = 5000;

export function capacityView(main, context, signal) {
  const live = liveMarker();
  const fleet = h('div', { id: 'fleet' });
  const quotas = h('div', { id: 'quotas' });
  const admin = context.identity.admin;
  replace(main, h('section', { 'aria-labelledby': 'view-title' },
    h('div', { class: 'view-head' },
      h('h1', { id: 'view-title', tabindex: -1 }, admin ? 'Fleet and quotas' : 'Quotas'), live.element),
    admin ? h('section', { 'aria-labelledby': 'fleet-title', class: 'panel' },
      h('h2', { id: 'fleet-title' }, 'Fleet per zone and instance type'), fleet) : null,
    h('section', { 'aria-labelledby': 'quotas-title', class: 'panel' },
      h('h2', { id: 'quotas-title' }, admin ? 'Quotas of every org' : `Quotas of ${context.identity.org}`),
      quotas)));

  async function load() {
    try {
      const [ledgers, quotaList] = await Promise.all([
        admin ? getJson('/dashboard/api/fleet', { signal }) : null,
        getJson('/dashboard/api/quotas', { signal })]);
      if (admin) {
        replace(fleet, fleetBars(ledgers));
      }
      replace(quotas, quotaBars(quotaList.items));
      live.set('live');
    } catch (error) {
      if (!signal.aborted) {
        live.set('reconnecting');
      }
    }
  }
  load();
  const timer = setInterval(load, REFRESH_MS);
  signal.addEventListener('abort', () => clearInterval(timer));
}

function fleetBars(ledgers) {
  if (ledgers.length === 0) {
    return h('p', { class: 'hint' }, 'No machines in the fleet yet.');
  }
  return h('div', { class: 'ledgers' }, ledgers.map((l) => {
    const spot = l.spotHeld;
    return h('div', { class: 'ledger', 'data-ledger': `${l.zone}/${l.instanceType}` },
      h('h3', {}, `${l.instanceType} in ${l.zone}`),
      bar({
        label: `Machines (${l.total} in service)`,
        whole: l.total,
        parts: [
          { name: 'allocated, reserved', value: l.allocated - spot, tone: 'reserved' },
          { name: 'allocated, spot', value: spot, tone: 'spot' },
          { name: 'free', value: l.free, tone: 'free' },
          { name: 'in maintenance', value: l.maintenance, tone: 'maintenance', optional: true },
        ],
      }),
      bar({
        label: 'Nodes queued for capacity',
        whole: l.total,
        parts: [
          { name: 'reserved waiting', value: l.reservedDemandWaiting, tone: 'reserved-waiting' },
          { name: 'spot waiting', value: l.spotDemandWaiting, tone: 'spot-waiting' },
        ],
      }),
      l.reclaiming > 0 ? h('p', { class: 'notice' }, `${l.reclaiming} spot node(s) being taken back.`) : null,
      l.queue.length ? table({
        caption: 'Queue, in serving order',
        empty: '',
        columns: [{ label: 'Position', numeric: true }, { label: 'Pool' }, { label: 'Class' },
          { label: 'Waiting nodes', numeric: true }, { label: 'Since' }],
        rows: l.queue.map((w) => ({ cells: [w.position, w.pool, w.computeClass, w.waitingNodes, w.since] })),
      }) : null);
  }));
}

function quotaBars(items) {
  if (items.length === 0) {
    return h('p', { class: 'hint' }, 'No quotas set.');
  }
  return h('div', { class: 'bars' }, items.map((q) => h('div', {
    class: 'quota', 'data-quota': `${q.org}/${q.zone}/${q.instanceType}`,
  }, bar({
    label: `${q.org} · ${q.instanceType} · ${q.zone}: ${q.usedNodes} of ${q.maxNodes} used`
      + (q.requestedNodes > q.usedNodes ? `, ${q.requestedNodes} requested` : ''),
    whole: q.maxNodes,
    parts: [
      { name: 'used', value: q.usedNodes, tone: q.usedNodes >= q.maxNodes ? 'full' : 'reserved' },
      { name: 'free', value: Math.max(0, q.maxNodes - q.usedNodes), tone: 'free' },
      { name: 'requested beyond the limit', value: Math.max(0, q.requestedNodes - q.maxNodes), tone: 'over',
        optional: true },
    ],
  }))));
}

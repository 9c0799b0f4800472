// One pool: its status, nodes, node configuration, spot preemptions and events, kept current by the pool's watch
// and its event stream; spot countdowns tick every second.
import { batched, h, redraw, replace } from '../dom.js';
import { API, ApiError, getJson, serverNow, serverSentEvents, watch } from '../http.js';
import {
  activity, age, byLastSeen, countdown, eventCounts, isSpotPool, preemptionStage, queuePlace,
} from '../present.js';
import { bar, conditionBadge, field, liveMarker, table } from '../widgets.js';

const REFRESH_DEBOUNCE_MS = 300;
// Node activity (busy/idle) changes without an event; nodes are read again this often as well.
const BACKSTOP_REFRESH_MS = 10000;
/** Labels every node has; shown apart from the pool's own. */
const STANDARD_LABEL = /^(kubernetes\.io|node\.kubernetes\.io|topology\.kubernetes\.io|compute\.coreweave\.com)\//;

export function poolView(main, context, signal, name) {
  const state = { pool: null, nodes: [], events: new Map(), preemptions: null, filter: 'All', gone: false };
  const poolPath = `${API}/nodepools/${encodeURIComponent(name)}`;
  const poolLive = liveMarker();
  const eventsLive = liveMarker();
  const parts = {
    summary: h('div'), nodes: h('div'), spot: h('div'), configuration: h('div'), events: h('div'),
    notice: h('div', { role: 'status' }),
  };
  replace(main, h('article', { 'aria-labelledby': 'view-title' },
    h('p', {}, h('a', { href: '#/pools' }, '← All pools')),
    h('div', { class: 'view-head' }, h('h1', { id: 'view-title', tabindex: -1 }, name), poolLive.element),
    parts.notice, parts.summary,
    section('Nodes', 'nodes', parts.nodes),
    parts.spot,
    section('Node configuration', 'configuration', parts.configuration),
    section('Events', 'events', parts.events, eventsLive.element)));

  const draw = {
    summary: batched(() => redraw(parts.summary, () => replace(parts.summary, summary(state.pool)))),
    nodes: batched(() => redraw(parts.nodes, () => replace(parts.nodes, nodeTable(state.nodes)))),
    spot: batched(() => redraw(parts.spot, () => replace(parts.spot, spot(state)))),
    configuration: batched(() => replace(parts.configuration, configuration(state.pool))),
    events: batched(() => redraw(parts.events, () => replace(parts.events, events(state, draw.events)))),
  };
  const isSpot = () => isSpotPool(state.pool);

  const refresh = debounce(async () => {
    try {
      const [nodes, preemptions] = await Promise.all([getJson(`${poolPath}/nodes`, { signal }),
        isSpot() ? getJson(`${poolPath}/preemptions`, { signal }) : null]);
      state.nodes = nodes.items;
      state.preemptions = preemptions;
      draw.nodes();
      draw.spot();
    } catch (error) {
      notFound(error);
    }
  }, REFRESH_DEBOUNCE_MS);

  function show(pool) {
    state.pool = pool;
    draw.summary();
    draw.configuration();
    refresh();
  }

  function notFound(error) {
    if (error instanceof ApiError && error.status === 404) {
      state.gone = true;
      replace(parts.notice, h('p', { class: 'notice' }, `NodePool ${name} does not exist (any more).`));
    }
  }

  watch(`${poolPath}?watch=true&allowWatchBookmarks=true`, (event) => {
    if (event.type === 'ADDED' || event.type === 'MODIFIED') {
      replace(parts.notice);
      show(event.object);
    } else if (event.type === 'DELETED') {
      notFound(new ApiError(404));
    }
  }, {
    connect: async () => {
      try {
        show(await getJson(poolPath, { signal }));
      } catch (error) {
        notFound(error);
        if (!state.gone) {
          throw error;
        }
      }
    },
    onState: poolLive.set,
  }, signal);

  serverSentEvents(`${poolPath}/events?watch=true`, (event) => {
    state.events.set(event.metadata?.name ?? JSON.stringify(event), event);
    draw.events();
    refresh();
  }, {
    connect: async () => {
      const list = await getJson(`${poolPath}/events`, { signal }).catch(() => ({ items: [] }));
      state.events = new Map(list.items.map((e) => [e.metadata?.name, e]));
      draw.events();
    },
    onState: eventsLive.set,
  }, signal);

  // Countdowns move every second; everything else when the API says so (and the backstop).
  const ticker = setInterval(() => {
    if (state.preemptions?.inProgress?.length) {
      draw.spot();
    }
  }, 1000);
  const backstop = setInterval(() => {
    refresh();
    draw.events();
  }, BACKSTOP_REFRESH_MS);
  signal.addEventListener('abort', () => {
    clearInterval(ticker);
    clearInterval(backstop);
  });
}

function section(title, id, body, ...extra) {
  return h('section', { 'aria-labelledby': `${id}-title`, class: 'panel' },
    h('div', { class: 'view-head' }, h('h2', { id: `${id}-title` }, title), ...extra), body);
}

function debounce(run, ms) {
  let timer = null;
  return () => {
    clearTimeout(timer);
    timer = setTimeout(run, ms);
  };
}

function summary(pool) {
  if (!pool) {
    return h('p', { class: 'hint' }, 'Loading…');
  }
  const { spec } = pool;
  const status = pool.status ?? {};
  const place = queuePlace(pool);
  return [
    h('dl', { class: 'facts', id: 'pool-summary' },
      field('Instance type', spec.instanceType),
      field('Zone', spec.region ?? ''),
      field('Compute class', spec.computeClass ?? 'default'),
      field('Target', h('span', { 'data-count': 'target' }, spec.targetNodes),
        spec.autoscaling ? ` (autoscaling ${spec.minNodes}–${spec.maxNodes})` : ''),
      field('Current', h('span', { 'data-count': 'current' }, status.currentNodes ?? 0)),
      field('In progress', h('span', { 'data-count': 'inProgress' }, status.inProgress ?? 0)),
      field('Queued', h('span', { 'data-count': 'queued' }, status.queuedNodes ?? 0),
        place ? ` (position ${place.position} of ${place.length})` : ''),
      status.pendingDemand
        ? field('Pending demand', h('span', { 'data-count': 'pendingDemand' }, status.pendingDemand.nodes),
          ` node(s) for ${status.pendingDemand.workloads} workload(s)`)
        : null,
      field('Scale-down', spec.lifecycle?.scaleDownStrategy ?? ''),
      spec.lifecycle?.maxUnhealthy ? field('Max unhealthy', spec.lifecycle.maxUnhealthy) : null,
      field('Created', pool.metadata.creationTimestamp ?? ''),
      pool.metadata.deletionTimestamp ? field('Deleting since', pool.metadata.deletionTimestamp) : null),
    table({
      id: 'pool-conditions',
      caption: 'Conditions',
      empty: 'No conditions yet.',
      columns: [{ label: 'Condition' }, { label: 'Status' }, { label: 'Message' }, { label: 'Since' }],
      rows: (status.conditions ?? []).map((c) => ({
        cells: [withFocus(conditionBadge(c), `condition:${c.type}`), c.status, c.message ?? '',
          c.lastTransitionTime ?? ''],
      })),
    }),
  ];
}

function withFocus(element, key) {
  element.setAttribute('data-focus', key);
  return element;
}

function nodeTable(nodes) {
  return table({
    id: 'nodes',
    caption: `${nodes.length} ${nodes.length === 1 ? 'node' : 'nodes'}`,
    empty: 'No nodes.',
    columns: [{ label: 'Node' }, { label: 'Phase' }, { label: 'Activity' }, { label: 'Conditions' },
      { label: 'Labels' }, { label: 'Taints' }],
    rows: nodes.map((node) => {
      const labels = Object.entries(node.metadata.labels ?? {});
      const own = labels.filter(([k]) => !STANDARD_LABEL.test(k));
      const standard = labels.filter(([k]) => STANDARD_LABEL.test(k));
      return {
        attributes: { 'data-node': node.metadata.name },
        cells: [
          node.metadata.name,
          h('span', { class: `phase ${node.status?.phase ?? ''}` }, node.status?.phase ?? ''),
          [activity(node), node.spec?.unschedulable ? h('span', { class: 'chip warn' }, 'cordoned') : null],
          h('span', { class: 'badges' }, (node.status?.conditions ?? []).map((c) =>
            withFocus(conditionBadge(c), `${node.metadata.name}:${c.type}`))),
          h('span', { class: 'chips' }, own.map(chip),
            standard.length ? h('details', {}, h('summary', {}, `${standard.length} standard`),
              standard.map(chip)) : null),
          h('span', { class: 'chips' }, (node.spec?.taints ?? []).map((t) =>
            h('code', { class: 'chip' }, `${t.key}${t.value ? `=${t.value}` : ''}:${t.effect}`))),
        ],
      };
    }),
  });
}

function chip([key, value]) {
  return h('code', { class: 'chip' }, `${key}=${value}`);
}

function spot(state) {
  const history = state.preemptions;
  if (!history) {
    return [];
  }
  const now = serverNow();
  const rate = history.interruptionsPerNodeDay;
  return h('section', { 'aria-labelledby': 'spot-title', class: 'panel', id: 'spot' },
    h('h2', { id: 'spot-title' }, 'Spot preemption'),
    h('h3', {}, 'Nodes being preempted'),
    history.inProgress.length === 0
      ? h('p', { class: 'hint' }, 'No node of this pool is being preempted.')
      : h('ul', { class: 'timelines' }, history.inProgress.map((t) => timeline(t, now))),
    h('h3', {}, 'Last 7 days'),
    h('dl', { class: 'facts' },
      field('Interruption rate', h('span', { id: 'interruption-rate' },
        rate == null ? 'no node-days run yet' : `${rate.toFixed(2)} per node-day`)),
      field('Preempted, last 24 h', history.last24h),
      field('Preempted, last 7 days', h('span', { id: 'preempted-7d' }, history.last7d)),
      field('Node-days run', history.nodeDays7d.toFixed(2))),
    Object.keys(history.perDay).length
      ? h('div', { class: 'bars' }, Object.entries(history.perDay).map(([day, count]) => bar({
        label: day, whole: Math.max(...Object.values(history.perDay)),
        parts: [{ name: count === 1 ? 'preemption' : 'preemptions', value: count, tone: 'spot' }],
      })))
      : null,
    table({
      id: 'preemption-history',
      caption: 'Preempted nodes',
      empty: 'None in the last 7 days.',
      columns: [{ label: 'Node' }, { label: 'Warned' }, { label: 'Removed' }, { label: 'Why then' }],
      rows: [...history.preempted].reverse().map((p) => ({
        cells: [p.node, p.pendingAt, p.removedAt, p.cause === 'Drained' ? 'drained early' : 'end of the window'],
      })),
    }));
}

/** One node's timeline: warned at T+0, drained at T+2, removed by T+7 (durations as the platform set them). */
function timeline(t, now) {
  const stage = preemptionStage(t, now);
  const drainText = stage.stage === 'warned' ? `drain (T+2) in ${countdown(stage.untilDrain)}`
    : `draining since ${t.evictedAt ?? t.drainAt}`;
  const removalText = stage.stage === 'removing' ? 'removal (T+7) due now'
    : `removal (T+7) in ${countdown(stage.untilRemoval)}`;
  return h('li', { class: `timeline ${stage.stage}`, 'data-node': t.node },
    h('strong', {}, t.node), ' ',
    h('span', { class: 'stage' }, { warned: 'warned', draining: 'draining', removing: 'being removed' }[stage.stage]),
    h('div', {
      class: 'window', role: 'progressbar', 'aria-label': `Preemption window of ${t.node}`,
      'aria-valuemin': 0, 'aria-valuemax': 100, 'aria-valuenow': Math.round(stage.elapsedShare * 100),
    },
    h('span', { class: 'elapsed', style: { width: `${stage.elapsedShare * 100}%` } }),
    h('span', { class: 'drain-mark', style: { left: `${stage.drainShare * 100}%` }, 'aria-hidden': 'true' })),
    h('p', { class: 'countdown' },
      h('span', { class: 'to-drain' }, drainText), ' · ', h('span', { class: 'to-removal' }, removalText)));
}

function configuration(pool) {
  if (!pool) {
    return [];
  }
  const status = pool.status ?? {};
  const pending = status.pendingNodeConfiguration;
  return [
    h('dl', { class: 'facts' },
      field('Active node profile', h('code', {}, status.nodeProfile ?? 'none yet')),
      field('Update strategy', pool.spec.nodeConfigurationUpdateStrategy?.type ?? ''),
      field('Pending', pending ? [h('code', {}, pending.nodeProfile ?? ''), ' ',
        (pending.summary ?? []).join('; ')] : 'nothing pending')),
    table({
      id: 'revisions',
      caption: 'Revisions',
      empty: 'No revisions yet.',
      columns: [{ label: 'Node profile' }, { label: 'Created' }, { label: 'Active nodes', numeric: true },
        { label: 'What it runs' }, { label: 'Disabled' }],
      rows: (status.nodeConfigurationRevisions ?? []).map((r) => ({
        cells: [h('code', {}, r.nodeProfile), r.createdAt ?? '', r.activeNodes ?? 0, (r.summary ?? []).join('; '),
          r.disabled ? 'yes' : 'no'],
      })),
    }),
  ];
}

function events(state, redrawEvents) {
  const all = [...state.events.values()].sort(byLastSeen);
  const counts = eventCounts(all);
  const shown = state.filter === 'All' ? all : all.filter((e) => e.type === state.filter);
  const now = serverNow();
  return [
    h('fieldset', { class: 'filter' },
      h('legend', {}, 'Show'),
      ['All', 'Normal', 'Warning'].map((type) => h('label', {},
        h('input', {
          type: 'radio', name: 'event-type', value: type, checked: state.filter === type,
          'data-focus': `filter:${type}`,
          onchange: () => {
            state.filter = type;
            redrawEvents();
          },
        }), ` ${type} (${counts[type] ?? 0})`))),
    table({
      id: 'events',
      caption: `${shown.length} of ${all.length} events`,
      empty: 'No events.',
      columns: [{ label: 'Type' }, { label: 'Reason' }, { label: 'Object' }, { label: 'Message' },
        { label: 'Count', numeric: true }, { label: 'Last seen' }],
      rows: shown.map((e) => ({
        attributes: { 'data-reason': e.reason, 'data-type': e.type },
        cells: [h('span', { class: `chip ${e.type === 'Warning' ? 'bad' : 'neutral'}` }, e.type), e.reason,
          `${e.involvedObject?.kind ?? ''}/${e.involvedObject?.name ?? ''}`, e.message, e.count,
          `${age(e.lastTimestamp ?? e.firstTimestamp, now)} ago`],
      })),
    }),
  ];
}

// What the dashboard reads off the API's objects: how good a condition is, ages, countdowns, queue places, spot
// timelines. Plain functions of values, so they are tested without a browser (src/test/js).

/** Conditions where True is the healthy state; CWActive only says busy or idle. Any other type (the reference's
 * NodeReconfigurationRequired and CWNodeRemoval, node-health conditions) is a problem when True, as in Kubernetes. */
const HEALTHY_WHEN_TRUE = new Set(['Validated', 'Capacity', 'Quota', 'AtTarget', 'NodesRemoved', 'Ready',
  'CWRegistered']);
const NEUTRAL = new Set(['CWActive']);
/** Reasons of a state that is on its way somewhere, not broken. */
const TRANSITIONAL = new Set(['UnderTarget', 'OverTarget', 'PendingDelete', 'Pending', 'Partial',
  'QueuedAwaitingCapacity', 'Booting']);
/** Problems the platform is already handling: a reconfigure reboot, a node's removal. */
const KNOWN_PROBLEMS = new Set(['NodeReconfigurationRequired', 'CWNodeRemoval']);

/** Whether a pool is a spot pool: the api-service takes `spot` in any case (`Spot`, `SPOT`). */
export function isSpotPool(pool) {
  return pool?.spec?.computeClass?.toLowerCase() === 'spot';
}

/** 'good', 'warn', 'bad' or 'neutral': the colour of a condition's badge. */
export function conditionTone(condition) {
  const { type, status, reason } = condition;
  if (NEUTRAL.has(type) || (status !== 'True' && status !== 'False')) {
    return 'neutral';
  }
  const healthy = HEALTHY_WHEN_TRUE.has(type) ? status === 'True' : status === 'False';
  if (healthy) {
    return 'good';
  }
  return TRANSITIONAL.has(reason) || KNOWN_PROBLEMS.has(type) ? 'warn' : 'bad';
}

/** The text a badge shows: the reason, or the status when there is none. */
export function conditionLabel(condition) {
  return condition.reason || condition.status || '?';
}

/** The whole condition in one line, for screen readers and tooltips. */
export function conditionSummary(condition) {
  const head = `${condition.type}: ${condition.reason || ''} (${condition.status})`;
  return condition.message ? `${head}. ${condition.message}` : head;
}

/** The condition of that type, or undefined. */
export function condition(object, type) {
  return (object?.status?.conditions ?? []).find((c) => c.type === type);
}

/** "position P of L" of the capacity-service's message on the Capacity condition, or null when not queued. */
export function queuePlace(pool) {
  const match = /position (\d+) of (\d+)/.exec(condition(pool, 'Capacity')?.message ?? '');
  return match ? { position: Number(match[1]), length: Number(match[2]) } : null;
}

/** A short age like kubectl's: 42s, 5m, 3h, 2d. */
export function age(timestamp, now) {
  const seconds = Math.max(0, Math.floor((now - Date.parse(timestamp)) / 1000));
  if (seconds < 120) {
    return `${seconds}s`;
  }
  if (seconds < 7200) {
    return `${Math.floor(seconds / 60)}m`;
  }
  if (seconds < 172800) {
    return `${Math.floor(seconds / 3600)}h`;
  }
  return `${Math.floor(seconds / 86400)}d`;
}

/** A countdown as m:ss (h:mm:ss beyond an hour); 0:00 once it is due. */
export function countdown(milliseconds) {
  const total = Math.max(0, Math.ceil(milliseconds / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = String(total % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
}

/**
 * Where a preempting node is on the reference's timeline at `now`: warned (until the drain at T+2), draining
 * (until removal, by T+7), or overdue; with the time left to each step and how far through the window it is.
 */
export function preemptionStage(timeline, now) {
  const pendingAt = Date.parse(timeline.pendingAt);
  const drainAt = Date.parse(timeline.evictedAt ?? timeline.drainAt);
  const removeBy = Date.parse(timeline.removeBy);
  const draining = timeline.evictedAt != null || now >= drainAt;
  return {
    stage: now >= removeBy ? 'removing' : draining ? 'draining' : 'warned',
    untilDrain: drainAt - now,
    untilRemoval: removeBy - now,
    drainShare: (drainAt - pendingAt) / (removeBy - pendingAt),
    elapsedShare: Math.min(1, Math.max(0, (now - pendingAt) / (removeBy - pendingAt))),
  };
}

/** Events per type, for the Normal/Warning filter. */
export function eventCounts(events) {
  const counts = { All: events.length, Normal: 0, Warning: 0 };
  for (const event of events) {
    counts[event.type] = (counts[event.type] ?? 0) + 1;
  }
  return counts;
}

/** Newest first, by the time an event was last seen. */
export function byLastSeen(a, b) {
  return Date.parse(b.lastTimestamp ?? b.firstTimestamp) - Date.parse(a.lastTimestamp ?? a.firstTimestamp);
}

/** Whether the node is busy, from its CWActive condition. */
export function activity(node) {
  const active = (node.status?.conditions ?? []).find((c) => c.type === 'CWActive');
  if (!active) {
    return 'unknown';
  }
  return active.status === 'True' ? 'busy' : 'idle';
}

/**
 * The pool a Kubernetes Event belongs to: its involved object when that is the pool; for a node's event, the name
 * the api-service gives every Event of a pool, "<pool>.<hash>".
 */
export function poolOfEvent(event) {
  if (event.involvedObject?.kind === 'NodePool') {
    return event.involvedObject.name;
  }
  const name = event.metadata?.name ?? '';
  const dot = name.lastIndexOf('.');
  return dot > 0 ? name.slice(0, dot) : null;
}

// What the dashboard reads off the API's objects.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  age, conditionTone, countdown, eventCounts, isSpotPool, poolOfEvent, preemptionStage, queuePlace,
} from '../../main/resources/META-INF/resources/dashboard/js/present.js';

test('a condition is good when it is in its healthy state, whichever way round that is', () => {
  assert.equal(conditionTone({ type: 'AtTarget', status: 'True', reason: 'TargetMet' }), 'good');
  assert.equal(conditionTone({ type: 'NodeReconfigurationRequired', status: 'False' }), 'good');
  assert.equal(conditionTone({ type: 'CWNodeRemoval', status: 'False', reason: 'NotPendingRemoval' }), 'good');
});

test('a state on its way somewhere warns; a broken one is bad', () => {
  assert.equal(conditionTone({ type: 'AtTarget', status: 'False', reason: 'UnderTarget' }), 'warn');
  assert.equal(conditionTone({ type: 'Capacity', status: 'False', reason: 'QueuedAwaitingCapacity' }), 'warn');
  assert.equal(conditionTone({ type: 'CWNodeRemoval', status: 'True', reason: 'Preempted' }), 'warn');
  assert.equal(conditionTone({ type: 'Quota', status: 'False', reason: 'Over' }), 'bad');
  assert.equal(conditionTone({ type: 'Validated', status: 'False', reason: 'Invalid' }), 'bad');
});

test('node conditions the dashboard has never heard of are shown as problems when True, like Kubernetes ones', () => {
  assert.equal(conditionTone({ type: 'GpuXidError', status: 'True', reason: 'Xid79' }), 'bad');
  assert.equal(conditionTone({ type: 'GpuXidError', status: 'False' }), 'good');
  assert.equal(conditionTone({ type: 'Ready', status: 'True' }), 'good');
  assert.equal(conditionTone({ type: 'Ready', status: 'Unknown' }), 'neutral');
  assert.equal(conditionTone({ type: 'CWActive', status: 'True', reason: 'Active' }), 'neutral');
});

test('the queue place comes from the Capacity condition while nodes wait', () => {
  const pool = (message) => ({ status: { conditions: [{ type: 'Capacity', status: 'False', message }] } });
  assert.deepEqual(queuePlace(pool('2 nodes queued, position 3 of 5 for gd-8xa100-i128 in US-EAST-04A')),
    { position: 3, length: 5 });
  assert.equal(queuePlace(pool('Sufficient capacity available for the requested instance type.')), null);
  assert.equal(queuePlace({ status: {} }), null);
});

test('countdowns and ages read like kubectl', () => {
  assert.equal(countdown(125_000), '2:05');
  assert.equal(countdown(400), '0:01');
  assert.equal(countdown(-3000), '0:00');
  assert.equal(countdown(3_725_000), '1:02:05');
  const now = Date.parse('2026-11-23T12:00:00Z');
  assert.equal(age('2026-11-23T11:59:18Z', now), '42s');
  assert.equal(age('2026-11-23T11:55:00Z', now), '5m');
  assert.equal(age('2026-11-23T09:00:00Z', now), '3h');
  assert.equal(age('2026-11-20T12:00:00Z', now), '3d');
});

test('a preempting node is warned until the drain, then draining until its removal is due', () => {
  const t = { pendingAt: '2026-11-23T12:00:00Z', drainAt: '2026-11-23T12:02:00Z', removeBy: '2026-11-23T12:07:00Z' };
  const at = (time) => preemptionStage(t, Date.parse(time));
  assert.deepEqual(at('2026-11-23T12:01:00Z'), {
    stage: 'warned', untilDrain: 60_000, untilRemoval: 360_000, drainShare: 2 / 7, elapsedShare: 1 / 7,
  });
  assert.equal(at('2026-11-23T12:03:00Z').stage, 'draining');
  assert.equal(preemptionStage({ ...t, evictedAt: '2026-11-23T12:01:30Z' }, Date.parse('2026-11-23T12:01:40Z'))
    .stage, 'draining');
  assert.equal(at('2026-11-23T12:07:01Z').stage, 'removing');
  assert.equal(at('2026-11-23T12:08:00Z').elapsedShare, 1);
});

test('events are counted per type and belong to their pool', () => {
  assert.deepEqual(eventCounts([{ type: 'Normal' }, { type: 'Warning' }, { type: 'Normal' }]),
    { All: 3, Normal: 2, Warning: 1 });
  assert.equal(poolOfEvent({ involvedObject: { kind: 'NodePool', name: 'a.b' }, metadata: { name: 'x.1' } }), 'a.b');
  assert.equal(poolOfEvent({ involvedObject: { kind: 'Node', name: 'n-1' }, metadata: { name: 'spot.pool.0af3' } }),
    'spot.pool');
  assert.equal(poolOfEvent({ involvedObject: { kind: 'Node', name: 'n-1' } }), null);
});

test('a spot pool is recognised whatever the case of its compute class', () => {
  for (const computeClass of ['spot', 'Spot', 'SPOT']) {
    assert.equal(isSpotPool({ spec: { computeClass } }), true, computeClass);
  }
  assert.equal(isSpotPool({ spec: { computeClass: 'default' } }), false);
  assert.equal(isSpotPool({ spec: {} }), false);
  assert.equal(isSpotPool(null), false);
});

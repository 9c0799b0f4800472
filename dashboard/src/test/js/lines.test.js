// How the dashboard reads the live streams, chunk by chunk as fetch hands them over.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { applyWatchEvent, LineBuffer, SseParser } from '../../main/resources/META-INF/resources/dashboard/js/lines.js';

test('a line split across chunks is given whole, once', () => {
  const lines = new LineBuffer();
  assert.deepEqual(lines.push('{"type":"ADD'), []);
  assert.deepEqual(lines.push('ED"}\n{"type":'), ['{"type":"ADDED"}']);
  assert.deepEqual(lines.push('"MODIFIED"}\r\n\n'), ['{"type":"MODIFIED"}', '']);
  assert.deepEqual(lines.end(), []);
});

test('what is left when the stream ends is the last line', () => {
  const lines = new LineBuffer();
  lines.push('a\nb');
  assert.deepEqual(lines.end(), ['b']);
});

test('server-sent events gather data lines until a blank line and skip comments', () => {
  const parser = new SseParser();
  const seen = [':keep-alive', 'event: warning', 'data: {"a":', 'data:1}', '', '', 'data: x', '']
    .map((line) => parser.line(line)).filter(Boolean);
  assert.deepEqual(seen, [{ event: 'warning', data: '{"a":\n1}' }, { event: 'message', data: 'x' }]);
});

test('watch events add, change and remove pools; bookmarks and unknown types change nothing', () => {
  const pools = new Map();
  const key = (pool) => pool.metadata.name;
  const pool = (name, target) => ({ metadata: { name, resourceVersion: '7' }, spec: { targetNodes: target } });
  assert.equal(applyWatchEvent(pools, { type: 'ADDED', object: pool('a', 1) }, key), 'changed');
  assert.equal(applyWatchEvent(pools, { type: 'MODIFIED', object: pool('a', 2), extra: true }, key), 'changed');
  assert.equal(pools.get('a').spec.targetNodes, 2);
  assert.equal(applyWatchEvent(pools, { type: 'BOOKMARK', object: { metadata: { resourceVersion: '9' } } }, key),
    'ignored');
  assert.equal(applyWatchEvent(pools, { type: 'SOMETHING_NEW', object: pool('b', 1) }, key), 'ignored');
  assert.equal(applyWatchEvent(pools, { type: 'DELETED', object: pool('b', 1) }, key), 'ignored');
  assert.equal(applyWatchEvent(pools, { type: 'DELETED', object: pool('a', 2) }, key), 'changed');
  assert.equal(pools.size, 0);
  assert.equal(applyWatchEvent(pools, { type: 'ERROR', object: { kind: 'Status', code: 410 } }, key), 'expired');
});

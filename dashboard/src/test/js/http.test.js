// How the dashboard reads a list the server pages: every page, in order, with the first page's version.
import assert from 'node:assert/strict';
import { test } from 'node:test';

globalThis.sessionStorage = { getItem: () => 'token', setItem: () => {}, removeItem: () => {} };
const { listAll } = await import('../../main/resources/META-INF/resources/dashboard/js/http.js');

function serve(pages) {
  const asked = [];
  globalThis.fetch = async (path) => {
    asked.push(path);
    const token = new URL(path, 'http://dashboard').searchParams.get('continue');
    const page = pages[token ?? 'first'];
    return new Response(JSON.stringify(page), { status: 200, headers: { 'Content-Type': 'application/json' } });
  };
  return asked;
}

test('a paged list is read to its last page and keeps the first page\'s resourceVersion', async () => {
  const asked = serve({
    first: { metadata: { resourceVersion: '7', continue: 'a+b' }, items: [{ n: 1 }, { n: 2 }] },
    'a+b': { metadata: { resourceVersion: '7', continue: 'c' }, items: [{ n: 3 }] },
    c: { metadata: { resourceVersion: '7' }, items: [{ n: 4 }] },
  });

  const list = await listAll('/apis/x/nodepools');

  assert.deepEqual(list.items.map((i) => i.n), [1, 2, 3, 4]);
  assert.equal(list.metadata.resourceVersion, '7');
  assert.equal(list.metadata.continue, undefined);
  assert.deepEqual(asked, ['/apis/x/nodepools', '/apis/x/nodepools?continue=a%2Bb', '/apis/x/nodepools?continue=c']);
});

test('a list of one page is read once', async () => {
  const asked = serve({ first: { metadata: { resourceVersion: '3' }, items: [{ n: 1 }] } });

  const list = await listAll('/apis/x/nodepools?labelSelector=a');

  assert.equal(list.items.length, 1);
  assert.equal(asked.length, 1);
});

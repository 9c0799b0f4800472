// The dashboard's calls to the API, all same-origin with the signed-in token in the Authorization header. Live
// streams are read with fetch, not EventSource, because EventSource cannot send that header and a token in the URL
// would end up in logs and history.
import { LineBuffer, SseParser } from './lines.js';

export const API = '/apis/compute.coreweave.com/v1alpha1';
const TOKEN_KEY = 'nodepool-dashboard-token';
const RETRY_MIN_MS = 1000;
const RETRY_MAX_MS = 15000;

// Server time minus this browser's, from the Date header, so countdowns follow the server's clock.
let clockSkew = 0;
let onSignedOut = () => {};

/** An answer other than 2xx; `message` is the Kubernetes Status message when the API gave one. */
export class ApiError extends Error {
  constructor(status, body) {
    super(body?.message ?? `HTTP ${status}`);
    this.status = status;
    this.reason = body?.reason;
  }
}

export function token() {
  return sessionStorage.getItem(TOKEN_KEY);
}

export function signIn(value) {
  sessionStorage.setItem(TOKEN_KEY, value);
}

export function signOut() {
  sessionStorage.removeItem(TOKEN_KEY);
  onSignedOut();
}

/** Called when the API no longer takes the token (401). */
export function whenSignedOut(callback) {
  onSignedOut = callback;
}

/** Now, on the server's clock (to the second). */
export function serverNow() {
  return Date.now() + clockSkew;
}

async function send(path, init = {}) {
  const response = await fetch(path, {
    ...init,
    headers: { Authorization: `Bearer ${token()}`, Accept: 'application/json', ...init.headers },
  });
  const date = Date.parse(response.headers.get('Date') ?? '');
  if (!Number.isNaN(date)) {
    // The header has whole seconds: only correct for skews beyond that.
    const skew = date - Date.now();
    clockSkew = Math.abs(skew) > 1500 ? skew : 0;
  }
  if (!response.ok) {
    const body = await response.json().catch(() => null);
    if (response.status === 401) {
      signOut();
    }
    throw new ApiError(response.status, body);
  }
  return response;
}

export async function getJson(path, init) {
  return (await send(path, init)).json();
}

/**
 * A whole Kubernetes list, page after page: the server answers a bounded page and a `continue` token for the rest,
 * as kubectl follows it. The list keeps the first page's resourceVersion, from which a watch starts.
 */
export async function listAll(path, init) {
  const first = await getJson(path, init);
  const items = [...(first.items ?? [])];
  let next = first.metadata?.continue;
  while (next) {
    const page = await getJson(`${path}${path.includes('?') ? '&' : '?'}continue=${encodeURIComponent(next)}`, init);
    items.push(...(page.items ?? []));
    next = page.metadata?.continue;
  }
  return { ...first, metadata: { ...first.metadata, continue: undefined }, items };
}

/** Reads a streaming answer line by line until it ends; a failure or `signal` ends it with an error. */
async function readLines(path, onLine, signal) {
  const response = await send(path, { signal, headers: { Accept: '*/*' } });
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  const lines = new LineBuffer();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) {
      lines.end().forEach(onLine);
      return;
    }
    lines.push(value).forEach(onLine);
  }
}

/**
 * Keeps a live stream open until `signal` aborts: `connect()` runs before every (re)connection (e.g. to list what
 * exists), then `path` (a string, or a function asked after `connect()`) is read and each line goes to `onLine`. After a drop it waits 1 s, doubling up to 15 s while failures repeat.
 * `onState` hears 'live', 'reconnecting' or 'stopped'.
 */
export function follow(path, { connect = async () => {}, onLine, onState = () => {} }, signal) {
  (async () => {
    let wait = RETRY_MIN_MS;
    while (!signal.aborted) {
      try {
        await connect();
        onState('live');
        const started = Date.now();
        await readLines(typeof path === 'function' ? path() : path, onLine, signal);
        // A stream that stayed up a while and then ended (a server restart) is retried at once.
        wait = Date.now() - started > RETRY_MAX_MS ? RETRY_MIN_MS : wait;
      } catch (error) {
        if (signal.aborted || error.status === 401 || error.status === 403) {
          onState('stopped', error);
          return;
        }
      }
      onState('reconnecting');
      await new Promise((resolve) => setTimeout(resolve, wait));
      wait = Math.min(wait * 2, RETRY_MAX_MS);
    }
  })();
}

/** A Kubernetes watch: one JSON watch event per line. Lines that are not JSON are skipped. */
export function watch(path, onEvent, options, signal) {
  follow(path, {
    ...options,
    onLine: (line) => {
      if (line.trim() === '') {
        return;
      }
      try {
        onEvent(JSON.parse(line));
      } catch {
        // not a watch event: nothing to show
      }
    },
  }, signal);
}

/** Server-Sent Events whose data is JSON. */
export function serverSentEvents(path, onData, options, signal) {
  let parser = new SseParser();
  follow(path, {
    ...options,
    connect: async () => {
      parser = new SseParser();
      await options.connect?.();
    },
    onLine: (line) => {
      const event = parser.line(line);
      if (event) {
        try {
          onData(JSON.parse(event.data));
        } catch {
          // not JSON: nothing to show
        }
      }
    },
  }, signal);
}

// Reading the API's live streams: a Kubernetes watch (one JSON object per line) and Server-Sent Events. Both arrive
// in chunks that may end in the middle of a line.

/** Turns chunks of text into whole lines; the unfinished end of a chunk waits for the next one. */
export class LineBuffer {
  #rest = '';

  /** The lines this chunk completes. */
  push(chunk) {
    const parts = (this.#rest + chunk).split(/\r\n|\r|\n/);
    this.#rest = parts.pop();
    return parts;
  }

  /** What is left when the stream ends. */
  end() {
    const last = this.#rest;
    this.#rest = '';
    return last === '' ? [] : [last];
  }
}

/**
 * Server-Sent Events as the HTML standard reads them: `data:` lines gather until a blank line ends the event,
 * `event:` names it, lines starting with `:` are comments (keep-alives). Returns the finished event, or null.
 */
export class SseParser {
  #data = [];
  #event = '';

  line(line) {
    if (line === '') {
      if (this.#data.length === 0) {
        this.#event = '';
        return null;
      }
      const finished = { event: this.#event || 'message', data: this.#data.join('\n') };
      this.#data = [];
      this.#event = '';
      return finished;
    }
    if (line.startsWith(':')) {
      return null;
    }
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) {
      value = value.slice(1);
    }
    if (field === 'data') {
      this.#data.push(value);
    } else if (field === 'event') {
      this.#event = value;
    }
    return null;
  }
}

/**
 * Applies one watch event to the pools held, keyed by `keyOf(pool)`. Returns 'changed', 'ignored' (bookmarks,
 * types this dashboard does not know) or 'expired' (the server's ERROR event, e.g. 410 Gone: list again).
 */
export function applyWatchEvent(pools, event, keyOf) {
  const object = event?.object;
  switch (event?.type) {
    case 'ADDED':
    case 'MODIFIED':
      if (!object?.metadata?.name) {
        return 'ignored';
      }
      pools.set(keyOf(object), object);
      return 'changed';
    case 'DELETED':
      return object?.metadata?.name && pools.delete(keyOf(object)) ? 'changed' : 'ignored';
    case 'ERROR':
      return 'expired';
    default:
      return 'ignored';
  }
}

// A few helpers to build the page from plain DOM nodes; text always goes in as text, never as HTML.

/** An element with attributes (on* keys become listeners, `class` and `for` as in HTML) and children. */
export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes ?? {})) {
    if (value === null || value === undefined || value === false) {
      continue;
    }
    if (key.startsWith('on') && typeof value === 'function') {
      element.addEventListener(key.slice(2), value);
    } else if (key === 'style' && typeof value === 'object') {
      Object.assign(element.style, value);
    } else {
      element.setAttribute(key, value === true ? '' : String(value));
    }
  }
  append(element, children);
  return element;
}

function append(element, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) {
      continue;
    }
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Replaces everything inside `element`. */
export function replace(element, ...children) {
  element.replaceChildren();
  append(element, children);
  return element;
}

/**
 * Re-renders `container` with `draw()` without losing the keyboard focus: the element that had it is found again
 * by its `data-focus` key.
 */
export function redraw(container, draw) {
  const focused = container.contains(document.activeElement)
    ? document.activeElement.getAttribute('data-focus') : null;
  draw();
  if (focused) {
    container.querySelector(`[data-focus="${CSS.escape(focused)}"]`)?.focus();
  }
}

/** Runs `draw` at most once per frame however often it is asked for. */
export function batched(draw) {
  let pending = false;
  return () => {
    if (!pending) {
      pending = true;
      requestAnimationFrame(() => {
        pending = false;
        draw();
      });
    }
  };
}

// The dashboard's frame: sign-in with an org's (or an operator's) token, the navigation, and one view at a time
// chosen by the address's #fragment, so every view has a link and the back button works.
import { h, replace } from './dom.js';
import { ApiError, getJson, signIn, signOut, token, whenSignedOut } from './http.js';
import { capacityView } from './views/capacity.js';
import { feedView } from './views/feed.js';
import { poolView } from './views/pool.js';
import { poolsView } from './views/pools.js';

const main = document.getElementById('main');
const nav = document.getElementById('nav');
const who = document.getElementById('who');
let identity = null;
let current = null;

function showSignIn(message) {
  current?.abort();
  identity = null;
  nav.hidden = true;
  who.hidden = true;
  const input = h('input', {
    id: 'token', name: 'token', type: 'password', autocomplete: 'current-password', required: true,
    'aria-describedby': 'token-help',
  });
  const error = h('p', { id: 'sign-in-error', class: 'error', role: 'alert' }, message ?? '');
  replace(main, h('section', { class: 'sign-in', 'aria-labelledby': 'view-title' },
    h('h1', { id: 'view-title' }, 'Sign in'),
    h('form', {
      onsubmit: async (event) => {
        event.preventDefault();
        signIn(input.value.trim());
        await start();
      },
    },
    h('label', { for: 'token' }, 'Access token'), input,
    h('p', { id: 'token-help', class: 'hint' },
      'The bearer token of your org, or an operator\'s token to see the fleet and every org\'s quotas. It stays '
      + 'in this tab only.'),
    h('button', { type: 'submit' }, 'Sign in')),
    error));
  input.focus();
}

async function start() {
  if (!token()) {
    showSignIn();
    return;
  }
  try {
    identity = await getJson('/dashboard/api/whoami');
  } catch (error) {
    // A 401 has already signed out; anything else leaves the token for a retry.
    showSignIn(error instanceof ApiError && error.status === 401 ? 'That token was not accepted.'
      : `The API cannot be reached (${error.message}).`);
    return;
  }
  replace(document.getElementById('who-text'),
    identity.admin ? h('span', {}, 'Operator ', h('strong', {}, identity.org)) : h('span', {}, 'Org ',
      h('strong', {}, identity.org)));
  document.getElementById('nav-capacity').textContent = identity.admin ? 'Fleet & quotas' : 'Quotas';
  // The event stream serves one org: an operator's token has none of its own to follow.
  document.getElementById('nav-events').hidden = identity.admin;
  nav.hidden = false;
  who.hidden = false;
  route();
}

const ROUTES = [
  [/^#\/pools\/(.+)$/, (signal, [, name]) => poolView(main, { identity }, signal, decodeURIComponent(name))],
  [/^#\/events$/, (signal) => feedView(main, { identity }, signal)],
  [/^#\/capacity$/, (signal) => capacityView(main, { identity }, signal)],
  [/^/, (signal) => poolsView(main, { identity }, signal)],
];

function route() {
  if (!identity) {
    return;
  }
  current?.abort();
  current = new AbortController();
  const hash = location.hash || '#/pools';
  const [pattern, mount] = ROUTES.find(([p]) => p.test(hash));
  mount(current.signal, pattern.exec(hash));
  for (const link of nav.querySelectorAll('a')) {
    const here = hash === link.getAttribute('href') || hash.startsWith(`${link.getAttribute('href')}/`);
    if (here) {
      link.setAttribute('aria-current', 'page');
    } else {
      link.removeAttribute('aria-current');
    }
  }
  // Screen readers and keyboards start at the new view's heading.
  document.getElementById('view-title')?.focus({ preventScroll: true });
}

whenSignedOut(() => showSignIn('Signed out.'));
document.getElementById('sign-out').addEventListener('click', () => signOut());
// The skip link moves focus without touching the #fragment, which names the view.
document.querySelector('.skip').addEventListener('click', (event) => {
  event.preventDefault();
  main.focus();
});
window.addEventListener('hashchange', route);
start();

// Neptune examples UI: plain JavaScript, no build step. Talks JSON to the gateway's /api and /admin routes.
'use strict';

const $ = (id) => document.getElementById(id);
const seg = encodeURIComponent;
const PALETTE = ['#2f6fde', '#e0792b', '#2a9d5c', '#c2417a', '#7a52c7', '#b8a11f', '#1b9aaa', '#8c5a3c'];

// The gateway's token: the demo prints the dashboard's URL with it in the fragment (#token=...), which
// a browser never sends to a server nor logs. The page keeps it for this tab, takes it out of the
// address bar, and sends it as a bearer token (admin actions need it; never in a query string).
const TOKEN_KEY = 'neptune-token';
(function takeToken() {
  const match = /^#token=([^&]+)$/.exec(location.hash);
  if (match) {
    sessionStorage.setItem(TOKEN_KEY, decodeURIComponent(match[1]));
    history.replaceState(null, '', location.pathname + location.search);
  }
})();

async function api(method, path, body) {
  return (await exchange(method, path, body)).json;
}

/** Sends a request; answers the JSON body and the response headers, or throws the gateway's error. */
async function exchange(method, path, body, headers) {
  const init = { method, headers: { 'Accept': 'application/json', ...headers }, cache: 'no-store' };
  const token = sessionStorage.getItem(TOKEN_KEY);
  if (token) init.headers['Authorization'] = 'Bearer ' + token;
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  const response = await fetch(path, init);
  const text = await response.text();
  let json = null;
  try { json = text ? JSON.parse(text) : null; } catch (e) { json = null; }
  if (!response.ok) {
    const error = new Error((json && json.error) || (response.status + ' ' + response.statusText));
    error.status = response.status;
    throw error;
  }
  return { json, headers: response.headers };
}

// A write the page may send again: every attempt carries one Idempotency-Key, so the gateway runs it
// once even when an attempt's outcome was unknown (504, such as a primary stepping down while the write
// was in flight) or its connection dropped; 503 means nothing ran (no primary yet during a fail-over).
// Any other answer is final. Up to five attempts, a quarter, a half, one and two seconds apart.
const WRITE_ATTEMPTS = 5;

async function sendWrite(path, body, onRetry) {
  const headers = { 'Idempotency-Key': newIdempotencyKey() };
  for (let attempt = 1; ; attempt++) {
    try {
      return (await exchange('POST', path, body, headers)).json;
    } catch (e) {
      const unanswered = e.status === undefined || e.status === 503 || e.status === 504;
      if (!unanswered || attempt === WRITE_ATTEMPTS) throw e;
      onRetry(e, attempt);
      await new Promise((resolve) => setTimeout(resolve, 250 * 2 ** (attempt - 1)));
    }
  }
}

function newIdempotencyKey() {
  if (crypto.randomUUID) return crypto.randomUUID(); // only in secure contexts (https, loopback)
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join('');
}

// An onRetry for sendWrite: the status line with this id says why the write is being sent again.
function retryStatus(id) {
  return (e, attempt) => setStatus(id, 'Sending again (' + attempt + ' of ' + (WRITE_ATTEMPTS - 1)
    + ' retries): ' + e.message, false);
}

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (key === 'class') node.className = value;
    else if (key.startsWith('on')) node.addEventListener(key.substring(2), value);
    else node.setAttribute(key, value);
  }
  for (const child of children) {
    if (child !== null && child !== undefined) node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

function setStatus(id, text, ok) {
  const node = $(id);
  node.textContent = text;
  node.className = 'status ' + (ok ? 'ok' : 'error');
}

// A list that could not be loaded for want of a primary (a fail-over under way: the gateway answered
// 5xx or not at all), or that some partitions did not answer, is loaded again half a second later,
// then after one, two, four and at most eight seconds, until it comes back whole or the page loads
// another in its place. Writes are sent again only under their idempotency key (sendWrite, below).
const reloads = new Map();

function reloadLater(key, load) {
  const attempt = (reloads.get(key)?.attempt ?? 0) + 1;
  clearTimeout(reloads.get(key)?.timer);
  reloads.set(key, { attempt, timer: setTimeout(load, Math.min(8000, 250 * 2 ** attempt)) });
}

function loadedWhole(key) {
  clearTimeout(reloads.get(key)?.timer);
  reloads.delete(key);
}

/** Whether a failed read may succeed if sent again: the cluster, not the request, was at fault. */
const transient = (error) => !error.status || error.status >= 500;

const money = (cents) => '$' + (cents / 100).toFixed(2);
const toCents = (text) => Math.round(parseFloat(text) * 100);
const when = (millis) => new Date(millis).toLocaleString();

// ---- views --------------------------------------------------------------------------------------

function showView() {
  const views = { '#cluster': 'cluster', '#search': 'search', '#blast': 'blast', '#front': 'front' };
  const view = views[location.hash] || 'apps';
  for (const section of document.querySelectorAll('section.view')) section.hidden = section.dataset.view !== view;
  for (const link of document.querySelectorAll('nav a')) link.classList.toggle('active', link.dataset.view === view);
  if (view === 'cluster') refreshCluster();
  if (view === 'blast') loadBlastInfo();
  if (view === 'front') loadFront();
}

// ---- discussion ---------------------------------------------------------------------------------

let currentTopic = '';
let currentMessage = null;

async function loadTopic(topic, select) {
  currentTopic = topic;
  try {
    const data = await api('GET', '/api/discussion/' + seg(topic) + '/headers');
    const list = $('headers');
    list.replaceChildren();
    for (const h of data.headers) {
      const item = el('li', { 'data-id': h.id, 'data-depth': h.depth, style: '--depth:' + h.depth,
        onclick: () => viewMessage(h.id) },
        el('span', { class: 'subject' }, h.subject), ' ', el('span', { class: 'meta' }, h.author + ', ' + when(h.postedAt)));
      if (select === h.id) item.classList.add('selected');
      list.append(item);
    }
    $('topic-meta').textContent = data.headers.length + ' messages in "' + data.topic + '" at version ' + data.version;
    loadedWhole('topic');
  } catch (e) {
    $('topic-meta').textContent = 'Cannot load topic: ' + e.message;
    if (transient(e)) reloadLater('topic', () => currentTopic === topic && loadTopic(topic, select));
  }
}

async function viewMessage(id) {
  try {
    const m = await api('GET', '/api/discussion/' + seg(currentTopic) + '/messages/' + id);
    currentMessage = m;
    $('message').hidden = false;
    $('message').dataset.id = m.id;
    $('message-subject').textContent = m.subject;
    $('message-meta').textContent = 'by ' + m.author + ', ' + when(m.postedAt) + ' \u00b7 #' + m.id
      + (m.parentId ? ' (reply to #' + m.parentId + ')' : '') + ' \u00b7 version ' + m.version;
    $('message-body').textContent = m.body;
    for (const li of $('headers').children) li.classList.toggle('selected', Number(li.dataset.id) === m.id);
  } catch (e) {
    $('message').hidden = false;
    $('message-subject').textContent = 'Cannot load message #' + id;
    $('message-body').textContent = e.message;
  }
}

function replyTo(message) {
  $('post-parent').value = message ? String(message.id) : '';
  $('post-title').textContent = message ? 'Reply to "' + message.subject + '"' : 'New thread';
  $('post-cancel-reply').hidden = !message;
  if (message && !$('post-subject').value) $('post-subject').value = 'Re: ' + message.subject;
}

async function postMessage(event) {
  event.preventDefault();
  const body = { author: $('post-author').value, subject: $('post-subject').value, body: $('post-body').value };
  if ($('post-parent').value) body.parentId = Number($('post-parent').value);
  try {
    const added = await sendWrite('/api/discussion/' + seg(currentTopic) + '/messages', body,
      retryStatus('post-status'));
    setStatus('post-status', 'Posted message #' + added.id + ' (version ' + added.version + ')', true);
    $('post-subject').value = '';
    $('post-body').value = '';
    replyTo(null);
    await loadTopic(currentTopic, added.id);
    await viewMessage(added.id);
  } catch (e) {
    setStatus('post-status', 'Not posted: ' + e.message, false);
  }
}

// ---- auction ------------------------------------------------------------------------------------

let currentCategory = '';
let currentItem = null;

async function loadCategories() {
  try {
    const data = await api('GET', '/api/auction/categories');
    const list = $('categories');
    list.replaceChildren();
    for (const c of data.categories) {
      list.append(el('li', { 'data-category': c.name, onclick: () => loadCategory(c.name) },
        c.name, ' ', el('span', { class: 'count' }, c.itemCount)));
    }
    if (data.failedPartitions.length) {
      $('categories-meta').textContent = 'Partitions that did not answer (asking again): '
        + data.failedPartitions.join(', ');
      reloadLater('categories', loadCategories);
    } else {
      $('categories-meta').textContent = '';
      loadedWhole('categories');
    }
  } catch (e) {
    $('categories-meta').textContent = 'Cannot list categories: ' + e.message;
    if (transient(e)) reloadLater('categories', loadCategories);
  }
}

async function loadCategory(category) {
  currentCategory = category;
  $('category').value = category;
  try {
    const data = await api('GET', '/api/auction/categories/' + seg(category) + '/items');
    const body = $('items').tBodies[0];
    body.replaceChildren();
    for (const item of data.items) {
      body.append(el('tr', { 'data-item-id': item.id, onclick: () => viewItem(item.id) },
        el('td', {}, item.title), el('td', {}, item.seller),
        el('td', { class: 'num' }, item.bidCount ? money(item.highestBid) : '\u2014'),
        el('td', { class: 'num' }, item.bidCount)));
    }
    if (!data.items.length) body.append(el('tr', {}, el('td', { colspan: 4, class: 'meta' }, 'No items yet.')));
    for (const li of $('categories').children) li.classList.toggle('selected', li.dataset.category === category);
    loadedWhole('category');
  } catch (e) {
    setStatus('new-item-status', 'Cannot load category: ' + e.message, false);
    if (transient(e)) reloadLater('category', () => currentCategory === category && loadCategory(category));
  }
}

async function viewItem(id) {
  try {
    const item = await api('GET', '/api/auction/items/' + seg(id));
    currentItem = item;
    const card = $('item');
    card.hidden = false;
    card.dataset.itemId = item.id;
    $('item-title').textContent = item.title;
    $('item-meta').textContent = 'Item ' + item.id + ' in ' + item.category + ', sold by ' + item.seller
      + ' \u00b7 version ' + item.version;
    $('item-highest-bid').textContent = item.bidCount ? money(item.highestBid) : 'none yet';
    $('item-highest-bidder').textContent = item.bidCount ? 'by ' + item.highestBidder : '';
    $('item-bid-count').textContent = item.bidCount;
    for (const row of $('items').tBodies[0].rows) row.classList.toggle('selected', row.dataset.itemId === item.id);
  } catch (e) {
    setStatus('bid-status', 'Cannot load item ' + id + ': ' + e.message, false);
  }
}

async function placeBid(event) {
  event.preventDefault();
  if (!currentItem) return;
  const amount = toCents($('bid-amount').value);
  try {
    const result = await sendWrite('/api/auction/items/' + seg(currentItem.id) + '/bids',
      { bidder: $('bid-bidder').value, amount }, retryStatus('bid-status'));
    setStatus('bid-status', 'Your bid is the highest: ' + money(result.highestBid) + ' (version ' + result.version + ')', true);
  } catch (e) {
    setStatus('bid-status', 'Bid refused: ' + e.message, false);
  }
  await viewItem(currentItem.id);
  await loadCategory(currentCategory);
}

async function offerItem(event) {
  event.preventDefault();
  const category = $('category').value;
  try {
    const added = await sendWrite('/api/auction/categories/' + seg(category) + '/items', {
      title: $('new-item-title').value, seller: $('new-item-seller').value,
      startingPrice: toCents($('new-item-price').value) }, retryStatus('new-item-status'));
    setStatus('new-item-status', 'Offered item ' + added.id + ' (version ' + added.version + ')', true);
    $('new-item-title').value = '';
    await loadCategory(category);
    await viewItem(added.id);
    await loadCategories();
  } catch (e) {
    setStatus('new-item-status', 'Not offered: ' + e.message, false);
  }
}

// ---- search -------------------------------------------------------------------------------------

// The snippet is HTML from the server: the document's text escaped, the matched words in <b>. It is
// rebuilt from text nodes and <b> elements only, so nothing else in it can become markup.
function snippetNodes(html) {
  const nodes = [];
  const parts = html.split(/(<b>|<\/b>)/);
  let bold = false;
  const decode = (text) => new DOMParser().parseFromString(text, 'text/html').documentElement.textContent;
  for (const part of parts) {
    if (part === '<b>') bold = true;
    else if (part === '</b>') bold = false;
    else if (part) nodes.push(bold ? el('b', {}, decode(part)) : document.createTextNode(decode(part)));
  }
  return nodes;
}

async function search(event) {
  if (event) event.preventDefault();
  const q = $('search-q').value.trim();
  if (!q) return;
  $('search-meta').textContent = 'Searching\u2026';
  try {
    const started = performance.now();
    const data = await api('GET', '/api/search?q=' + seg(q) + '&k=' + seg($('search-k').value));
    const list = $('search-results');
    list.replaceChildren();
    for (const hit of data.hits) {
      list.append(el('li', { 'data-id': hit.id },
        el('div', { class: 'title' }, hit.title, ' ', el('span', { class: 'meta' }, hit.id + ' \u00b7 score '
          + hit.score.toFixed(2))),
        el('div', { class: 'snippet' }, ...snippetNodes(hit.snippet))));
    }
    $('search-meta').textContent = data.hits.length + ' results from ' + (data.partitions - data.failedPartitions.length)
      + ' of ' + data.partitions + ' partitions in ' + Math.round(performance.now() - started) + ' ms \u00b7 '
      + data.documents.toLocaleString() + ' documents indexed so far';
    $('search-failed').hidden = data.failedPartitions.length === 0;
    $('search-failed').textContent = 'Partial results: partitions ' + data.failedPartitions.join(', ')
      + ' did not answer.';
  } catch (e) {
    $('search-results').replaceChildren();
    $('search-failed').hidden = true;
    $('search-meta').textContent = 'Search failed: ' + e.message;
  }
}

// ---- front page (multi-tier) --------------------------------------------------------------------

// The front service answers the page from two back ends; the gateway's traceparent header
// (version-traceid-spanid-flags) names the trace that holds the page's call and both inner calls.
// The page starts that trace itself (a new sampled traceparent), so the answer names it even when
// the gateway records no spans of its own.
const hex = (bytes) => Array.from(crypto.getRandomValues(new Uint8Array(bytes)),
  (b) => b.toString(16).padStart(2, '0')).join('');
const newTraceparent = () => '00-' + hex(16) + '-' + hex(8) + '-01';
let frontLoads = 0;

async function loadFront(event) {
  if (event) event.preventDefault();
  const topic = $('front-topic').value.trim();
  const category = $('front-category').value.trim();
  if (!topic || !category) return;
  const load = ++frontLoads; // only the latest load draws the page
  $('front-meta').textContent = 'Loading\u2026';
  try {
    const started = performance.now();
    const { json: page, headers } = await exchange('GET', '/api/front?topic=' + seg(topic) + '&category=' + seg(category),
      undefined, { 'traceparent': newTraceparent() });
    if (load !== frontLoads) return;
    const posts = $('front-posts');
    posts.replaceChildren();
    for (const h of page.posts) {
      posts.append(el('li', { 'data-id': h.id }, el('span', { class: 'subject' }, h.subject), ' ',
        el('span', { class: 'meta' }, h.author + ', ' + when(h.postedAt))));
    }
    const items = $('front-items').tBodies[0];
    items.replaceChildren();
    for (const item of page.items) {
      items.append(el('tr', { 'data-id': item.id }, el('td', {}, item.title), el('td', {}, item.seller),
        el('td', { class: 'num' }, money(item.highestBid || item.startingPrice)), el('td', { class: 'num' }, item.bidCount)));
    }
    $('front-parts').replaceChildren(...page.parts.map((part) => el('li', { 'data-part': part.name,
      'data-ok': part.ok, class: part.ok ? 'part-ok' : 'part-missing', title: part.error },
      part.name + (part.ok ? ' \u2713 ' + part.millis + ' ms' : ' missing: ' + part.error))));
    $('front-meta').textContent = page.posts.length + ' posts of "' + page.topic + '" and ' + page.items.length
      + ' items of "' + page.category + '" in ' + Math.round(performance.now() - started) + ' ms'
      + (page.parts.every((part) => part.ok) ? '' : ' (partial page)');
    const traceparent = headers.get('traceparent');
    const traceId = traceparent ? traceparent.split('-')[1] : '';
    $('front-trace').dataset.traceId = traceId;
    $('front-trace').replaceChildren(...(traceId
      ? ['Trace id ', el('code', { id: 'front-trace-id' }, traceId), ' \u00b7 its spans: ',
        el('code', {}, 'grep ' + traceId + ' neptune-data/traces.jsonl')]
      : ['No trace id: the gateway answered no traceparent.']));
  } catch (e) {
    if (load !== frontLoads) return;
    $('front-posts').replaceChildren();
    $('front-items').tBodies[0].replaceChildren();
    $('front-parts').replaceChildren();
    $('front-trace').replaceChildren();
    $('front-meta').textContent = 'Cannot load the page: ' + e.message;
  }
}

// ---- cluster dashboard --------------------------------------------------------------------------

const colors = new Map();
const rateHistory = [];
let demoMode = false;

function colorOf(node) {
  if (!colors.has(node)) colors.set(node, PALETTE[colors.size % PALETTE.length]);
  return colors.get(node);
}

async function refreshCluster() {
  if ($('view-cluster').hidden) return;
  try {
    const [cluster, metrics] = await Promise.all([api('GET', '/admin/cluster'), api('GET', '/admin/metrics')]);
    demoMode = metrics.demo;
    renderRates(metrics);
    renderNodes(cluster, metrics);
    renderPartitions(cluster);
    renderClasses(cluster);
    $('cluster-updated').textContent = 'updated ' + new Date().toLocaleTimeString();
  } catch (e) {
    $('cluster-updated').textContent = 'cannot reach the gateway: ' + e.message;
  }
}

function renderRates(metrics) {
  $('gateway-rate').textContent = metrics.requestsPerSecond;
  $('service-rates').textContent = Object.entries(metrics.services).map(([s, r]) => s + ' ' + r + '/s').join(' \u00b7 ');
  rateHistory.push(metrics.requestsPerSecond);
  while (rateHistory.length > 120) rateHistory.shift();
  const max = Math.max(1, ...rateHistory);
  const points = rateHistory.map((v, i) => (i + 120 - rateHistory.length) + ',' + (29 - 28 * v / max).toFixed(1)).join(' ');
  $('rate-history').querySelector('polyline').setAttribute('points', points);
}

function renderNodes(cluster, metrics) {
  const load = new Map(metrics.nodes.map((n) => [n.id, n.load]));
  const primaries = new Map();
  for (const p of cluster.partitions) {
    for (const r of p.replicas) if (r.role === 'primary') primaries.set(r.node, (primaries.get(r.node) || 0) + 1);
  }
  const body = $('nodes').tBodies[0];
  body.replaceChildren();
  for (const n of cluster.nodes) {
    const action = !demoMode || n.id === metrics.gatewayNode ? ''
      : el('button', { type: 'button', 'data-action': n.state === 'DOWN' ? 'start' : 'kill', 'data-node': n.id,
        onclick: (e) => nodeAction(e.target, n.id, n.state === 'DOWN' ? 'start' : 'kill') },
        n.state === 'DOWN' ? 'Start' : 'Kill');
    body.append(el('tr', { 'data-node': n.id, 'data-state': n.state, class: 'state-' + n.state.toLowerCase() },
      el('td', {}, el('span', { class: 'swatch', style: 'background:' + colorOf(n.id) })),
      el('td', {}, n.id + (n.id === metrics.gatewayNode ? ' (gateway)' : '')),
      el('td', {}, el('span', { class: 'state' }, n.state)),
      el('td', { class: 'num' }, n.pid > 0 ? n.pid : '\u2014'),
      el('td', {}, n.adminUrl && n.state !== 'DOWN'
        ? el('a', { href: n.adminUrl + '/metrics', target: '_blank', title: 'this node\'s /metrics' }, n.address)
        : n.address || '\u2014'),
      el('td', { class: 'num rate' }, n.state === 'DOWN' ? '\u2014' : n.requestsPerSecond),
      el('td', { class: 'num' }, load.has(n.id) ? load.get(n.id) : '\u2014'),
      el('td', { class: 'num' }, primaries.get(n.id) || 0),
      el('td', {}, action)));
  }
}

function renderClasses(cluster) {
  const classes = cluster.classes || [];
  $('classes-section').hidden = classes.length === 0;
  const percent = (x) => (100 * x).toFixed(1) + '%';
  const body = $('classes').tBodies[0];
  body.replaceChildren();
  for (const c of classes) {
    body.append(el('tr', { 'data-service': c.service, 'data-class': c.class },
      el('td', {}, c.service), el('td', {}, c.class),
      el('td', { class: 'num' }, c.arrivals), el('td', { class: 'num' }, c.dropped),
      el('td', { class: 'num' }, c.offeredYield.toFixed(1)), el('td', { class: 'num' }, c.realizedYield.toFixed(1)),
      el('td', { class: 'num' }, c.lossPercent.toFixed(1)),
      el('td', { class: 'num' }, percent(c.share)), el('td', { class: 'num' }, percent(c.guaranteedShare))));
  }
}

function renderPartitions(cluster) {
  const byService = new Map();
  for (const p of cluster.partitions) {
    if (!byService.has(p.service)) byService.set(p.service, []);
    byService.get(p.service).push(p);
  }
  const container = $('partitions');
  container.replaceChildren();
  for (const [service, partitions] of byService) {
    const grid = el('div', { class: 'grid' });
    for (const p of partitions) {
      const primary = p.replicas.find((r) => r.role === 'primary');
      const recovering = p.replicas.some((r) => r.role === 'recovering');
      const version = Math.max(...p.replicas.map((r) => r.version));
      const cell = el('div', { class: 'cell' + (primary ? '' : ' no-primary') + (recovering ? ' recovering' : ''),
        'data-service': service, 'data-partition': p.partition, 'data-primary': primary ? primary.node : '',
        title: service + '#' + p.partition + '\n' + p.replicas.map((r) => r.node + ' ' + r.role + ' v' + r.version
          + ' prio ' + r.priority).join('\n'),
        onclick: () => showReplicas(service, p.partition) }, version);
      if (primary) cell.style.background = colorOf(primary.node);
      grid.append(cell);
    }
    container.append(el('div', { class: 'service', 'data-service': service },
      el('h3', {}, service + ' ', el('span', { class: 'meta' }, partitions.length + ' partitions')), grid));
  }
}

async function showReplicas(service, partition) {
  const box = $('partition-detail');
  box.hidden = false;
  box.replaceChildren(el('h3', {}, service + '#' + partition), el('p', { class: 'meta' }, 'asking every replica\u2026'));
  try {
    const data = await api('GET', '/admin/replicas/' + seg(service) + '/' + partition);
    const table = el('table', {}, el('thead', {}, el('tr', {}, el('th', {}, 'Node'), el('th', {}, 'Role'),
      el('th', { class: 'num' }, 'Version'), el('th', {}, 'Digest'))));
    const body = el('tbody');
    for (const r of data.replicas) {
      body.append(el('tr', {}, el('td', {}, r.node), el('td', {}, r.role), el('td', { class: 'num' }, r.version),
        el('td', { class: 'digest' }, r.digest.substring(0, 16))));
    }
    table.append(body);
    box.replaceChildren(el('h3', {}, service + '#' + partition), table);
  } catch (e) {
    box.replaceChildren(el('h3', {}, service + '#' + partition), el('p', { class: 'status error' }, e.message));
  }
}

async function nodeAction(button, node, action) {
  button.disabled = true;
  button.textContent = action === 'kill' ? 'Killing\u2026' : 'Starting\u2026';
  try {
    await api('POST', '/admin/nodes/' + seg(node) + '/' + action);
  } catch (e) {
    const hint = e.status === 401 ? '\n\nOpen the dashboard with the URL the demo printed: it carries the admin token.' : '';
    alert(action + ' ' + node + ': ' + e.message + hint);
  }
  refreshCluster();
}

// ---- BLAST --------------------------------------------------------------------------------------

async function loadBlastInfo() {
  try {
    const info = await api('GET', '/api/blast');
    $('blast-example').hidden = !info.example;
    $('blast-example').onclick = () => { $('blast-sequence').value = info.example; };
    if (!info.available) {
      $('blast-meta').textContent = 'No node hosts the blast service: install NCBI BLAST+ (Debian: ncbi-blast+) and restart the demo.';
    } else if ($('blast-meta').textContent.startsWith('No node')) {
      $('blast-meta').textContent = '';
    }
  } catch (e) {
    $('blast-meta').textContent = 'Cannot reach the gateway: ' + e.message;
  }
}

async function blast(event) {
  if (event) event.preventDefault();
  const sequence = $('blast-sequence').value;
  if (!sequence.trim()) return;
  $('blast-meta').textContent = 'Running blastn on every partition\u2026';
  try {
    const started = performance.now();
    const data = await api('POST', '/api/blast', { sequence });
    const body = $('blast-results').querySelector('tbody');
    body.replaceChildren();
    data.hits.forEach((hit, i) => body.append(el('tr', { 'data-id': hit.id },
      el('td', { class: 'num' }, i + 1), el('td', {}, hit.id), el('td', { class: 'num' }, hit.score.toFixed(1)),
      el('td', { class: 'num' }, hit.evalue.toExponential(2)))));
    $('blast-results').hidden = data.hits.length === 0;
    $('blast-meta').textContent = data.hits.length + ' hits from ' + (data.partitions - data.failedPartitions.length)
      + ' of ' + data.partitions + ' partitions in ' + Math.round(performance.now() - started) + ' ms';
    $('blast-failed').hidden = data.failedPartitions.length === 0;
    $('blast-failed').textContent = 'Partial results: partitions ' + data.failedPartitions.join(', ')
      + ' did not answer.';
  } catch (e) {
    $('blast-results').hidden = true;
    $('blast-failed').hidden = true;
    $('blast-meta').textContent = 'BLAST failed: ' + e.message;
  }
}

// ---- wiring -------------------------------------------------------------------------------------

function init() {
  $('topic-form').addEventListener('submit', (e) => { e.preventDefault(); loadTopic($('topic').value); });
  $('post-form').addEventListener('submit', postMessage);
  $('reply-button').addEventListener('click', () => replyTo(currentMessage));
  $('post-cancel-reply').addEventListener('click', () => replyTo(null));
  $('category-form').addEventListener('submit', (e) => { e.preventDefault(); loadCategory($('category').value); });
  $('bid-form').addEventListener('submit', placeBid);
  $('item-form').addEventListener('submit', offerItem);
  $('search-form').addEventListener('submit', search);
  $('blast-form').addEventListener('submit', blast);
  $('front-form').addEventListener('submit', loadFront);
  window.addEventListener('hashchange', showView);
  setInterval(refreshCluster, 1000);
  showView();
  loadTopic($('topic').value);
  loadCategories();
  loadCategory($('category').value);
}

init();

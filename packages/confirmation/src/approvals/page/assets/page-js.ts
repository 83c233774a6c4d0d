/**
 * The approvals page's script, served as `{base}/assets/page.js` (the page allows no inline
 * script). Plain browser JavaScript; request data only ever goes into `textContent`.
 */
export const PAGE_JS = `// The approvals page in the browser: live updates, relative times, decisions.
// Builds every element with textContent: request data never becomes markup.
(() => {
  'use strict';

  const body = document.body;
  const base = body.dataset.base || '';

  // ---- Forms (sign in, sign out) ----
  // Posted with fetch: a form this page posts itself would say Origin: null (the page sends no
  // referrer), and a server's front door may refuse that before the page sees it.

  function formError(form, text) {
    let notice = form.parentElement ? form.parentElement.querySelector('.notice') : null;
    if (!notice) {
      if (!form.classList.contains('sign-in-form')) {
        window.alert(text);
        return;
      }
      notice = el('p', 'notice error');
      notice.setAttribute('role', 'alert');
      form.before(notice);
    }
    notice.className = 'notice error';
    notice.textContent = text;
  }

  async function submitForm(form) {
    const button = form.querySelector('button[type="submit"]');
    if (button) {
      button.disabled = true;
      button.classList.add('busy');
    }
    let response;
    try {
      response = await fetch(form.action, {
        method: 'POST',
        body: new URLSearchParams(new FormData(form)),
        credentials: 'same-origin',
        redirect: 'manual',
      });
    } catch (failure) {
      response = undefined;
    }
    if (response && (response.type === 'opaqueredirect' || response.ok)) {
      window.location.assign(form.dataset.after || base);
      return;
    }
    let text = 'Could not reach the server. Check the connection and try again.';
    if (response) {
      // The answer is the form again with the reason; read its text, never its markup.
      const answer = new DOMParser().parseFromString(await response.text(), 'text/html');
      const reason = answer.querySelector('.notice.error') || answer.querySelector('.lead');
      text = reason && reason.textContent ? reason.textContent : 'Refused (' + response.status + '). Try again.';
    }
    formError(form, text);
    if (button) {
      button.disabled = false;
      button.classList.remove('busy');
    }
  }

  for (const form of document.querySelectorAll('form[data-after]')) {
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      void submitForm(form);
    });
  }

  const pendingList = document.getElementById('pending');
  const decidedList = document.getElementById('decided');
  if (!pendingList || !decidedList) return;
  const csrfMeta = document.querySelector('meta[name="csrf-token"]');
  const csrf = csrfMeta ? csrfMeta.getAttribute('content') || '' : '';
  const pendingEmpty = document.getElementById('pending-empty');
  const decidedEmpty = document.getElementById('decided-empty');
  const pendingCount = document.getElementById('pending-count');
  const liveStatus = document.getElementById('live-status');
  const announcer = document.getElementById('announcer');
  const DECIDED_SHOWN = 50;
  const POLL_MS = 5000;

  const RISK_LABELS = { safe: 'Safe', reversible: 'Reversible', destructive: 'Destructive' };
  const STATE_LABELS = { pending: 'Pending', approved: 'Approved', denied: 'Denied', expired: 'Expired', cancelled: 'Withdrawn' };
  const EVENT_LABELS = {
    requested: 'Requested',
    attached: 'Asked again',
    approved: 'Approved',
    denied: 'Denied',
    expired: 'Expired',
    cancelled: 'Withdrawn by the caller',
    claimed: 'Started running',
    executed: 'Ran',
    execution_error: 'Ran and failed',
    outcome_unknown: 'Ran; outcome unknown',
    not_executed: 'Caller told it did not run',
  };
  const OUTCOME_LABELS = {
    executed: 'The call ran',
    execution_error: 'The call ran and failed',
    outcome_unknown: 'The call ran; how it ended is unknown',
    not_executed: 'The call did not run',
  };

  // ---- Times (the same rules as time-text.ts) ----

  function duration(ms) {
    const seconds = Math.max(0, Math.floor(ms / 1000));
    if (seconds < 60) return seconds + ' s';
    const minutes = Math.floor(seconds / 60);
    if (minutes < 60) return minutes + ' min';
    const hours = Math.floor(minutes / 60);
    if (hours < 24) return minutes % 60 === 0 ? hours + ' h' : hours + ' h ' + (minutes % 60) + ' min';
    const days = Math.floor(hours / 24);
    return hours % 24 === 0 ? days + ' d' : days + ' d ' + (hours % 24) + ' h';
  }
  function waitingText(created, now) {
    return now - created < 60000 ? 'waiting under a minute' : 'waiting ' + duration(now - created);
  }
  function expiresText(expires, now) {
    return expires <= now ? 'expired' : 'expires in ' + duration(expires - now);
  }
  const dayTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
  const trailTime = new Intl.DateTimeFormat(undefined, {
    month: 'short',
    day: 'numeric',
    hour: 'numeric',
    minute: '2-digit',
    second: '2-digit',
  });
  const fullTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'full', timeStyle: 'long' });

  function localize(scope) {
    for (const time of scope.querySelectorAll('time[datetime]')) {
      const ms = Date.parse(time.getAttribute('datetime') || '');
      if (Number.isNaN(ms)) continue;
      time.title = fullTime.format(ms);
      if (time.dataset.format === 'abs') time.textContent = dayTime.format(ms);
      else if (time.dataset.format === 'trail') time.textContent = trailTime.format(ms);
    }
  }

  let lastExpiryRefresh = 0;
  function tick() {
    const now = Date.now();
    let expiredSeen = false;
    for (const time of pendingList.querySelectorAll('time[data-rel]')) {
      const ms = Date.parse(time.getAttribute('datetime') || '');
      if (Number.isNaN(ms)) continue;
      if (time.dataset.rel === 'since') {
        time.textContent = waitingText(ms, now);
        continue;
      }
      time.textContent = expiresText(ms, now);
      time.classList.toggle('soon', ms - now < 120000);
      if (ms <= now) {
        expiredSeen = true;
        const card = time.closest('.card');
        if (card && !card.classList.contains('is-expired')) {
          card.classList.add('is-expired');
          setBusy(card, true);
        }
      }
    }
    // The desk marks a request expired when it is next read: read it, so it moves down.
    if (expiredSeen && now - lastExpiryRefresh > POLL_MS) {
      lastExpiryRefresh = now;
      void refresh();
    }
  }

  // ---- Building cards (the same markup as cards.ts) ----

  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }
  function timeEl(iso, text, data) {
    const node = el('time', '', text);
    node.setAttribute('datetime', iso);
    for (const key of Object.keys(data)) node.dataset[key] = data[key];
    return node;
  }
  function riskOf(record) {
    return Object.prototype.hasOwnProperty.call(RISK_LABELS, record.risk_level) ? record.risk_level : 'unknown';
  }
  function label(labels, key) {
    return Object.prototype.hasOwnProperty.call(labels, key) ? labels[key] : String(key);
  }
  function riskBadge(record) {
    return el('span', 'badge risk-' + riskOf(record), label(RISK_LABELS, record.risk_level));
  }
  function argumentsBlock(record) {
    const args = record.arguments || {};
    if (Object.keys(args).length === 0) return el('p', 'no-args', 'No arguments');
    const pre = el('pre', 'args', JSON.stringify(args, null, 2));
    pre.tabIndex = 0;
    pre.setAttribute('aria-label', 'Arguments');
    return pre;
  }
  function fact(name, value, wide) {
    const item = el('div', wide ? 'fact wide' : 'fact');
    const dd = el('dd');
    if (typeof value === 'string') dd.textContent = value;
    else dd.append(value);
    item.append(el('dt', '', name), dd);
    return item;
  }
  function setIdentity(card, record) {
    card.dataset.id = record.id;
    card.dataset.state = record.state;
    card.dataset.version = record.version || '';
  }

  function pendingCard(record) {
    const now = Date.now();
    const card = el('article', 'card pending risk-' + riskOf(record));
    setIdentity(card, record);
    const toolId = 'tool-' + record.id;
    card.setAttribute('aria-labelledby', toolId);

    const head = el('div', 'card-head');
    const tool = el('h3', 'tool', record.tool);
    tool.id = toolId;
    const times = el('p', 'times');
    const created = Date.parse(record.created_at);
    const expires = Date.parse(record.expires_at);
    const sep = el('span', 'sep', '\\u00b7');
    sep.setAttribute('aria-hidden', 'true');
    const until = timeEl(record.expires_at, expiresText(expires, now), { rel: 'until' });
    until.className = 'until';
    times.append(timeEl(record.created_at, waitingText(created, now), { rel: 'since' }), sep, until);
    const tags = el('div', 'tags');
    tags.append(riskBadge(record));
    head.append(tags, times);

    const facts = el('dl', 'facts');
    facts.append(fact('Requested by', record.principal), fact('Request', el('span', 'mono', record.id)));

    const args = el('div', 'args-block');
    args.append(el('div', 'label', 'Arguments'), argumentsBlock(record));

    const decide = el('div', 'decide');
    const reasonLabel = el('label', 'label', 'Reason ');
    reasonLabel.htmlFor = 'reason-' + record.id;
    reasonLabel.append(el('span', 'hint', 'optional, kept in the audit trail'));
    const reason = el('textarea');
    reason.id = 'reason-' + record.id;
    reason.name = 'reason';
    reason.rows = 2;
    reason.maxLength = 500;
    reason.placeholder = 'Why you approve or deny this call';
    const error = el('p', 'error');
    error.setAttribute('role', 'alert');
    error.hidden = true;
    const actions = el('div', 'actions');
    const approve = el('button', 'btn approve', 'Approve');
    approve.type = 'button';
    approve.dataset.decision = 'approve';
    const deny = el('button', 'btn deny', 'Deny');
    deny.type = 'button';
    deny.dataset.decision = 'deny';
    actions.append(approve, deny);
    decide.append(reasonLabel, reason, error, actions);

    card.append(head, tool, el('p', 'message', record.message), facts, args, decide);
    return card;
  }

  function trailItem(entry) {
    const item = el('li');
    const at = Date.parse(entry.at);
    item.append(timeEl(entry.at, Number.isNaN(at) ? entry.at : trailTime.format(at), { format: 'trail' }), ' ');
    item.append(el('span', 'event event-' + entry.event, label(EVENT_LABELS, entry.event)));
    if (entry.by !== undefined) item.append(' ', el('span', 'by', 'by ' + entry.by));
    if (entry.reason !== undefined) item.append(' ', el('q', 'reason', entry.reason));
    return item;
  }

  function decidedCard(record) {
    const card = el('article', 'card decided state-' + record.state);
    setIdentity(card, record);
    const head = el('div', 'card-head');
    const at = record.decided_at || record.expires_at;
    const times = el('p', 'times');
    const atMs = Date.parse(at);
    times.append(timeEl(at, Number.isNaN(atMs) ? at : dayTime.format(atMs), { format: 'abs' }));
    const tags = el('div', 'tags');
    tags.append(el('span', 'state state-' + record.state, label(STATE_LABELS, record.state)), riskBadge(record));
    head.append(tags, times);

    const facts = el('dl', 'facts');
    facts.append(fact('Requested by', record.principal));
    if (record.state === 'expired') facts.append(fact('Decision', el('span', 'muted', 'Nobody decided in time')));
    else facts.append(fact('Decided by', record.decided_by || ''));
    if (record.reason !== undefined) facts.append(fact('Reason', record.reason, true));
    if (record.outcome !== undefined) facts.append(fact('Outcome', label(OUTCOME_LABELS, record.outcome)));

    const trailBlock = el('div', 'trail-block');
    const trail = el('ol', 'trail');
    for (const entry of record.trail || []) trail.append(trailItem(entry));
    trailBlock.append(el('div', 'label', 'Audit trail'), trail);

    const more = el('details', 'more');
    more.append(el('summary', '', 'Arguments'), argumentsBlock(record));

    card.append(head, el('h3', 'tool', record.tool), el('p', 'message', record.message), facts, trailBlock, more);
    return card;
  }

  // ---- Keeping the lists in step ----

  const cards = new Map();
  for (const card of document.querySelectorAll('.card[data-id]')) cards.set(card.dataset.id, card);

  /** Cards holding a refusal the person should read before the card moves; the newer record waits. */
  const held = new Map();

  function decidedAt(card) {
    const time = card.querySelector('.times time');
    return time ? Date.parse(time.getAttribute('datetime') || '') || 0 : 0;
  }
  function expiresAt(card) {
    const time = card.querySelector('time[data-rel="until"]');
    return time ? Date.parse(time.getAttribute('datetime') || '') || 0 : 0;
  }
  function placePending(card) {
    const when = expiresAt(card);
    for (const other of pendingList.children) {
      if (other !== card && expiresAt(other) > when) {
        pendingList.insertBefore(card, other);
        return;
      }
    }
    pendingList.append(card);
  }
  function placeDecided(card) {
    const when = decidedAt(card);
    for (const other of decidedList.children) {
      if (other !== card && decidedAt(other) < when) {
        decidedList.insertBefore(card, other);
        return;
      }
    }
    decidedList.append(card);
    while (decidedList.children.length > DECIDED_SHOWN) {
      const last = decidedList.lastElementChild;
      cards.delete(last.dataset.id);
      last.remove();
    }
  }

  function updateCounts() {
    const pending = pendingList.children.length;
    if (pendingCount) {
      pendingCount.textContent = String(pending);
      pendingCount.classList.toggle('zero', pending === 0);
    }
    if (pendingEmpty) pendingEmpty.hidden = pending > 0;
    if (decidedEmpty) decidedEmpty.hidden = decidedList.children.length > 0;
    document.title = pending > 0 ? '(' + pending + ') Approvals' : 'Approvals';
  }

  function announce(text) {
    if (!announcer) return;
    announcer.textContent = '';
    window.setTimeout(() => {
      announcer.textContent = text;
    }, 50);
  }

  function upsert(record, fromHere) {
    if (!record || typeof record.id !== 'string') return;
    if (held.has(record.id)) {
      held.set(record.id, record);
      return;
    }
    const current = cards.get(record.id);
    if (current && current.dataset.version === record.version) return;
    if (current && current.dataset.state === 'pending' && record.state === 'pending') {
      // Another call attached: nothing shown changed; keep what the person typed.
      current.dataset.version = record.version || '';
      return;
    }
    const card = record.state === 'pending' ? pendingCard(record) : decidedCard(record);
    localize(card);
    if (current) current.remove();
    cards.set(record.id, card);
    if (record.state === 'pending') placePending(card);
    else placeDecided(card);
    if (!current || current.dataset.state !== record.state) {
      card.classList.add('arrived');
      if (record.state === 'pending') announce('New request: ' + record.tool + ' from ' + record.principal);
      else if (!fromHere) announce(record.tool + ': ' + label(STATE_LABELS, record.state).toLowerCase());
    }
    updateCounts();
  }

  // ---- Deciding ----

  function setBusy(card, busy) {
    for (const control of card.querySelectorAll('button, textarea')) control.disabled = busy;
  }
  function showError(card, text) {
    const error = card.querySelector('.error');
    if (!error) return;
    error.textContent = text;
    error.hidden = text === '';
  }

  function goSignIn() {
    window.location.assign(base + '/sign-in');
  }

  async function decide(card, button) {
    const id = card.dataset.id;
    const approve = button.dataset.decision === 'approve';
    const reasonBox = card.querySelector('textarea');
    const reason = reasonBox ? reasonBox.value.trim() : '';
    const original = button.textContent;
    showError(card, '');
    setBusy(card, true);
    button.classList.add('busy');
    button.textContent = approve ? 'Approving\\u2026' : 'Denying\\u2026';
    let response;
    let answer = {};
    try {
      response = await fetch(base + '/api/requests/' + encodeURIComponent(id) + '/decision', {
        method: 'POST',
        credentials: 'same-origin',
        headers: { 'Content-Type': 'application/json', 'X-CSRF-Token': csrf },
        body: JSON.stringify(reason === '' ? { approve: approve } : { approve: approve, reason: reason }),
      });
      answer = await response.json().catch(() => ({}));
    } catch (failure) {
      response = undefined;
    }
    button.classList.remove('busy');
    button.textContent = original;
    if (response && response.ok) {
      announce(card.querySelector('.tool').textContent + ': ' + (approve ? 'approved' : 'denied'));
      upsert(answer.request, true);
      return;
    }
    if (response && response.status === 401) return goSignIn();
    const message =
      answer && answer.error && typeof answer.error.message === 'string'
        ? answer.error.message
        : response
          ? 'The decision was refused (' + response.status + '). Try again.'
          : 'Could not reach the server. Check the connection and try again.';
    showError(card, message);
    if (response && response.status === 409 && answer.request) {
      // Decided elsewhere (or expired): say so on the card, then move it down.
      held.set(id, answer.request);
      window.setTimeout(() => {
        const latest = held.get(id);
        held.delete(id);
        upsert(latest, false);
      }, 6000);
      return;
    }
    if (response && response.status === 404) return;
    setBusy(card, false);
  }

  pendingList.addEventListener('click', (event) => {
    const target = event.target instanceof Element ? event.target.closest('button[data-decision]') : null;
    if (!target || target.disabled) return;
    const card = target.closest('.card');
    if (card) void decide(card, target);
  });

  // ---- Live updates: the event stream, else polling ----

  let refreshing = false;
  async function refresh() {
    if (refreshing) return;
    refreshing = true;
    try {
      const [pending, recent] = await Promise.all([
        fetch(base + '/api/requests?state=pending&limit=200', { credentials: 'same-origin' }),
        fetch(base + '/api/requests?limit=100', { credentials: 'same-origin' }),
      ]);
      if (pending.status === 401 || recent.status === 401) return goSignIn();
      if (!pending.ok || !recent.ok) return;
      const pendingBody = await pending.json();
      const recentBody = await recent.json();
      const stillPending = new Set();
      for (const record of pendingBody.requests) stillPending.add(record.id);
      for (const record of recentBody.requests.concat(pendingBody.requests)) upsert(record, false);
      // A pending card the desk no longer lists as pending is read on its own.
      for (const card of Array.from(pendingList.children)) {
        const id = card.dataset.id;
        if (stillPending.has(id) || held.has(id)) continue;
        const one = await fetch(base + '/api/requests/' + encodeURIComponent(id), { credentials: 'same-origin' });
        if (one.ok) upsert((await one.json()).request, false);
        else if (one.status === 404) {
          cards.delete(id);
          card.remove();
          updateCounts();
        }
      }
    } catch (failure) {
      setLive('poll', 'Offline: retrying every 5 s');
    } finally {
      refreshing = false;
    }
  }

  function setLive(state, text) {
    if (!liveStatus) return;
    liveStatus.hidden = false;
    liveStatus.dataset.live = state;
    liveStatus.textContent = text;
  }

  let pollTimer = 0;
  function startPolling() {
    if (pollTimer) return;
    setLive('poll', 'Checking every 5 s');
    pollTimer = window.setInterval(() => void refresh(), POLL_MS);
  }
  function stopPolling() {
    if (!pollTimer) return;
    window.clearInterval(pollTimer);
    pollTimer = 0;
  }

  function connect() {
    if (typeof window.EventSource !== 'function') {
      startPolling();
      return;
    }
    let source;
    try {
      source = new EventSource(base + '/api/events');
    } catch (failure) {
      startPolling();
      return;
    }
    source.addEventListener('open', () => {
      stopPolling();
      setLive('on', 'Live');
      void refresh();
    });
    source.addEventListener('request', (event) => {
      try {
        upsert(JSON.parse(event.data), false);
      } catch (failure) {
        void refresh();
      }
    });
    source.addEventListener('signed-out', () => {
      source.close();
      goSignIn();
    });
    source.addEventListener('error', () => {
      // The browser reconnects by itself unless the stream was refused; poll meanwhile.
      startPolling();
      if (source.readyState === EventSource.CLOSED) {
        window.setTimeout(connect, 30000);
      }
    });
  }

  localize(document);
  tick();
  updateCounts();
  window.setInterval(tick, 1000);
  const focus = body.dataset.focus;
  if (focus && cards.has(focus)) cards.get(focus).scrollIntoView({ block: 'center' });
  connect();
})();
`;

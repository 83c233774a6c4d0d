/** Part of the approvals page's script (see `page-js.ts`): deciding, live updates, and the start. */
export const PAGE_JS_DECISIONS = `  // ---- Deciding ----

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

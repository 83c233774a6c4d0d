/** Part of the approvals page's script (see `page-js.ts`): keeping the pending and decided lists in step. */
export const PAGE_JS_LISTS = `  // ---- Keeping the lists in step ----

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

`;

/** Part of the approvals page's script (see `page-js.ts`): building request cards, the same markup as `cards.ts`. */
export const PAGE_JS_CARDS = `  // ---- Building cards (the same markup as cards.ts) ----

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

`;

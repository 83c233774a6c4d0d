/**
 * The approvals page's script, served as `{base}/assets/page.js` (the page allows no inline
 * script). Plain browser JavaScript; request data only ever goes into `textContent`.
 * One closure, kept in four files by role: forms and times here, then cards,
 * lists, and deciding with live updates.
 */
import { PAGE_JS_CARDS } from './page-js-cards.js';
import { PAGE_JS_DECISIONS } from './page-js-decisions.js';
import { PAGE_JS_LISTS } from './page-js-lists.js';
const OPENING = `// The approvals page in the browser: live updates, relative times, decisions.
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

`;

export const PAGE_JS = OPENING + PAGE_JS_CARDS + PAGE_JS_LISTS + PAGE_JS_DECISIONS;

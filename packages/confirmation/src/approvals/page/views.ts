/**
 * The page's HTML: the approvals page itself, the sign-in form, and the
 * pages that say why something cannot be shown. Every value is escaped by
 * the `safeHtml` template; the script and style sheet are files of their own.
 */
import type { ApprovalRecord } from '../record.js';
import { decidedCard, pendingCard } from './cards.js';
import type { PageContext } from './context.js';
import { safeHtml, type Html } from './html.js';
import { lifetimeText } from './time-text.js';

const ICON =
  "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 32 32'%3E%3Crect width='32' height='32' rx='8' fill='%232451c7'/%3E%3Cpath d='M9 16.5l4.5 4.5L23 11.5' stroke='white' stroke-width='3.2' fill='none' stroke-linecap='round' stroke-linejoin='round'/%3E%3C/svg%3E";

const MARK = safeHtml`<svg class="mark" viewBox="0 0 32 32" aria-hidden="true" focusable="false"><rect width="32" height="32" rx="8"/><path d="M9 16.5l4.5 4.5L23 11.5"/></svg>`;

interface LayoutParts {
  readonly title: string;
  readonly csrf?: string | undefined;
  /** The request to scroll to. */
  readonly focus?: string | undefined;
  readonly header?: Html | undefined;
  readonly main: Html;
}

function layout(ctx: PageContext, parts: LayoutParts): Html {
  const csrf = parts.csrf === undefined ? '' : safeHtml`<meta name="csrf-token" content="${parts.csrf}">`;
  const focus = parts.focus === undefined ? '' : safeHtml` data-focus="${parts.focus}"`;
  return safeHtml`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
${csrf}
<title>${parts.title}</title>
<link rel="icon" href="${ICON}">
<link rel="stylesheet" href="${ctx.assetPaths.style}">
<script src="${ctx.assetPaths.script}" defer></script>
</head>
<body data-base="${ctx.config.basePath}"${focus}>
${parts.header ?? ''}
${parts.main}
</body>
</html>
`;
}

/**
 * The sign-out form. page.js posts it with fetch, then goes to `data-after`:
 * a form that a page under `Referrer-Policy: no-referrer` posts itself says
 * `Origin: null`, which a server's front door (core's `nodeListener`) refuses.
 */
function signOutForm(ctx: PageContext, csrf: string): Html {
  const { basePath } = ctx.config;
  return safeHtml`<form class="sign-out" method="post" action="${basePath}/sign-out" data-after="${basePath}/sign-in?signed-out=1"><input type="hidden" name="csrf" value="${csrf}"><button type="submit" class="btn quiet small">Sign out</button></form>`;
}

function topBar(ctx: PageContext, principal: string, csrf: string): Html {
  return safeHtml`<header class="topbar"><div class="wrap topbar-inner">
<a class="brand" href="${ctx.config.basePath}">${MARK}<span>Approvals</span></a>
<div class="account"><span class="who"><span class="who-label">Signed in as</span> <strong class="principal" title="${principal}">${principal}</strong></span>${signOutForm(ctx, csrf)}</div>
</div></header>`;
}

/** What the approvals page shows. */
export interface MainPageData {
  readonly principal: string;
  readonly csrf: string;
  readonly records: { readonly pending: readonly ApprovalRecord[]; readonly decided: readonly ApprovalRecord[] };
  /** The request the address named (`{base}/{id}`), to scroll to. */
  readonly focus: string | undefined;
  readonly now: number;
}

function pendingSection(data: MainPageData): Html {
  const { pending } = data.records;
  return safeHtml`<section class="section" aria-labelledby="pending-title">
<div class="section-head"><h2 id="pending-title">Waiting for a decision</h2><span class="count${pending.length === 0 ? ' zero' : ''}" id="pending-count">${pending.length}</span><span class="live" id="live-status" role="status" hidden></span></div>
<div class="cards" id="pending">${pending.map((record) => pendingCard(record, data.now, record.id === data.focus))}</div>
<div class="empty" id="pending-empty"${pending.length === 0 ? '' : ' hidden'}><p class="empty-title">Nothing is waiting for you</p><p>New requests show up here the moment an agent asks; this page updates by itself.</p></div>
</section>`;
}

function decidedSection(data: MainPageData): Html {
  const { decided } = data.records;
  return safeHtml`<section class="section" aria-labelledby="decided-title">
<div class="section-head"><h2 id="decided-title">Recently decided</h2></div>
<div class="cards" id="decided">${decided.map((record) => decidedCard(record, record.id === data.focus))}</div>
<p class="empty small" id="decided-empty"${decided.length === 0 ? '' : ' hidden'}>No decisions yet.</p>
</section>`;
}

/** The approvals page: pending requests to decide, then the decided ones. */
export function mainPage(ctx: PageContext, data: MainPageData): Html {
  const waiting = data.records.pending.length;
  const main = safeHtml`<main class="wrap">
${pendingSection(data)}
${decidedSection(data)}
<div class="visually-hidden" id="announcer" aria-live="polite"></div>
</main>`;
  return layout(ctx, {
    title: waiting === 0 ? 'Approvals' : `(${waiting}) Approvals`,
    csrf: data.csrf,
    focus: data.focus,
    header: topBar(ctx, data.principal, data.csrf),
    main,
  });
}

/** What the sign-in form says above the field: why the last attempt failed, or nothing. */
export interface SignInNotice {
  readonly kind: 'error' | 'info';
  readonly text: string;
}

function panel(content: Html): Html {
  return safeHtml`<main class="sign-in-wrap"><div class="panel sign-in">
<div class="brand">${MARK}<span>Approvals</span></div>
${content}
</div></main>`;
}

/** The sign-in form: paste an API key or access token. page.js posts it with fetch (see `signOutForm`). */
export function signInPage(ctx: PageContext, notice: SignInNotice | undefined, next: string | undefined): Html {
  const { approverScope, basePath, sessionSeconds } = ctx.config;
  const role = notice?.kind === 'error' ? 'alert' : 'status';
  const noticeHtml =
    notice === undefined ? '' : safeHtml`<p class="notice ${notice.kind}" role="${role}">${notice.text}</p>`;
  const nextField = next === undefined ? '' : safeHtml`<input type="hidden" name="next" value="${next}">`;
  const content = safeHtml`<h1>Sign in to decide tool calls</h1>
<p class="lead">Paste an API key or an OAuth access token that carries the scope <code>${approverScope}</code>. It is checked once and never stored; this browser stays signed in for ${lifetimeText(sessionSeconds)}.</p>
${noticeHtml}
<form method="post" action="${basePath}/sign-in" class="sign-in-form" data-after="${next ?? basePath}">
${nextField}
<label class="label" for="token">API key or access token</label>
<input id="token" name="token" type="password" autocomplete="off" autocapitalize="off" spellcheck="false" required autofocus>
<button type="submit" class="btn primary">Sign in</button>
</form>`;
  return layout(ctx, { title: 'Sign in · Approvals', main: panel(content) });
}

/** Signed in, but without the approver's scope: says which scope is missing. */
export function missingScopePage(ctx: PageContext, principal: string, csrf: string): Html {
  const content = safeHtml`<h1>You cannot decide approval requests</h1>
<p class="lead">You are signed in as <strong>${principal}</strong>, but deciding approval requests needs the scope <code>${ctx.config.approverScope}</code>, which your key or token does not carry.</p>
<p>Ask an administrator for a key with that scope, then sign out and sign in with it.</p>
${signOutForm(ctx, csrf)}`;
  return layout(ctx, { title: 'Not allowed · Approvals', main: panel(content) });
}

/** A short page for a refusal or a missing page, with a way back. */
export function messagePage(ctx: PageContext, title: string, text: string): Html {
  const content = safeHtml`<h1>${title}</h1>
<p class="lead">${text}</p>
<p><a href="${ctx.config.basePath}">Back to the approvals</a></p>`;
  return layout(ctx, { title: `${title} · Approvals`, main: panel(content) });
}

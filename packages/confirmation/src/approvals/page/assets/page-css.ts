/**
 * The approvals page's style sheet, served as `{base}/assets/page.css` (the page allows no
 * inline style): system fonts, light and dark, readable from 390 px wide.
 */
export const PAGE_CSS = `:root {
  color-scheme: light dark;
  --bg: #f4f5f7;
  --surface: #ffffff;
  --surface-2: #f7f8fa;
  --border: #dfe3e8;
  --border-strong: #c5ccd6;
  --text: #1b2330;
  --muted: #5b6675;
  --accent: #2451c7;
  --accent-text: #ffffff;
  --focus: #2451c7;
  --approve: #157a3c;
  --approve-hover: #106332;
  --deny: #b4232a;
  --deny-bg: #ffffff;
  --deny-hover-bg: #fdecec;
  --safe-bg: #e3f4e8;
  --safe-fg: #12622f;
  --rev-bg: #fdf1d8;
  --rev-fg: #7a4b00;
  --destr-bg: #fde5e5;
  --destr-fg: #a11d24;
  --neutral-bg: #eceff3;
  --neutral-fg: #4a5564;
  --code-bg: #f3f5f8;
  --shadow: 0 1px 2px rgba(16, 24, 40, 0.06), 0 1px 3px rgba(16, 24, 40, 0.08);
  --radius: 12px;
  --mono: ui-monospace, SFMono-Regular, "SF Mono", Menlo, Consolas, "Liberation Mono", monospace;
}

@media (prefers-color-scheme: dark) {
  :root {
    --bg: #0f131a;
    --surface: #171c24;
    --surface-2: #1c222c;
    --border: #2a323e;
    --border-strong: #3a4452;
    --text: #e6e9ee;
    --muted: #9aa4b2;
    --accent: #7ea2ff;
    --accent-text: #0f131a;
    --focus: #7ea2ff;
    --approve: #1f7a42;
    --approve-hover: #238a4b;
    --deny: #ff8a8a;
    --deny-bg: transparent;
    --deny-hover-bg: #3a1d20;
    --safe-bg: #17351f;
    --safe-fg: #8fe0a8;
    --rev-bg: #3b2d12;
    --rev-fg: #f5c56b;
    --destr-bg: #421c1f;
    --destr-fg: #ff9c9c;
    --neutral-bg: #262d38;
    --neutral-fg: #b5bfcc;
    --code-bg: #11161d;
    --shadow: none;
  }
}

*, *::before, *::after { box-sizing: border-box; }

html { -webkit-text-size-adjust: 100%; }

body {
  margin: 0;
  background: var(--bg);
  color: var(--text);
  font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, "Noto Sans", sans-serif;
  font-size: 15px;
  line-height: 1.5;
}

a { color: var(--accent); }
code, .mono { font-family: var(--mono); font-size: 0.92em; }
code { background: var(--code-bg); border: 1px solid var(--border); border-radius: 6px; padding: 0.05em 0.35em; overflow-wrap: anywhere; }
[hidden] { display: none !important; }

.visually-hidden {
  position: absolute; width: 1px; height: 1px; overflow: hidden;
  clip: rect(0 0 0 0); clip-path: inset(50%); white-space: nowrap;
}

.wrap { width: 100%; max-width: 980px; margin: 0 auto; padding: 0 20px; }

/* Top bar */
.topbar { background: var(--surface); border-bottom: 1px solid var(--border); position: sticky; top: 0; z-index: 5; }
.topbar-inner { display: flex; align-items: center; justify-content: space-between; gap: 16px; min-height: 60px; }
.brand { display: inline-flex; align-items: center; gap: 10px; font-weight: 650; font-size: 17px; color: var(--text); text-decoration: none; white-space: nowrap; }
.mark { width: 26px; height: 26px; flex: none; }
.mark rect { fill: var(--accent); }
.mark path { fill: none; stroke: var(--accent-text); stroke-width: 3.2; stroke-linecap: round; stroke-linejoin: round; }
.account { display: flex; align-items: center; gap: 12px; min-width: 0; }
.who { display: flex; align-items: baseline; gap: 6px; min-width: 0; color: var(--muted); font-size: 14px; }
.who-label { white-space: nowrap; }
.principal { color: var(--text); font-weight: 600; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; min-width: 0; max-width: 320px; }
.sign-out { margin: 0; flex: none; }

/* Sections */
main.wrap { padding-top: 28px; padding-bottom: 64px; }
.section + .section { margin-top: 40px; }
.section-head { display: flex; align-items: center; flex-wrap: wrap; gap: 10px; margin-bottom: 14px; }
.section-head h2 { font-size: 18px; line-height: 1.3; margin: 0; font-weight: 650; }
.count { min-width: 26px; height: 24px; padding: 0 8px; border-radius: 999px; background: var(--accent); color: var(--accent-text); font-size: 13px; font-weight: 650; display: inline-flex; align-items: center; justify-content: center; }
.count.zero { background: var(--neutral-bg); color: var(--neutral-fg); }
.live { margin-left: auto; font-size: 13px; color: var(--muted); display: inline-flex; align-items: center; gap: 6px; }
.live::before { content: ""; width: 8px; height: 8px; border-radius: 50%; background: var(--border-strong); }
.live[data-live="on"]::before { background: var(--approve); box-shadow: 0 0 0 3px var(--safe-bg); }
.live[data-live="poll"]::before { background: var(--rev-fg); }

.cards { display: grid; gap: 16px; }

/* Cards */
.card {
  background: var(--surface);
  border: 1px solid var(--border);
  border-radius: var(--radius);
  box-shadow: var(--shadow);
  padding: 18px 20px 20px;
  min-width: 0;
  position: relative;
  overflow: hidden;
}
.card.pending::before { content: ""; position: absolute; left: 0; top: 0; bottom: 0; width: 4px; background: var(--border-strong); }
.card.pending.risk-safe::before { background: var(--safe-fg); }
.card.pending.risk-reversible::before { background: #d38a00; }
.card.pending.risk-destructive::before { background: var(--destr-fg); }
.card.focused { outline: 2px solid var(--focus); outline-offset: 2px; }
.card.arrived { animation: arrive 1.2s ease-out; }
@keyframes arrive { from { box-shadow: 0 0 0 4px var(--accent); } to { box-shadow: var(--shadow); } }
@media (prefers-reduced-motion: reduce) { .card.arrived { animation: none; } }

.card-head { display: flex; align-items: center; justify-content: space-between; flex-wrap: wrap; gap: 6px 16px; }
.tags { display: flex; flex-wrap: wrap; gap: 8px; }
.tool { margin: 10px 0 0; font-family: var(--mono); font-size: 17px; font-weight: 650; line-height: 1.35; overflow-wrap: anywhere; }
.decided .tool { font-size: 15px; margin-top: 8px; }
.times { margin: 0; font-size: 13px; color: var(--muted); display: flex; flex-wrap: wrap; gap: 2px 8px; white-space: nowrap; }
.times .sep { color: var(--border-strong); }
.until.soon { color: var(--destr-fg); font-weight: 600; }
.card.is-expired .until { color: var(--destr-fg); font-weight: 600; }

.badge, .state {
  display: inline-flex; align-items: center; gap: 6px; height: 24px; padding: 0 9px; border-radius: 999px;
  font-size: 12px; font-weight: 650; letter-spacing: 0.02em; text-transform: uppercase; white-space: nowrap; flex: none;
}
.badge::before { content: ""; width: 7px; height: 7px; border-radius: 50%; background: currentColor; }
.risk-safe.badge { background: var(--safe-bg); color: var(--safe-fg); }
.risk-reversible.badge { background: var(--rev-bg); color: var(--rev-fg); }
.risk-destructive.badge { background: var(--destr-bg); color: var(--destr-fg); }
.state-approved.state { background: var(--safe-bg); color: var(--safe-fg); }
.state-denied.state { background: var(--destr-bg); color: var(--destr-fg); }
.state-expired.state, .state-cancelled.state { background: var(--neutral-bg); color: var(--neutral-fg); }
.state-pending.state { background: var(--rev-bg); color: var(--rev-fg); }

.message { margin: 6px 0 0; font-size: 15.5px; white-space: pre-line; overflow-wrap: anywhere; }

.facts { display: flex; flex-wrap: wrap; gap: 6px 28px; margin: 12px 0 0; font-size: 14px; }
.fact { display: flex; gap: 6px; min-width: 0; max-width: 100%; }
.fact.wide { flex-basis: 100%; }
.fact dt { color: var(--muted); white-space: nowrap; }
.fact dt::after { content: ":"; }
.fact dd { margin: 0; min-width: 0; overflow-wrap: anywhere; font-weight: 550; }
.fact .mono { font-weight: 400; font-size: 13px; color: var(--muted); }
.muted { color: var(--muted); font-weight: 400; }

.label { display: block; font-size: 13px; font-weight: 600; color: var(--muted); margin-bottom: 6px; }
.hint { font-weight: 400; }
.args-block { margin-top: 14px; }
pre.args {
  margin: 0; padding: 12px 14px; background: var(--code-bg); border: 1px solid var(--border); border-radius: 8px;
  font-family: var(--mono); font-size: 13px; line-height: 1.5; max-height: 260px; overflow: auto;
  white-space: pre-wrap; overflow-wrap: anywhere; tab-size: 2;
}
pre.args:focus-visible { outline: 2px solid var(--focus); outline-offset: 1px; }
.no-args { margin: 0; color: var(--muted); font-size: 14px; }

.decide { margin-top: 16px; padding-top: 16px; border-top: 1px solid var(--border); }
textarea, input[type="password"], input[type="text"] {
  display: block; width: 100%; font: inherit; color: var(--text); background: var(--surface);
  border: 1px solid var(--border-strong); border-radius: 8px; padding: 9px 11px;
}
textarea { resize: vertical; min-height: 44px; }
textarea:focus, input:focus { outline: 2px solid var(--focus); outline-offset: 0; border-color: var(--focus); }
textarea:disabled { opacity: 0.7; }
.actions { display: flex; flex-wrap: wrap; gap: 10px; margin-top: 12px; }
.error { margin: 10px 0 0; padding: 9px 12px; border-radius: 8px; background: var(--destr-bg); color: var(--destr-fg); font-size: 14px; font-weight: 550; overflow-wrap: anywhere; }

/* Buttons */
.btn {
  display: inline-flex; align-items: center; justify-content: center; gap: 8px;
  min-height: 42px; padding: 0 20px; border-radius: 8px; border: 1px solid transparent;
  font: inherit; font-weight: 650; cursor: pointer; text-decoration: none; white-space: nowrap;
}
.btn:focus-visible { outline: 2px solid var(--focus); outline-offset: 2px; }
.btn:disabled { cursor: default; opacity: 0.6; }
.btn.small { min-height: 34px; padding: 0 14px; font-size: 14px; font-weight: 600; }
.btn.primary { background: var(--accent); color: var(--accent-text); }
.btn.approve { background: var(--approve); color: #ffffff; min-width: 130px; }
.btn.approve:hover:not(:disabled) { background: var(--approve-hover); }
.btn.deny { background: var(--deny-bg); color: var(--deny); border-color: currentColor; min-width: 110px; }
.btn.deny:hover:not(:disabled) { background: var(--deny-hover-bg); }
.btn.quiet { background: transparent; color: var(--text); border-color: var(--border-strong); }
.btn.quiet:hover { background: var(--surface-2); }
.btn.busy::before { content: ""; width: 14px; height: 14px; border-radius: 50%; border: 2px solid currentColor; border-right-color: transparent; animation: spin 0.8s linear infinite; }
@keyframes spin { to { transform: rotate(360deg); } }

/* Decided */
.card.decided { padding: 16px 20px; }
.decided .message { font-size: 14.5px; margin-top: 4px; color: var(--text); }
.trail-block { margin-top: 12px; }
.trail { list-style: none; margin: 0; padding: 0 0 0 14px; border-left: 2px solid var(--border); font-size: 13.5px; display: grid; gap: 4px; }
.trail li { overflow-wrap: anywhere; }
.trail time { color: var(--muted); font-variant-numeric: tabular-nums; margin-right: 4px; }
.trail .event { font-weight: 600; }
.trail .event-approved { color: var(--safe-fg); }
.trail .event-denied { color: var(--destr-fg); }
.trail .by { color: var(--muted); }
.trail .reason { font-style: italic; }
.more { margin-top: 12px; }
.more summary { cursor: pointer; color: var(--accent); font-size: 14px; font-weight: 600; width: max-content; max-width: 100%; }
.more summary:focus-visible { outline: 2px solid var(--focus); outline-offset: 2px; border-radius: 4px; }
.more[open] summary { margin-bottom: 8px; }

/* Empty states */
.empty { background: var(--surface); border: 1px dashed var(--border-strong); border-radius: var(--radius); padding: 28px 20px; text-align: center; color: var(--muted); }
.empty p { margin: 0; }
.empty-title { color: var(--text); font-weight: 650; font-size: 16px; margin-bottom: 4px !important; }
.empty.small { padding: 16px; font-size: 14px; }

/* Sign-in and messages */
.sign-in-wrap { min-height: 100vh; display: flex; align-items: flex-start; justify-content: center; padding: 12vh 20px 40px; }
.panel { background: var(--surface); border: 1px solid var(--border); border-radius: 16px; box-shadow: var(--shadow); padding: 28px; width: 100%; max-width: 460px; }
.panel .brand { margin-bottom: 18px; }
.panel h1 { font-size: 21px; line-height: 1.3; margin: 0 0 8px; }
.panel .lead { color: var(--muted); margin: 0 0 18px; overflow-wrap: anywhere; }
.panel p { overflow-wrap: anywhere; }
.sign-in-form { display: grid; gap: 6px; }
.sign-in-form .btn { margin-top: 12px; width: 100%; }
.notice { margin: 0 0 16px; padding: 10px 12px; border-radius: 8px; font-size: 14px; font-weight: 550; }
.notice.error { background: var(--destr-bg); color: var(--destr-fg); }
.notice.info { background: var(--safe-bg); color: var(--safe-fg); }

@media (max-width: 640px) {
  body { font-size: 15px; }
  .wrap { padding: 0 14px; }
  .topbar-inner { min-height: 56px; gap: 10px; }
  .who-label { display: none; }
  .principal { max-width: 52vw; }
  .topbar .brand span {
    position: absolute; width: 1px; height: 1px; overflow: hidden;
    clip: rect(0 0 0 0); clip-path: inset(50%); white-space: nowrap;
  }
  .fact { flex-direction: column; gap: 0; }
  .fact dt { font-size: 12.5px; }
  .fact dt::after { content: none; }
  main.wrap { padding-top: 20px; }
  .card { padding: 16px 16px 18px; }
  .card.decided { padding: 14px 16px; }
  .actions .btn { flex: 1 1 0; min-width: 0; }
  .facts { gap: 8px 24px; }
  .panel { padding: 22px; }
  .sign-in-wrap { padding-top: 6vh; }
}
`;

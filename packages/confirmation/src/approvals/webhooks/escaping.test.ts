/**
 * The escaping every hostile value goes through: HTML for the link pages,
 * Slack's mrkdwn for the messages (cut to a length without breaking an
 * entity).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { escapeHtml } from './link-pages.js';
import { slackEscape } from './slack-message.js';

const ENTITY_OR_PLAIN = /&(amp|lt|gt|quot|#39);/g;

describe('escaping', () => {
  it('leaves no HTML control character in a page value', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (value) => {
        const escaped = escapeHtml(value);
        expect(escaped).not.toMatch(/[<>"']/);
        expect(escaped.replace(ENTITY_OR_PLAIN, '')).not.toContain('&');
      }),
    );
  });

  it('leaves no Slack control character, and cuts on whole entities within the limit', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 300 }), fc.integer({ min: 2, max: 200 }), (value, max) => {
        const escaped = slackEscape(value, max);
        expect(escaped).not.toMatch(/[<>]/);
        expect(escaped.replace(ENTITY_OR_PLAIN, '')).not.toContain('&');
        expect(escaped.length).toBeLessThanOrEqual(max + 1); // a cut character may be a surrogate pair
        if (slackEscape(value).length <= max) expect(escaped).toBe(slackEscape(value));
        else expect(escaped.endsWith('…')).toBe(true);
      }),
    );
    expect(slackEscape('<!channel> & <@U1>')).toBe('&lt;!channel&gt; &amp; &lt;@U1&gt;');
    expect(slackEscape('&&&&', 6)).toBe('&amp;…');
  });
});

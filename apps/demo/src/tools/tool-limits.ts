/** What the tracker's tools promise callers: the admin scope, the export quota, and the attachment limits. */

/** Scope a person must be granted (it is never granted automatically). */
export const ADMIN_SCOPE = 'tickets:admin';

/** Exports a caller may run per hour (cost: a metered tool with a quota). */
export const EXPORT_QUOTA = 10;
export const EXPORT_QUOTA_WINDOW_SECONDS = 3600;

/** Largest image `attach_image` takes, and the media types it accepts. */
export const MAX_ATTACHMENT_BYTES = 4 * 1024 * 1024;
export const ATTACHMENT_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'];

// Test settings every package shares (imported by each package's vitest.config.ts).
// CI machines have two cores and run several packages at once: generous
// timeouts keep property-based and end-to-end tests from failing on load alone.
export const sharedTestOptions = {
  include: ['src/**/*.test.ts'],
  testTimeout: 60_000,
  hookTimeout: 60_000,
};

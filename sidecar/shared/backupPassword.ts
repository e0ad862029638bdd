/** The backup password rule, once for the extension's prompt, the CLI and the sidecar's check. */

/** Minimum length of a backup password. */
export const MIN_PASSWORD_LENGTH = 8;

/** Why a password cannot protect a backup (one sentence), or undefined when it can. */
export function backupPasswordProblem(password: unknown): string | undefined {
  if (typeof password !== 'string' || password.length < MIN_PASSWORD_LENGTH) {
    return `The backup password must have at least ${MIN_PASSWORD_LENGTH} characters.`;
  }
  return undefined;
}

/** Who changes are attributed to, the same in the extension, the sidecar and the CLI. */
import { hostname, userInfo } from 'node:os';

/** user@machine, recorded with every memory and audit entry; `unknown` when the system has no user entry (containers). */
export function currentUser(env: NodeJS.ProcessEnv = process.env): string {
  let name = '';
  try {
    name = userInfo().username;
  } catch {
    // no passwd entry (containers): fall back to the environment
  }
  return `${name || env.USER || env.USERNAME || 'unknown'}@${hostname()}`;
}

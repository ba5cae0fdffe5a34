// A directory built once and shared by every test process (the compiled entries, the template
// database): each process that finds none builds one under a temporary name and renames it into
// place when done, so no process ever sees a half-built one.
import fs from 'node:fs';
import path from 'node:path';

/** Whether `dir` holds a finished build. */
export const isBuilt = (dir: string): boolean => fs.existsSync(path.join(dir, 'ready'));

/** Marks `building` finished and moves it to `dir`; if another process finished first, drops it (the builds are the same). */
export function publishBuilt(building: string, dir: string): void {
  fs.writeFileSync(path.join(building, 'ready'), '');
  try {
    fs.renameSync(building, dir);
  } catch {
    fs.rmSync(building, { recursive: true, force: true });
  }
}

/** Whether process `pid` runs on this machine (signal 0 checks without sending anything). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether the process holding `lock` is gone (or never wrote its pid, a minute ago). */
function lockAbandoned(lock: string): boolean {
  try {
    const pid = Number(fs.readFileSync(path.join(lock, 'pid'), 'utf8'));
    return pid > 0 && !processAlive(pid);
  } catch {
    try {
      return Date.now() - fs.statSync(lock).mtimeMs > 60_000;
    } catch {
      return false; // released meanwhile
    }
  }
}

/**
 * Builds `dir` with `build` (which publishes it, see publishBuilt) unless built already, one process
 * at a time: the first test processes of a run all need it at once, and each building its own did
 * the work that many times. The others wait for it; a lock whose process is gone is taken over.
 */
export async function buildOnce(dir: string, build: () => Promise<void>): Promise<void> {
  const lock = `${dir}.lock`;
  while (!isBuilt(dir)) {
    try {
      fs.mkdirSync(lock);
    } catch {
      if (lockAbandoned(lock)) fs.rmSync(lock, { recursive: true, force: true });
      else await new Promise((resolve) => setTimeout(resolve, 100));
      continue;
    }
    try {
      fs.writeFileSync(path.join(lock, 'pid'), String(process.pid));
      if (!isBuilt(dir)) await build();
    } finally {
      fs.rmSync(lock, { recursive: true, force: true });
    }
  }
}

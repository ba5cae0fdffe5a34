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

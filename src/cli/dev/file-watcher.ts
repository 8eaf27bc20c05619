/**
 * Calls back once, shortly after any of some files changed. Watches each file's directory, not
 * the file: editors save by writing a new file and renaming it over the old one, which ends a
 * watch on the file itself. Bursts of events (one save is often several) are debounced.
 */
import { watch, type FSWatcher } from "node:fs";
import path from "node:path";

export interface FileWatcher {
  close(): void;
}

export function watchFiles(
  files: readonly string[],
  onChange: (changed: string[]) => void,
  debounceMs = 250,
): FileWatcher {
  const wanted = new Map<string, Set<string>>();
  for (const file of files) {
    const absolute = path.resolve(file);
    const dir = path.dirname(absolute);
    const names = wanted.get(dir) ?? new Set<string>();
    names.add(path.basename(absolute));
    wanted.set(dir, names);
  }
  const changed = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  const watchers: FSWatcher[] = [...wanted].map(([dir, names]) =>
    watch(dir, (_event, name) => {
      // Some platforms omit the name: then any event in the directory counts for all its files.
      const hits = name === null ? [...names] : names.has(name) ? [name] : [];
      if (hits.length === 0) return;
      for (const hit of hits) changed.add(path.join(dir, hit));
      if (timer !== undefined) clearTimeout(timer);
      timer = setTimeout(() => {
        timer = undefined;
        const batch = [...changed];
        changed.clear();
        onChange(batch);
      }, debounceMs);
    }),
  );
  return {
    close() {
      if (timer !== undefined) clearTimeout(timer);
      for (const w of watchers) w.close();
    },
  };
}

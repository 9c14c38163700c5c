/**
 * A mapped task's change listeners (task-map.ts makes one per task; task-status.ts listens): told,
 * synchronously, that what a host would read may have changed.
 */
export class Changes {
  #listeners: Set<() => void> | null = null;

  on(listener: () => void): () => void {
    this.#listeners ??= new Set();
    const all = this.#listeners;
    all.add(listener);
    return () => void all.delete(listener);
  }

  emit(): void {
    if (!this.#listeners) return;
    for (const l of [...this.#listeners]) {
      try {
        l();
      } catch {
        // A sink that fails must not stop the others.
      }
    }
  }

  /** Forgets every listener (the task is forgotten). */
  clear(): void {
    this.#listeners = null;
  }
}

import { rmSync } from "node:fs";
import { join } from "node:path";
import type { TaskPack } from "../pack/task-pack.ts";
import { prepareTask, type TaskDeps, type TaskState } from "../workspace/task-state.ts";

/**
 * The tasks a verifier session has prepared (snapshot, policy, restore mounts; workspace/task-state.ts),
 * each built once, on first use, in its own folder under `<root>/tasks`, and shared by its candidates.
 */
export class TaskCache {
  private readonly tasks = new Map<string, Promise<TaskState>>();
  /** Where each task's snapshot and hidden tests are kept, by pack folder. */
  private readonly dirs = new Map<string, string>();
  private counter = 0;

  constructor(
    private readonly root: string,
    private readonly deps: TaskDeps,
  ) {}

  /** The task's prepared state, built on first use. */
  get(pack: TaskPack): Promise<TaskState> {
    let state = this.tasks.get(pack.dir);
    if (!state) {
      const dir = join(this.root, `${++this.counter}-${pack.spec.id}`);
      this.dirs.set(pack.dir, dir);
      state = Promise.resolve().then(() => prepareTask(pack, dir, this.deps));
      this.tasks.set(pack.dir, state);
    }
    return state;
  }

  /**
   * Takes the task out of the cache (a later `get` prepares it again); `free` releases what others
   * hold of it (runs, views of its snapshot) before its folder is removed.
   */
  async forget(pack: TaskPack, free: (task: TaskState | undefined) => Promise<void>): Promise<void> {
    const state = this.tasks.get(pack.dir);
    if (!state) return;
    this.tasks.delete(pack.dir);
    await free(await state.catch(() => undefined));
    rmSync(this.dirs.get(pack.dir)!, { recursive: true, force: true });
    this.dirs.delete(pack.dir);
  }

  /** Resolves once no task is being prepared. */
  async settled(): Promise<void> {
    await Promise.allSettled(this.tasks.values());
  }
}
